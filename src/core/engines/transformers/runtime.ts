/**
 * Loads `@huggingface/transformers` and points it at self-hosted files only:
 * the onnxruntime-web wasm build it pins (never the jsDelivr CDN it defaults
 * to) and models from a local folder / same-origin URL or an on-prem mirror
 * (never huggingface.co). Runs in browsers, workers and Node; nothing here
 * touches the DOM or Node built-ins.
 *
 * transformers.js keeps its settings in one global `env`, so one realm (one
 * worker) holds one runtime; load models one after another, not in parallel
 * (see docs/engines.md).
 */
import type * as Transformers from '@huggingface/transformers';
import { EngineError } from '../errors.ts';
import { DownloadMeter } from './download-meter.ts';
import { ModelFileEdits } from './model-file-edits.ts';

export type TransformersLib = typeof Transformers;

/** The onnxruntime-web module namespace (`import * as ort from 'onnxruntime-web'`), as far as we use it. */
export interface OrtWebModule {
  readonly env: { readonly versions: Readonly<Record<string, string | undefined>>; readonly wasm: OrtWasmFlags };
  readonly InferenceSession: unknown;
}

interface OrtWasmFlags {
  wasmPaths?: unknown;
  numThreads?: number;
}

/**
 * Where onnxruntime-web finds its wasm files: a folder URL ending in `/`
 * (ORT picks the file names), or the exact `.mjs` + `.wasm` pair. In the
 * browser these must be absolute URLs of self-hosted copies of the pinned
 * build; in Node, a `file://` URL of `node_modules/onnxruntime-web/dist/`.
 */
export type WasmPaths = string | { readonly mjs: string; readonly wasm: string };

export interface RuntimeOptions {
  readonly wasmPaths: WasmPaths;
  /**
   * Force this onnxruntime-web module instead of the one transformers.js
   * would pick. Required in Node (where transformers.js would otherwise use
   * onnxruntime-node); it must be installed before transformers.js is first
   * imported in this realm, which {@link loadTransformers} does.
   */
  readonly ort?: OrtWebModule;
  /**
   * Node only (the `neuroeval run` CLI): run on onnxruntime-node, the native
   * CPU build transformers.js' Node entry imports itself, instead of
   * onnxruntime-web. No ORT is injected (`ort` must be unset) and
   * `wasmPaths` is unused. Answers may differ in the last bits from the wasm
   * backend's; the engine reports which one ran.
   */
  readonly nativeNode?: boolean;
  /** WASM threads (needs cross-origin isolation in browsers). Leave unset for ORT's default. */
  readonly numThreads?: number;
  /** Cache downloaded model files in the browser's Cache API (`transformers-cache`). Default false. */
  readonly useBrowserCache?: boolean;
  /**
   * Let transformers.js pre-fetch the ORT wasm into the Cache API and import the `.mjs` from a
   * `blob:` URL (needs `{mjs, wasm}` paths, and a CSP allowing blob: scripts where it runs). Default false.
   */
  readonly useWasmCache?: boolean;
  /** A custom fetch for model files (e.g. one that serves a folder imported into IndexedDB). */
  readonly fetch?: typeof fetch;
  /** Imports transformers.js; replace in tests or to load a specific bundle. */
  readonly importTransformers?: () => Promise<TransformersLib>;
}

export interface TransformersRuntime {
  readonly lib: TransformersLib;
  /** `transformers.js` version. */
  readonly version: string;
  /** The ONNX Runtime actually in use: onnxruntime-web, except the CLI's native Node backend ({@link RuntimeOptions.nativeNode}). */
  readonly backend: { readonly name: 'onnxruntime-web' | 'onnxruntime-node'; readonly version: string };
  /** True when the ORT module was injected (Node): devices must then be chosen through session options. */
  readonly injectedOrt: boolean;
  /** Counts model file bytes as transformers.js fetches them: loads report download progress through it (see download-meter.ts). */
  readonly downloads: DownloadMeter;
  /** Edits to model files as they are fetched, for the loads that ask (model-file-edits.ts). */
  readonly edits: ModelFileEdits;
}

const ORT_SYMBOL = Symbol.for('onnxruntime');

let loaded: Promise<TransformersRuntime> | null = null;

/**
 * Imports and configures transformers.js once per realm; later calls return
 * the same runtime (their options must not change the ORT module).
 */
export function loadTransformers(options: RuntimeOptions): Promise<TransformersRuntime> {
  loaded ??= init(options).catch((error: unknown) => {
    loaded = null;
    throw error;
  });
  return loaded;
}

