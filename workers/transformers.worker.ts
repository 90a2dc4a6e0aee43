/**
 * transformers.js in a worker: one runtime per worker (transformers.js keeps
 * its settings and its sampler's seed in globals) and at most one loaded model.
 *
 * onnxruntime-web's wasm pair is self-hosted: the `?url` imports below make
 * Vite emit the exact files of the pinned build into dist/assets, where the
 * service worker precaches them. Nothing is ever fetched from a CDN.
 *
 * Calls run one after another (a queue), so a generate never overlaps a load
 * or another generate on the same model.
 *
 * Streaming: `generate` reports {@link TokenProgress} through `ctx.progress`
 * with the WHOLE text so far in `message` (not the newest piece). The worker
 * runtime throttles progress to one message per 50 ms and drops the ones in
 * between, so a cumulative text stays correct whichever messages arrive; the
 * report for the last allowed token (`done === total`) always arrives. The
 * result's `text` is authoritative. `WorkerEngine` (src/lib/engines) turns the
 * reports back into `onToken(piece)` calls.
 *
 * Abort: `ctx.signal` stops generation before the next token and `generate`
 * returns the text so far with `finishReason: 'abort'`. Across the worker
 * boundary the client rejects an aborted call at once with `AbortedError`,
 * so `WorkerEngine` rebuilds the 'abort' result on the page from the tokens
 * it has received.
 */
import ortMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import type { EngineInfo, GenerateRequest, GenerateResult } from '../src/core/engines/engine.ts';
import { EngineError } from '../src/core/engines/errors.ts';
import { loadTransformers, type ModelSource, type TransformersRuntime } from '../src/core/engines/transformers/runtime.ts';
import { TransformersVlm, type VlmDevice, type VlmMessage } from '../src/core/engines/transformers/vlm.ts';
import { describeGpu } from '../src/core/env/gpu.ts';
import { throwIfAborted } from '../src/core/errors.ts';
import type { CallContext, Progress } from '../src/core/rpc/protocol.ts';
import { exposeApi } from './runtime/expose.ts';

/** Which model to load, from where, on which device. */
export interface TransformersLoadInput {
  /**
   * `{ kind: 'folder', location }` with an absolute URL ending in `/` (e.g.
   * `new URL('models/self-test/', document.baseURI).href`), or an on-prem
   * mirror `{ kind: 'mirror', host, modelId, revision? }`.
   */
  readonly source: ModelSource;
  readonly device: VlmDevice;
  /** `fp32`, `q4f16`, … or one per session. Default: the model's config, else transformers.js' default. */
  readonly dtype?: string | Readonly<Record<string, string>>;
  /** Reported as `modelId` (the catalogue id); default: the folder name or the mirror's model id. */
  readonly modelId?: string;
}

/** {@link EngineInfo} plus what the worker found out while loading. */
export interface TransformersInfo extends EngineInfo {
  readonly runtime: 'transformers';
  /** The device the sessions were created on: `webgpu` only if a WebGPU session was actually created. */
  readonly device: VlmDevice;
  readonly architecture: string;
  /** The WebGPU adapter the worker got (e.g. `swiftshader, vendor google`); absent on wasm. */
  readonly adapter?: string;
  /** onnxruntime-web's wasm threads (1 without cross-origin isolation). */
  readonly wasmThreads: number;
  readonly crossOriginIsolated: boolean;
  /** Time the load took in the worker, ms (0 when the model was already loaded). */
  readonly loadMs: number;
}

export interface TransformersGenerateInput {
  /** Images travel as encoded bytes (PNG/JPEG/WebP) inside the messages. */
  readonly request: GenerateRequest;
  /**
   * The model this request is for. When given and the worker holds another
   * model or none (it was stopped when idle, or another engine loaded its own),
   * that model is loaded first, reporting load progress.
   */
  readonly model?: TransformersLoadInput;
}

/** How `generate` streams: see the file comment. */
export interface TokenProgress extends Progress {
  readonly phase: 'token';
  /** Tokens generated so far. */
  readonly done: number;
  /** `maxTokens` of the request. */
  readonly total: number;
  /** The whole text so far. */
  readonly message: string;
}

interface Loaded {
  readonly key: string;
  readonly vlm: TransformersVlm;
  readonly info: TransformersInfo;
}

let current: Loaded | null = null;
let queue: Promise<unknown> = Promise.resolve();

/** Runs calls one after another, whatever the previous one did. */
function serial<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(fn, fn);
  queue = run.catch(() => {});
  return run;
}

