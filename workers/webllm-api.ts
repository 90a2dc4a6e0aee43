/**
 * The WebLLM worker's API (`@mlc-ai/web-llm` in a worker of its own; the
 * entry is ./webllm.worker.ts). The worker holds one `MLCEngine` directly
 * (it needs only `navigator.gpu`, `fetch` and `caches`, all present in
 * workers) and exposes our own API through the Comlink runtime, so WebLLM's
 * `WebWorkerMLCEngineHandler` never takes over the worker's messages (see
 * docs/engines.md). `WebLlmEngine` (src/core/engines/webllm) does the
 * WebLLM-specific work.
 *
 * One model at a time; calls that touch it run one after another (a queue).
 *
 * Before anything downloads the worker checks its own WebGPU adapter: no
 * adapter, or an f16 model on an adapter without `shader-f16`, fails at once
 * (WebLLM itself would first fetch the config and the model library; see
 * docs/engines.md).
 *
 * Streaming: `generate` reports {@link TokenProgress} with each new piece of
 * text (the runtime batches reports, merging their pieces). The result's
 * `text` is authoritative.
 *
 * Abort: `ctx.signal` calls `interruptGenerate()`; `generate` returns the text
 * so far with `finishReason: 'abort'` (the client rejects the aborted call at
 * once with `AbortedError`). An aborted `load` unloads and throws `AbortedError`.
 *
 * Device lost: the error is `EngineError` `ENGINE_DEVICE_LOST` (message says
 * "device lost"); the worker drops its engine. The page should terminate this
 * worker and start a fresh one: see src/lib/engines/webllm-client.ts.
 */
import type { ModelRecord, ModelType } from '@mlc-ai/web-llm';
import { CATALOGUE, type CatalogueEntry } from '../src/core/engines/catalogue.ts';
import type { EngineInfo, GenerateRequest, GenerateResult } from '../src/core/engines/engine.ts';
import { EngineError } from '../src/core/engines/errors.ts';
import { appConfigFor, deleteCached, isCached, WebLlmEngine, type WebLlmApi, type WebLlmCache, type WebLlmOptions } from '../src/core/engines/webllm/webllm-engine.ts';
import { describeGpu } from '../src/core/env/gpu.ts';
import { throwIfAborted } from '../src/core/errors.ts';
import type { CallContext } from '../src/core/rpc/protocol.ts';
import type { TokenProgress } from '../src/core/model/progress.ts';
import { gpuMemory, installGpuMeter, type GpuMemoryInput, type GpuMemoryReport } from './runtime/gpu-meter.ts';

/** What the API needs of WebLLM; the worker entry passes the real library, tests a stand-in engine. */
interface WebLlmDeps {
  /** A new `MLCEngine` (or anything with its interface). */
  readonly createEngine: () => WebLlmApi;
  readonly cache: WebLlmCache;
  /** WebLLM's `prebuiltAppConfig.model_list`. */
  readonly prebuilt: readonly ModelRecord[];
  /** The installed WebLLM version, recorded with every result. */
  readonly version: string;
}

/** Where a model's files come from. */
export interface WebLlmSourceInput {
  /** A catalogue id (`phi-3.5-vision-q4f32`), a catalogue entry's WebLLM model id, or any WebLLM prebuilt model id. */
  readonly entryId: string;
  /**
   * Absolute base URL of the weights (an on-prem mirror, `https://models.local/mlc/`); WebLLM reads
   * `<base>/<model_id>/resolve/main/`. Default: WebLLM's own source (`https://huggingface.co/mlc-ai/`).
   */
  readonly weightsBaseUrl?: string;
  /** Absolute URL of the model library (.wasm) built for this WebLLM version. Default: WebLLM's prebuilt library URL. */
  readonly modelLibUrl?: string;
}

export interface WebLlmLoadInput extends WebLlmSourceInput {
  /** What the page's probe saw; the worker also checks its own adapter and uses f16 only when both agree. Default: the adapter's answer. */
  readonly shaderF16?: boolean;
  /** Context window in tokens (KV cache size); default: the catalogue's `contextLength`. */
  readonly contextWindow?: number;
}

