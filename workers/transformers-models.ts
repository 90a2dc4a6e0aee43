/**
 * The models the transformers.js worker holds: at most one generating model
 * (a VLM or a text LLM: they are the large ones) and at most one encoder (for
 * similarity scoring; small), so a judge run can embed answers without
 * unloading its generator. Loading another model for a slot replaces the one
 * in it. Not thread-safe by itself: the worker's queue runs one call at a time.
 */
import ortMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import type { EngineInfo } from '../src/core/engines/engine.ts';
import { EngineError } from '../src/core/engines/errors.ts';
import { TransformersEmbedder } from '../src/core/engines/transformers/embedder.ts';
import type { ProcessorSettings } from '../src/core/engines/transformers/loading.ts';
import { loadTransformers, type ModelSource, type TransformersRuntime } from '../src/core/engines/transformers/runtime.ts';
import { wasmThreadsFor } from '../src/core/engines/transformers/threads.ts';
import { TransformersTextLlm } from '../src/core/engines/transformers/text-llm.ts';
import { asGenerator, type LoadedGenerator } from '../src/core/engines/transformers/transformers-engine.ts';
import { TransformersVlm } from '../src/core/engines/transformers/vlm.ts';
import { type VlmDevice } from '../src/core/engines/transformers/generation.ts';
import { describeGpu } from '../src/core/env/gpu.ts';
import { throwIfAborted } from '../src/core/errors.ts';
import type { CallContext } from '../src/core/rpc/protocol.ts';

import type { TransformersTask } from '../src/core/engines/spec.ts';

export type { TransformersTask } from '../src/core/engines/spec.ts';

/** Which model to load, from where, on which device. */
export interface TransformersLoadInput {
  /**
   * `{ kind: 'folder', location }` with an absolute URL ending in `/` (e.g.
   * `new URL('models/self-test/', document.baseURI).href`), or an on-prem
   * mirror `{ kind: 'mirror', host, modelId, revision? }`.
   */
  readonly source: ModelSource;
  readonly device: VlmDevice;
  /** Default `image-text-to-text` (a VLM). `text-generation` loads a text LLM, `feature-extraction` an encoder. */
  readonly task?: TransformersTask;
  /** `fp32`, `q4f16`, … or one per session. Default: the model's config, else transformers.js' default. */
  readonly dtype?: string | Readonly<Record<string, string>>;
  /** Reported as `modelId` (the catalogue id); default: the folder name or the mirror's model id. */
  readonly modelId?: string;
  /** VLMs: what the user changed of the processor's own settings. */
  readonly processor?: ProcessorSettings;
  /** false: transformers.js' `generate` for every request, as the engine was (comparisons); default true. */
  readonly cachedDecoding?: boolean;
  /** Greedy requests decoded together, instead of the size measured here. */
  readonly batch?: number;
  /**
   * onnxruntime-web's WASM threads, instead of the count chosen from this
   * machine's cores; `runtime-default` leaves onnxruntime-web its own. Only
   * the worker's first load sets it (one runtime per worker).
   */
  readonly wasmThreads?: number | 'runtime-default';
}

/** {@link EngineInfo} plus what the worker found out while loading. */
export interface TransformersInfo extends EngineInfo {
  readonly runtime: 'transformers';
  readonly task: TransformersTask;
  /** The device the sessions were created on: `webgpu` only if a WebGPU session was actually created. */
  readonly device: VlmDevice;
  readonly architecture: string;
  /** The WebGPU adapter the worker got (e.g. `swiftshader, vendor google`); absent on wasm. */
  readonly adapter?: string;
  /** onnxruntime-web's wasm threads (1 without cross-origin isolation): chosen from this machine's cores (threads.ts). */
  readonly wasmThreads: number;
  /** The weight format each ONNX session was loaded in (`{ decoder_model_merged: 'q8', … }`). */
  readonly weights: Readonly<Record<string, string>>;
  readonly crossOriginIsolated: boolean;
  /** Time the load took in the worker, ms (0 when the model was already loaded). */
  readonly loadMs: number;
  /** Encoders only: vector length and the longest input in tokens. */
  readonly dimensions?: number;
  readonly maxTokens?: number;
}

