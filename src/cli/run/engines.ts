/**
 * Engines of `neuroeval run`, built in ONE place: which models a `--model`
 * names, the run configuration's engine specs (`RunConfig.engines`, what a
 * run export carries) and the factory the runner core asks for each model.
 *
 * Today a model is a transformers.js folder (the app's bundled self-test and
 * demo-trained models by id, or any folder with a config.json), run on
 * onnxruntime-node's CPU provider where it loads (`--device cpu`) or on
 * onnxruntime-web's wasm backend (`--device wasm`), with the same engine
 * class the app's transformers worker uses; or a model an OpenAI-compatible
 * endpoint serves (run/endpoint.ts), with the app's endpoint engine.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CATALOGUE } from '../../core/engines/catalogue.ts';
import type { Engine } from '../../core/engines/engine.ts';
import type { EngineSpec, ModelFileRef } from '../../core/engines/spec.ts';
import type { RuntimeOptions } from '../../core/engines/transformers/runtime.ts';
import { InvalidInputError } from '../../core/errors.ts';
import type { EngineFactory } from '../../core/runner/engine-pool.ts';
import { modelFilesHash } from '../../core/runner/cache-key.ts';
import type { RunArgs } from './args.ts';
import { endpointModelsOf, endpointOptionsOf, type CliEndpointModel, type CliEndpointOptions } from './endpoint.ts';

/** `cpu`: onnxruntime-node (native); `wasm`: onnxruntime-web's wasm backend, as in the browser. */
export type CliDevice = 'cpu' | 'wasm';

/** A model of a CLI run: a transformers.js folder on disk. */
export interface CliTransformersModel {
  readonly kind: 'transformers';
  /** The model's id in the run (part of every item key): the bundled id or the folder name, or `id=` given. */
  readonly id: string;
  readonly label: string;
  /** Absolute path of the folder. */
  readonly folder: string;
  /** The files that identify the weights (from the folder's manifest.json, or hashed here). */
  readonly files: readonly ModelFileRef[];
}

export type CliModel = CliTransformersModel | CliEndpointModel;

export interface CliEngineOptions {
  readonly device: CliDevice;
  /** For endpoint models. */
  readonly endpoint?: CliEndpointOptions;
}

/**
 * The models of a run's arguments: `--model` values, then `--endpoint-model`
 * names. `--concurrency` above 1 needs every model to be an endpoint's (a
 * local engine answers one request at a time).
 * @throws InvalidInputError (a usage error) naming the option at fault.
 */
export function cliModelsOf(a: RunArgs): CliModel[] {
  const models: CliModel[] = [...a.models.map(resolveCliModel), ...endpointModelsOf(a)];
  if ((a.concurrency ?? 1) > 1 && models.some((m) => m.kind !== 'openai')) {
    throw new InvalidInputError('--concurrency above 1 is for --endpoint models only: a local model answers one request at a time', { field: '--concurrency' });
  }
  return models;
}

/** The engine options of a run's arguments. */
export function cliEngineOptionsOf(a: RunArgs, device: CliDevice): CliEngineOptions {
  return { device, ...(a.endpoint !== undefined ? { endpoint: endpointOptionsOf(a) } : {}) };
}

/** The identity of a model's weights in the run's plan: empty for an endpoint's (unknown, so never reused from a cache). */
export function cliFilesHash(m: CliModel): string {
  return m.files.length > 0 ? modelFilesHash(m.files) : '';
}

export interface CliEngines {
  /** One per model, same ids, as stored in the run configuration. */
  readonly specs: readonly EngineSpec[];
  /** What the runner calls to create (not load) a model's engine. */
  readonly engineFor: EngineFactory;
  /** Inference libraries and versions, for provenance (`Provenance.runtimes`). */
  readonly runtimes: Readonly<Record<string, string>>;
}

const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(import.meta.url);

/** The VLMs the app ships (public/models/<id>/), usable by id. */
export const BUNDLED_MODEL_IDS: readonly string[] = CATALOGUE.models.filter((m) => m.bundled && m.task === 'image-text-to-text').map((m) => m.id);

/**
 * Resolves a `--model` value: a bundled id (`self-test`, `demo-trained`), a
 * transformers.js model folder, or `id=folder` to name the model yourself.
 * @throws InvalidInputError when it is neither.
 */
export function resolveCliModel(value: string): CliModel {
  const eq = value.indexOf('=');
  const named = eq > 0 && !existsSync(value) ? { id: value.slice(0, eq), path: value.slice(eq + 1) } : null;
  const path = named?.path ?? value;
  if (!named && BUNDLED_MODEL_IDS.includes(value) && !existsSync(value)) {
    const folder = join(PACKAGE_ROOT, 'public', 'models', value);
    const entry = CATALOGUE.models.find((m) => m.id === value)!;
    return { kind: 'transformers', id: value, label: entry.label, folder, files: folderFiles(folder) };
  }
  const folder = resolve(path);
  if (!existsSync(join(folder, 'config.json'))) {
    throw new InvalidInputError(
      `--model ${value}: not a bundled model (${BUNDLED_MODEL_IDS.join(', ')}) nor a transformers.js model folder (no config.json in it).`,
      { field: '--model' },
    );
  }
  const id = named?.id ?? basename(folder);
  if (!id || id.includes('|')) throw new InvalidInputError(`--model ${value}: the model id "${id}" is empty or contains "|".`, { field: '--model' });
  return { kind: 'transformers', id, label: id, folder, files: folderFiles(folder) };
}