/** {@link EngineInfo} plus what the worker found out while loading. */
export interface WebLlmInfo extends EngineInfo {
  readonly runtime: 'webllm';
  /** The catalogue id, or the WebLLM model id for a model outside the catalogue. */
  readonly entryId: string;
  /** The WebGPU adapter the worker got (e.g. `swiftshader, vendor google`). */
  readonly adapter: string;
  /** Whether all weights were in the browser's cache before the load started. */
  readonly fromCache: boolean;
  /** Time the load took in the worker, ms (0 when the model was already loaded). */
  readonly loadMs: number;
  readonly weightsUrl: string;
  readonly modelLibUrl: string;
}

export interface WebLlmGenerateInput {
  /** Images travel as encoded bytes (PNG/JPEG/WebP) inside the messages. */
  readonly request: GenerateRequest;
  /** When given and the worker holds another model or none (it was stopped when idle), that model is loaded first. */
  readonly model?: WebLlmLoadInput;
}

interface Loaded {
  readonly key: string;
  readonly engine: WebLlmEngine;
  readonly info: WebLlmInfo;
}

/** Set once by {@link createWebLlmApi}: one worker holds one API. */
let deps: WebLlmDeps;
let mlc: WebLlmApi | null = null;
let current: Loaded | null = null;
let queue: Promise<unknown> = Promise.resolve();

/** Runs calls one after another, whatever the previous one did. */
function serial<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(fn, fn);
  queue = run.catch(() => {});
  return run;
}

// WebLLM's ModelType.embedding and ModelType.VLM, typed so a renumbering fails the type check.
const MODEL_TYPE_EMBEDDING: ModelType.embedding = 1;
const MODEL_TYPE_VLM: ModelType.VLM = 2;

const f16Quantisation = (id: string) => /q\d+f16|q0f16/i.test(id);

/** A catalogue-shaped entry for a WebLLM prebuilt model outside our catalogue (used by the smoke test). */
function entryFromPrebuilt(r: ModelRecord): CatalogueEntry {
  if (r.model_type === MODEL_TYPE_EMBEDDING) throw new EngineError('ENGINE_UNSUPPORTED', `${r.model_id} is an embedding model; it cannot answer questions.`);
  const vlm = r.model_type === MODEL_TYPE_VLM;
  const quantisation = /q\d+f\d+(_\d+)?/i.exec(r.model_id)?.[0] ?? 'unknown';
  return {
    id: r.model_id,
    label: r.model_id,
    runtime: 'webllm',
    modelId: r.model_id,
    task: vlm ? 'image-text-to-text' : 'text-generation',
    parameters: 'unknown',
    quantisation,
    downloadBytes: 0,
    downloadApprox: true,
    vramMB: r.vram_required_MB ?? 0,
    // Many f16 records do not list shader-f16; the quantisation in the id tells.
    needsShaderF16: (r.required_features ?? []).includes('shader-f16') || f16Quantisation(r.model_id),
    images: vlm,
    contextLength: r.overrides?.context_window_size ?? 4096,
    licence: 'see the model card',
    sources: [r.model],
  };
}

interface Resolved {
  readonly entry: CatalogueEntry;
  readonly weightsBaseUrl: string;
  readonly modelLibUrl: string;
}