type Slot = 'generator' | 'encoder';
type Held<M> = { readonly key: string; readonly model: M; readonly info: TransformersInfo };

const held: { generator: Held<LoadedGenerator> | null; encoder: Held<TransformersEmbedder> | null } = { generator: null, encoder: null };

const taskOf = (input: TransformersLoadInput): TransformersTask => input.task ?? 'image-text-to-text';
const slotOf = (input: TransformersLoadInput): Slot => (taskOf(input) === 'feature-extraction' ? 'encoder' : 'generator');

/** A stable identity for a load input, whatever the key order of the object given. */
function modelKey(input: TransformersLoadInput): string {
  const sort = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sort(x)]))
      : v;
  return JSON.stringify(
    sort({ source: input.source, device: input.device, dtype: input.dtype ?? null, task: taskOf(input), processor: input.processor ?? null, cached: input.cachedDecoding ?? true, batch: input.batch ?? null }),
  );
}

function runtime(threads: TransformersLoadInput['wasmThreads']): Promise<TransformersRuntime> {
  // Every core of the machine (threads.ts), not onnxruntime-web's default of half of them, at most 4.
  const numThreads = threads === 'runtime-default' ? undefined : (threads ?? wasmThreadsFor(self.navigator?.hardwareConcurrency, self.crossOriginIsolated === true));
  return loadTransformers({
    wasmPaths: { mjs: new URL(ortMjsUrl, self.location.href).href, wasm: new URL(ortWasmUrl, self.location.href).href },
    ...(numThreads === undefined ? {} : { numThreads }),
  });
}