/**
 * The files that identify a folder's weights: its manifest.json's list (what
 * the app records for a bundled or imported model, so the same weights have
 * the same `filesHash` in a CLI run and an app run), else every file hashed.
 */
function folderFiles(folder: string): ModelFileRef[] {
  const manifest = join(folder, 'manifest.json');
  if (existsSync(manifest)) {
    try {
      const m = JSON.parse(readFileSync(manifest, 'utf8')) as { files?: { path?: unknown; sha256?: unknown }[] };
      const files = (m.files ?? []).filter((f) => typeof f.path === 'string' && typeof f.sha256 === 'string');
      if (files.length > 0) return files.map((f) => ({ name: f.path as string, sha256: f.sha256 as string }));
    } catch {
      // Not a NeuroEval manifest: hash the files instead.
    }
  }
  const out: ModelFileRef[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.')) continue;
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push({ name: relative(folder, full).split(sep).join('/'), sha256: createHash('sha256').update(readFileSync(full)).digest('hex') });
    }
  };
  walk(folder);
  return out;
}

/** True when onnxruntime-node (installed with transformers.js) resolves here. */
export function nativeNodeAvailable(): boolean {
  try {
    require.resolve('onnxruntime-node', { paths: [dirname(require.resolve('@huggingface/transformers'))] });
    return true;
  } catch {
    return false;
  }
}

/** The device `--device` asked for, or the default: native CPU when onnxruntime-node resolves, wasm otherwise. */
export function chooseDevice(asked: string | undefined): CliDevice {
  if (asked === undefined || asked === 'auto') return nativeNodeAvailable() ? 'cpu' : 'wasm';
  if (asked === 'cpu' || asked === 'wasm') {
    if (asked === 'cpu' && !nativeNodeAvailable()) {
      throw new InvalidInputError('--device cpu needs onnxruntime-node, which is not installed here; use --device wasm.', { field: '--device' });
    }
    return asked;
  }
  throw new InvalidInputError(`--device must be cpu, wasm or auto, not "${asked}".`, { field: '--device' });
}

function packageVersion(name: string): string {
  try {
    let dir = dirname(require.resolve(name));
    while (!existsSync(join(dir, 'package.json')) || JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name !== name) {
      const up = dirname(dir);
      if (up === dir) return 'unknown';
      dir = up;
    }
    return String(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version);
  } catch {
    return 'unknown';
  }
}

async function runtimeOptions(device: CliDevice): Promise<RuntimeOptions> {
  const wasmPaths = `${pathToFileURL(dirname(require.resolve('onnxruntime-web'))).href}/`;
  if (device === 'cpu') return { wasmPaths, nativeNode: true };
  const ort = await import('onnxruntime-web');
  return { wasmPaths, ort };
}

/**
 * The engines of a CLI run: specs for its configuration, the factory the
 * runner calls, the runtime versions for provenance. The one place a CLI
 * run's engines are made.
 */
export function createCliEngineFactory(models: readonly CliModel[], options: CliEngineOptions): CliEngines {
  const endpoint = options.endpoint ?? { concurrency: 1, timeoutMs: 600_000, retries: 4 };
  const specs: EngineSpec[] = models.map((m): EngineSpec =>
    m.kind === 'openai'
      ? { kind: 'openai', id: m.id, label: m.label, endpointId: 'command-line', baseUrl: m.baseUrl, model: m.model, concurrency: endpoint.concurrency }
      : {
          kind: 'transformers',
          id: m.id,
          label: m.label,
          location: `${pathToFileURL(m.folder).href.replace(/\/?$/, '/')}`,
          device: options.device,
          files: m.files.map((f) => ({ name: f.name, sha256: f.sha256 })),
        },
  );
  const runtimes: Record<string, string> = {};
  if (models.some((m) => m.kind === 'transformers')) {
    runtimes['transformers.js'] = packageVersion('@huggingface/transformers');
    if (options.device === 'cpu') runtimes['onnxruntime-node'] = packageVersion('onnxruntime-node');
    else runtimes['onnxruntime-web'] = packageVersion('onnxruntime-web');
  }
  if (models.some((m) => m.kind === 'openai')) runtimes['openai-compatible'] = 'openai-chat-completions';
  const engineFor: EngineFactory = async (modelId): Promise<Engine> => {
    const model = models.find((m) => m.id === modelId);
    if (!model) throw new InvalidInputError(`The run has no engine for model "${modelId}".`);
    if (model.kind === 'openai') {
      const { OpenAiCompatibleEngine } = await import('../../core/engines/openai/openai-engine.ts');
      return new OpenAiCompatibleEngine({
        baseUrl: model.baseUrl,
        model: model.model,
        concurrency: endpoint.concurrency,
        retry: { retries: endpoint.retries, timeoutMs: endpoint.timeoutMs },
        ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
      });
    }
    const { TransformersEngine } = await import('../../core/engines/transformers/transformers-engine.ts');
    return new TransformersEngine({
      runtime: await runtimeOptions(options.device),
      source: { kind: 'folder', location: model.folder },
      modelId: model.id,
      device: options.device,
    });
  };
  return { specs, engineFor, runtimes };
}