/** The catalogue entry and absolute URLs for a source input; defaults come from WebLLM's prebuilt record. */
function resolveSource(input: WebLlmSourceInput): Resolved {
  const fromCatalogue = CATALOGUE.models.find((m) => m.runtime === 'webllm' && (m.id === input.entryId || m.modelId === input.entryId));
  const other = CATALOGUE.models.find((m) => m.id === input.entryId);
  if (!fromCatalogue && other) throw new EngineError('ENGINE_UNSUPPORTED', `${other.label} runs on ${other.runtime}, not WebLLM.`);
  const modelId = fromCatalogue?.modelId ?? input.entryId;
  const prebuilt = deps.prebuilt.find((r) => r.model_id === modelId);
  if (!fromCatalogue && !prebuilt) {
    throw new EngineError('ENGINE_MODEL_MISSING', `"${input.entryId}" is neither in the model catalogue nor one of WebLLM ${deps.version}'s prebuilt models.`);
  }
  const entry = fromCatalogue ?? entryFromPrebuilt(prebuilt as ModelRecord);
  let weightsBaseUrl = input.weightsBaseUrl;
  if (weightsBaseUrl === undefined) {
    const model = prebuilt?.model.replace(/\/+$/, '');
    if (!model?.endsWith(`/${modelId}`)) {
      throw new EngineError('ENGINE_MODEL_MISSING', `WebLLM has no default source of the form <base>/${modelId} for ${entry.label}; give the weights' base URL.`);
    }
    weightsBaseUrl = model.slice(0, -modelId.length);
  }
  const modelLibUrl = input.modelLibUrl ?? prebuilt?.model_lib;
  if (modelLibUrl === undefined) throw new EngineError('ENGINE_MODEL_MISSING', `WebLLM has no prebuilt model library for ${entry.label}; give its URL.`);
  try {
    return { entry, weightsBaseUrl: new URL(weightsBaseUrl).href, modelLibUrl: new URL(modelLibUrl).href };
  } catch {
    throw new EngineError('ENGINE_MODEL_MISSING', `WebLLM needs absolute URLs (https://…), got "${weightsBaseUrl}" and "${modelLibUrl}".`);
  }
}

function optionsFor(r: Resolved, shaderF16: boolean, contextWindow?: number): WebLlmOptions {
  return {
    entry: r.entry,
    weightsBaseUrl: r.weightsBaseUrl,
    modelLibUrl: r.modelLibUrl,
    shaderF16,
    runtimeVersion: deps.version,
    ...(contextWindow === undefined ? {} : { contextWindow }),
  };
}

const MIB = 1024 * 1024;

/** This worker's adapter, checked the way WebLLM will use it. */
async function checkGpu(): Promise<{ adapter: string; shaderF16: boolean }> {
  const { facts } = await describeGpu((self.navigator as { gpu?: GPU }).gpu, "this browser's workers");
  if (!facts.available) throw new EngineError('ENGINE_UNSUPPORTED', `WebLLM needs WebGPU: ${facts.reason ?? 'no adapter'}.`);
  const binding = facts.limits.maxStorageBufferBindingSize ?? 0;
  if (binding < 128 * MIB) throw new EngineError('ENGINE_UNSUPPORTED', `This GPU allows storage buffers of ${Math.round(binding / MIB)} MB; WebLLM needs at least 128 MB.`);
  const adapter = [facts.architecture || facts.description || 'unknown adapter', facts.vendor && `vendor ${facts.vendor}`, facts.isFallbackAdapter && 'fallback adapter']
    .filter(Boolean)
    .join(', ');
  return { adapter, shaderF16: facts.features.includes('shader-f16') };
}

/** Forgets the engine after a device loss: its GPUDevice is gone. */
function dropAfter(error: unknown): never {
  if (error instanceof EngineError && error.engineCode === 'ENGINE_DEVICE_LOST') {
    current = null;
    mlc = null;
  }
  throw error;
}