async function init(options: RuntimeOptions): Promise<TransformersRuntime> {
  if (options.nativeNode) return initNativeNode(options);
  if (options.ort) {
    // transformers.js checks this global once, when its module is first evaluated.
    (globalThis as Record<symbol, unknown>)[ORT_SYMBOL] = options.ort;
    // Set before the import: transformers.js installs its CDN default only when wasmPaths is empty.
    options.ort.env.wasm.wasmPaths = options.wasmPaths;
  }
  const lib = await (options.importTransformers ?? (() => import('@huggingface/transformers')))();
  const env = lib.env;
  const onnx = env.backends.onnx as { versions?: Record<string, string | undefined>; wasm?: OrtWasmFlags };
  const ortVersion = onnx.versions?.web;
  if (!ortVersion || !onnx.wasm) {
    throw new EngineError(
      'ENGINE_UNSUPPORTED',
      'transformers.js is not running on onnxruntime-web (it was imported before the runtime override was installed, or in Node without one).',
    );
  }
  if (options.ort && (globalThis as Record<symbol, unknown>)[ORT_SYMBOL] !== options.ort) {
    throw new EngineError('ENGINE_UNSUPPORTED', 'Another onnxruntime module was installed for transformers.js in this realm.');
  }
  // env.backends.onnx.wasm is ORT's own env.wasm object, so this reaches the runtime.
  onnx.wasm.wasmPaths = options.wasmPaths;
  if (options.numThreads !== undefined) onnx.wasm.numThreads = options.numThreads;

  const { downloads, edits } = restrictSources(env, options);

  return { lib, version: env.version, backend: { name: 'onnxruntime-web', version: ortVersion }, injectedOrt: options.ort !== undefined, downloads, edits };
}

/** transformers.js on onnxruntime-node (Node only): same file restrictions, native CPU sessions. */
async function initNativeNode(options: RuntimeOptions): Promise<TransformersRuntime> {
  if (options.ort) throw new EngineError('ENGINE_UNSUPPORTED', 'The native Node backend takes no injected onnxruntime module.');
  if ((globalThis as Record<symbol, unknown>)[ORT_SYMBOL] !== undefined) {
    throw new EngineError('ENGINE_UNSUPPORTED', 'Another onnxruntime module was installed for transformers.js in this realm.');
  }
  const lib = await (options.importTransformers ?? (() => import('@huggingface/transformers')))();
  const env = lib.env;
  const onnx = env.backends.onnx as { versions?: Record<string, string | undefined>; wasm?: OrtWasmFlags };
  const ortVersion = onnx.versions?.node;
  if (!ortVersion || onnx.versions?.web) {
    throw new EngineError('ENGINE_UNSUPPORTED', 'transformers.js is not running on onnxruntime-node (this is not Node, or onnxruntime-node could not be loaded).');
  }
  const { downloads, edits } = restrictSources(env, options);
  return { lib, version: env.version, backend: { name: 'onnxruntime-node', version: ortVersion }, injectedOrt: false, downloads, edits };
}

/** Where a model's files are. Both forms use the Hugging Face repository layout (config.json, onnx/…). */
export type ModelSource =
  /**
   * A folder holding the files directly: an absolute http(s) URL such as
   * `https://host/app/models/self-test/` (browser), or a directory path (Node).
   */
  | { readonly kind: 'folder'; readonly location: string }
  /** An on-prem Hugging Face mirror: `host` + `pathTemplate` (default `{model}/resolve/{revision}/`). */
  | { readonly kind: 'mirror'; readonly host: string; readonly modelId: string; readonly revision?: string; readonly pathTemplate?: string };

/** No cache written anywhere, and no host allowed until a model source is applied; model files fetched through a {@link DownloadMeter}, then edited where a load asks. */
function restrictSources(env: TransformersLib['env'], options: RuntimeOptions): { downloads: DownloadMeter; edits: ModelFileEdits } {
  env.useBrowserCache = options.useBrowserCache ?? false;
  env.useWasmCache = options.useWasmCache ?? false;
  env.useFSCache = false; // never write model copies next to node_modules
  env.useCustomCache = false;
  const downloads = new DownloadMeter(options.fetch ?? env.fetch);
  const edits = new ModelFileEdits(downloads.fetch);
  env.fetch = edits.fetch;
  // Nothing is fetched until a model source is applied; until then, no host is allowed.
  env.allowRemoteModels = false;
  env.allowLocalModels = false;
  return { downloads, edits };
}

/** Points transformers.js at one model source and returns the id to pass to `from_pretrained`. */
export function applyModelSource(runtime: TransformersRuntime, source: ModelSource): { modelId: string; revision: string } {
  const env = runtime.lib.env;
  if (source.kind === 'mirror') {
    useRemote(env, source.host, source.pathTemplate ?? '{model}/resolve/{revision}/');
    return { modelId: source.modelId, revision: source.revision ?? 'main' };
  }
  const trimmed = source.location.replace(/[/\\]+$/, '');
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  const modelId = trimmed.slice(cut + 1);
  if (cut < 0 || !/^[\w.-]+$/.test(modelId) || modelId.includes('..')) {
    throw new EngineError('ENGINE_MODEL_MISSING', `"${source.location}" is not a model folder location (expected …/models/<name>/).`);
  }
  const parent = trimmed.slice(0, cut + 1);
  if (/^https?:\/\//i.test(parent)) {
    // transformers.js 4.3.1 only probes optional files (tokenizer_config.json) for *local* paths that are
    // not URLs, so a URL folder goes through its remote loader, with the files directly under the folder.
    useRemote(env, parent, '{model}/');
  } else {
    env.allowLocalModels = true;
    env.allowRemoteModels = false;
    env.localModelPath = parent;
  }
  return { modelId, revision: 'main' };
}

function useRemote(env: TransformersLib['env'], host: string, pathTemplate: string): void {
  env.allowLocalModels = false;
  env.allowRemoteModels = true;
  env.remoteHost = host.endsWith('/') ? host : `${host}/`;
  env.remotePathTemplate = pathTemplate;
}