function runtime(): Promise<TransformersRuntime> {
  return loadTransformers({
    wasmPaths: { mjs: new URL(ortMjsUrl, self.location.href).href, wasm: new URL(ortWasmUrl, self.location.href).href },
  });
}

/** A stable identity for a load input, whatever the key order of the object given. */
function modelKey(input: TransformersLoadInput): string {
  const sort = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sort(x)]))
      : v;
  return JSON.stringify(sort({ source: input.source, device: input.device, dtype: input.dtype ?? null }));
}

async function webgpuAdapter(): Promise<string> {
  const { facts } = await describeGpu((globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu, 'this browser\'s workers');
  if (!facts.available) throw new EngineError('ENGINE_UNSUPPORTED', `WebGPU cannot be used: ${facts.reason ?? 'no adapter'}. Choose WASM instead.`);
  return [facts.architecture || facts.description || 'unknown adapter', facts.vendor && `vendor ${facts.vendor}`, facts.isFallbackAdapter && 'fallback adapter']
    .filter(Boolean)
    .join(', ');
}

async function disposeCurrent(): Promise<void> {
  const loaded = current;
  current = null;
  await loaded?.vlm.dispose();
}

async function ensureLoaded(input: TransformersLoadInput, ctx: CallContext): Promise<TransformersInfo> {
  const key = modelKey(input);
  if (current?.key === key) return { ...current.info, modelId: input.modelId ?? current.vlm.info.modelId, loadMs: 0 };
  throwIfAborted(ctx.signal);
  await disposeCurrent();
  const t0 = performance.now();
  const adapter = input.device === 'webgpu' ? await webgpuAdapter() : undefined;
  throwIfAborted(ctx.signal);
  ctx.progress({ phase: 'runtime', done: 0, message: 'Starting onnxruntime-web' });
  const rt = await runtime();
  const vlm = await TransformersVlm.load(rt, {
    source: input.source,
    device: input.device,
    ...(input.dtype === undefined ? {} : { dtype: input.dtype }),
    signal: ctx.signal,
    onProgress: (p) => ctx.progress(p),
  });
  const wasm = rt.lib.env.backends.onnx.wasm as { numThreads?: number } | undefined;
  const info: TransformersInfo = {
    runtime: 'transformers',
    runtimeVersion: vlm.info.runtimeVersion,
    modelId: input.modelId ?? vlm.info.modelId,
    device: vlm.info.device,
    architecture: vlm.info.architecture,
    ...(adapter === undefined ? {} : { adapter }),
    wasmThreads: wasm?.numThreads ?? 1,
    crossOriginIsolated: self.crossOriginIsolated === true,
    loadMs: performance.now() - t0,
  };
  current = { key, vlm, info };
  return info;
}

function toMessages(request: GenerateRequest): VlmMessage[] {
  return request.messages.map((m) => ({
    role: m.role,
    text: m.text,
    images: (m.images ?? []).map((img) => ({ bytes: img.bytes, mime: img.mime })),
  }));
}

export const transformersApi = {
  /** Loads a model (replacing any other); a second load of the same model returns at once. Throws `AbortedError` when cancelled. */
  async load(input: TransformersLoadInput, ctx: CallContext): Promise<TransformersInfo> {
    return serial(() => ensureLoaded(input, ctx));
  },

  /** Generates an answer; streams {@link TokenProgress}; an abort returns the text so far with `finishReason: 'abort'`. */
  async generate(input: TransformersGenerateInput, ctx: CallContext): Promise<GenerateResult> {
    return serial(async () => {
      if (input.model) await ensureLoaded(input.model, ctx);
      if (!current) throw new EngineError('ENGINE_NOT_LOADED', 'Load the model before generating.');
      const total = input.request.sampling.maxTokens;
      let text = '';
      return current.vlm.generateChat(toMessages(input.request), { ...input.request.sampling, signal: ctx.signal }, (e) => {
        text += e.text;
        const report: TokenProgress = { phase: 'token', done: e.index + 1, total, message: text };
        ctx.progress(report);
      });
    });
  },

  /** Frees the model's wasm and GPU memory. With `model`, only if that model is the one loaded. */
  async unload(input: { readonly model?: TransformersLoadInput } | undefined): Promise<void> {
    return serial(async () => {
      if (input?.model && current?.key !== modelKey(input.model)) return;
      await disposeCurrent();
    });
  },

  /** What is loaded now, or null. */
  async info(): Promise<TransformersInfo | null> {
    return current?.info ?? null;
  },
};

export type TransformersApi = typeof transformersApi;

exposeApi(transformersApi);