async function ensureLoaded(input: WebLlmLoadInput, ctx: CallContext): Promise<WebLlmInfo> {
  const resolved = resolveSource(input);
  const key = JSON.stringify([resolved.entry.modelId, resolved.weightsBaseUrl, resolved.modelLibUrl, input.shaderF16 ?? null, input.contextWindow ?? null]);
  if (current?.key === key) return { ...current.info, loadMs: 0 };
  throwIfAborted(ctx.signal);
  const t0 = performance.now();
  ctx.progress({ phase: 'gpu', done: 0, message: 'Checking WebGPU' });
  const gpu = await checkGpu();
  throwIfAborted(ctx.signal);
  const options = optionsFor(resolved, gpu.shaderF16 && input.shaderF16 !== false, input.contextWindow);
  if (current) {
    const old = current;
    current = null;
    await old.engine.unload();
  }
  const fromCache = await isCached(deps.cache, options).catch(() => false);
  mlc ??= deps.createEngine();
  const engine = new WebLlmEngine(mlc, options);
  let base: EngineInfo;
  try {
    base = await engine.load({ signal: ctx.signal, onProgress: (p) => ctx.progress(p) });
  } catch (error) {
    dropAfter(error);
  }
  const record = appConfigFor(options).model_list[0];
  const info: WebLlmInfo = {
    ...base,
    runtime: 'webllm',
    entryId: resolved.entry.id,
    adapter: gpu.adapter,
    fromCache,
    loadMs: performance.now() - t0,
    weightsUrl: record?.model ?? resolved.weightsBaseUrl,
    modelLibUrl: resolved.modelLibUrl,
  };
  current = { key, engine, info };
  return info;
}

const webllmApi = {
  /** Loads a model (replacing any other); a second load of the same model returns at once. */
  async load(input: WebLlmLoadInput, ctx: CallContext): Promise<WebLlmInfo> {
    return serial(() => ensureLoaded(input, ctx));
  },

  /** Generates an answer; streams {@link TokenProgress}; an abort returns the text so far with `finishReason: 'abort'`. */
  async generate(input: WebLlmGenerateInput, ctx: CallContext): Promise<GenerateResult> {
    return serial(async () => {
      if (input.model) await ensureLoaded(input.model, ctx);
      if (!current) throw new EngineError('ENGINE_NOT_LOADED', 'Load the model before generating.');
      const total = input.request.sampling.maxTokens;
      let pieces = 0;
      try {
        return await current.engine.generate(input.request, {
          signal: ctx.signal,
          onToken: (piece) => {
            pieces++;
            const report: TokenProgress = { phase: 'token', done: Math.min(pieces, total), total, detail: { kind: 'tokens', piece } };
            ctx.progress(report);
          },
        });
      } catch (error) {
        return dropAfter(error);
      }
    });
  },

  /** Frees the model's GPU memory; the weights stay in the cache. */
  async unload(): Promise<void> {
    return serial(async () => {
      const old = current;
      current = null;
      await old?.engine.unload();
    });
  },

  /** Whether all of a model's weights are in the browser's cache (WebLLM's `hasModelInCache`). */
  async cached(input: WebLlmSourceInput): Promise<boolean> {
    return isCached(deps.cache, optionsFor(resolveSource(input), true));
  },

  /** Deletes a model's weights, tokenizer, config and library from the cache (WebLLM's `deleteModelAllInfoInCache`, then a sweep). */
  async deleteCached(input: WebLlmSourceInput): Promise<void> {
    return serial(async () => {
      const resolved = resolveSource(input);
      if (current?.info.modelId === resolved.entry.modelId) {
        const old = current;
        current = null;
        await old.engine.unload();
      }
      await deleteCached(deps.cache, optionsFor(resolved, true));
    });
  },

  /** What is loaded now, or null. */
  async info(): Promise<WebLlmInfo | null> {
    return current?.info ?? null;
  },

  /** GPU buffer memory WebLLM holds in this worker (./runtime/gpu-meter.ts); not queued, so it answers during a generate. */
  async gpuMemory(input: GpuMemoryInput | undefined): Promise<GpuMemoryReport> {
    return gpuMemory(input);
  },
};

export type WebLlmWorkerApi = typeof webllmApi;

/** The worker's API over the given WebLLM (the real library in ./webllm.worker.ts). */
export function createWebLlmApi(d: WebLlmDeps): WebLlmWorkerApi {
  deps = d;
  // Before WebLLM makes its device: every GPU buffer it allocates is counted.
  installGpuMeter();
  return webllmApi;
}