async function webgpuAdapter(): Promise<string> {
  const { facts } = await describeGpu((globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu, 'this browser\'s workers');
  if (!facts.available) throw new EngineError('ENGINE_UNSUPPORTED', `WebGPU cannot be used: ${facts.reason ?? 'no adapter'}. Choose WASM instead.`);
  return [facts.architecture || facts.description || 'unknown adapter', facts.vendor && `vendor ${facts.vendor}`, facts.isFallbackAdapter && 'fallback adapter']
    .filter(Boolean)
    .join(', ');
}

async function dispose(slot: Slot): Promise<void> {
  const loaded = held[slot];
  held[slot] = null;
  await loaded?.model.dispose();
}

/**
 * For the browser tests only (the worker's `neuroevalDiagnostics.decoding`):
 * how every later load decodes, whatever its input says. Part of the model's
 * identity, so a change reloads the model.
 */
let decodingOverride: Pick<TransformersLoadInput, 'cachedDecoding' | 'batch'> = {};
export function overrideDecoding(o: Pick<TransformersLoadInput, 'cachedDecoding' | 'batch'>): void {
  decodingOverride = { ...o };
}

/** Loads `input` into its slot (replacing what was there) unless it is already loaded. */
async function ensure(given: TransformersLoadInput, ctx: CallContext): Promise<TransformersInfo> {
  const input = slotOf(given) === 'generator' ? { ...given, ...decodingOverride } : given;
  const slot = slotOf(input);
  const key = modelKey(input);
  const current = held[slot];
  if (current?.key === key) return { ...current.info, modelId: input.modelId ?? current.model.info.modelId, loadMs: 0 };
  throwIfAborted(ctx.signal);
  await dispose(slot);
  const t0 = performance.now();
  const adapter = input.device === 'webgpu' ? await webgpuAdapter() : undefined;
  throwIfAborted(ctx.signal);
  ctx.progress({ phase: 'runtime', done: 0, message: 'Starting onnxruntime-web' });
  const rt = await runtime(input.wasmThreads);
  const options = {
    source: input.source,
    device: input.device,
    ...(input.dtype === undefined ? {} : { dtype: input.dtype }),
    ...(input.processor ? { processor: input.processor } : {}),
    ...(input.cachedDecoding === undefined ? {} : { cachedDecoding: input.cachedDecoding }),
    ...(input.batch === undefined ? {} : { batch: input.batch }),
    signal: ctx.signal,
    onProgress: (p: Parameters<CallContext['progress']>[0]) => ctx.progress(p),
  };
  const task = taskOf(input);
  const model =
    task === 'feature-extraction'
      ? await TransformersEmbedder.load(rt, options)
      : task === 'text-generation'
        ? await TransformersTextLlm.load(rt, options)
        : await TransformersVlm.load(rt, options);
  const wasm = rt.lib.env.backends.onnx.wasm as { numThreads?: number } | undefined;
  const info: TransformersInfo = {
    runtime: 'transformers',
    task,
    runtimeVersion: model.info.runtimeVersion,
    modelId: input.modelId ?? model.info.modelId,
    device: model.info.device,
    architecture: model.info.architecture,
    ...(adapter === undefined ? {} : { adapter }),
    // Left unset, onnxruntime-web takes min(4, ⌈cores / 2⌉) when isolated (see docs/engines.md).
    wasmThreads: wasm?.numThreads ?? (self.crossOriginIsolated === true ? Math.min(4, Math.ceil((self.navigator?.hardwareConcurrency || 1) / 2)) : 1),
    weights: model.info.weights,
    crossOriginIsolated: self.crossOriginIsolated === true,
    loadMs: performance.now() - t0,
    ...(model instanceof TransformersEmbedder ? { dimensions: model.info.dimensions, maxTokens: model.info.maxTokens } : {}),
  };
  if (model instanceof TransformersEmbedder) held.encoder = { key, model, info };
  else held.generator = { key, model: asGenerator(model), info };
  return info;
}

export const models = {
  /** Loads a model into its slot; returns what the worker reports about it. */
  async load(input: TransformersLoadInput, ctx: CallContext): Promise<TransformersInfo> {
    return ensure(input, ctx);
  },

  /** The generating model: `input`'s (loaded first if needed) or the one held. */
  async generator(input: TransformersLoadInput | undefined, ctx: CallContext): Promise<LoadedGenerator> {
    if (input && slotOf(input) !== 'generator') throw new EngineError('ENGINE_UNSUPPORTED', `A ${taskOf(input)} model does not generate text.`);
    if (input) await ensure(input, ctx);
    if (!held.generator) throw new EngineError('ENGINE_NOT_LOADED', 'Load the model before generating.');
    return held.generator.model;
  },

  /** The encoder, with the model id to report: `input`'s (loaded first if needed) or the one held. */
  async encoder(input: TransformersLoadInput | undefined, ctx: CallContext): Promise<{ embedder: TransformersEmbedder; modelId: string }> {
    if (input && slotOf(input) !== 'encoder') throw new EngineError('ENGINE_UNSUPPORTED', `A ${taskOf(input)} model does not embed text; load a feature-extraction model.`);
    if (input) await ensure(input, ctx);
    if (!held.encoder) throw new EngineError('ENGINE_NOT_LOADED', 'Load an encoder (a feature-extraction model) before embedding.');
    return { embedder: held.encoder.model, modelId: input?.modelId ?? held.encoder.info.modelId };
  },

  /** Frees `input`'s slot if it holds that model; without `input`, every slot. */
  async unload(input: TransformersLoadInput | undefined): Promise<void> {
    if (!input) {
      await dispose('generator');
      await dispose('encoder');
      return;
    }
    const slot = slotOf(input);
    const effective = slot === 'generator' ? { ...input, ...decodingOverride } : input;
    if (held[slot]?.key === modelKey(effective)) await dispose(slot);
  },

  info(slot: Slot): TransformersInfo | null {
    return held[slot]?.info ?? null;
  },
};
