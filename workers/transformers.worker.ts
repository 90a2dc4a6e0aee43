/**
 * transformers.js in a worker: one runtime per worker (transformers.js keeps
 * its settings and its sampler's seed in globals), at most one generating
 * model (a VLM, or a text LLM with `task: 'text-generation'`) and at most one
 * encoder (`task: 'feature-extraction'`, for `embed` / `tokenEmbed`); see
 * ./transformers-models.ts.
 *
 * onnxruntime-web's wasm pair is self-hosted: the `?url` imports in
 * ./transformers-models.ts make Vite emit the exact files of the pinned build into dist/assets, where the
 * service worker precaches them. Nothing is ever fetched from a CDN.
 *
 * Calls run one after another (a queue), so a generate or an embed never
 * overlaps a load or another call on the same model.
 *
 * Streaming: `generate` reports {@link TokenProgress} through `ctx.progress`
 * with each token's new text in `detail.piece`. The worker runtime sends at
 * most one message per 50 ms and merges the pieces of the reports it holds
 * back, so every piece arrives, in order. The result's `text` is
 * authoritative. `WorkerEngine` (src/lib/engines) turns the reports back into
 * `onToken(piece)` calls.
 *
 * Abort: `ctx.signal` stops generation before the next token and `generate`
 * returns the text so far with `finishReason: 'abort'`. Across the worker
 * boundary the client rejects an aborted call at once with `AbortedError`,
 * so `WorkerEngine` rebuilds the 'abort' result on the page from the tokens
 * it has received. An aborted `embed` / `tokenEmbed` stops between batches
 * and rejects with `AbortedError`.
 */
import type { GenerateRequest, GenerateResult } from '../src/core/engines/engine.ts';
import type { Pooling } from '../src/core/engines/transformers/embedder.ts';
import { setDiagnosticImageTransform, type DiagnosticImageTransform } from '../src/core/engines/transformers/vlm.ts';
import type { CallContext } from '../src/core/rpc/protocol.ts';
import type { TokenProgress } from '../src/core/model/progress.ts';
import { exposeApi } from './runtime/expose.ts';
import { gpuMemory, installGpuMeter, type GpuMemoryInput, type GpuMemoryReport } from './runtime/gpu-meter.ts';
import { models, overrideDecoding, type TransformersInfo, type TransformersLoadInput } from './transformers-models.ts';

export type { TransformersInfo, TransformersLoadInput, TransformersTask } from './transformers-models.ts';

interface TransformersGenerateInput {
  /** Images travel as encoded bytes (PNG/JPEG/WebP) inside the messages (text LLMs refuse them). */
  readonly request: GenerateRequest;
  /**
   * The model this request is for. When given and the worker holds another
   * generating model or none (it was stopped when idle, or another engine
   * loaded its own), that model is loaded first, reporting load progress.
   */
  readonly model?: TransformersLoadInput;
}

interface EmbedInput {
  readonly texts: readonly string[];
  /** `mean` (sentence-transformers models such as all-MiniLM-L6-v2) or `cls`. */
  readonly pooling: Pooling;
  /** L2-normalise each vector (then cosine similarity is a dot product). */
  readonly normalize: boolean;
  /** The encoder (`task: 'feature-extraction'`); loaded first if the worker holds another or none. */
  readonly model?: TransformersLoadInput;
}

interface EmbedResult {
  /** The encoder that made the vectors (the catalogue id when the load input named one): record it with every score. */
  readonly modelId: string;
  readonly dimensions: number;
  /** One per text, in order. */
  readonly vectors: Float32Array[];
}

interface TokenEmbedInput {
  readonly text: string;
  /** L2-normalise each vector. Default true. */
  readonly normalize?: boolean;
  /** Read this layer (one the graph outputs as `hidden_states.<n>`); default the last. */
  readonly layer?: number;
  /** `keep` keeps special tokens, [CLS]/[SEP] marked; default `drop`. */
  readonly specialTokens?: 'drop' | 'keep';
  readonly model?: TransformersLoadInput;
}

interface TokenEmbedResult {
  readonly modelId: string;
  /** The tokenizer's tokens, special tokens excluded unless kept. */
  readonly tokens: string[];
  /** One contextual vector per token. */
  readonly vectors: Float32Array[];
  /** Per token: [CLS] or [SEP], which BERTScore weighs 0. */
  readonly special: boolean[];
  /** The layer read; null for the last of an encoder of unknown depth. */
  readonly layer: number | null;
  /** The encoder's depth, the layers its graph outputs and its upstream model (for choosing bert_score's layer). */
  readonly layers: number | null;
  readonly hiddenStates: readonly number[];
  readonly upstream: string | null;
  /** The text was longer than the encoder takes; only its start was encoded. */
  readonly truncated: boolean;
}

/** Texts per encoder call (and per progress report). */
const EMBED_BATCH = 16;

// Before onnxruntime-web makes its device: every GPU buffer it allocates is counted.
installGpuMeter();

let queue: Promise<unknown> = Promise.resolve();
let transform: DiagnosticImageTransform = null;
let decoding: { cachedDecoding?: boolean; batch?: number } = {};

/** How many recent prompts the diagnostics keep. */
const RECENT_PROMPTS = 64;

/**
 * For support (and the browser tests): what this worker holds and the exact
 * prompt texts the chat template made of the latest requests (image tokens
 * where each image stands), readable from the worker's console as
 * `neuroevalDiagnostics`. Nothing leaves the worker.
 */
const diagnostics: {
  prompts: string[];
  readonly models: () => (string | null)[];
  imageTransform: DiagnosticImageTransform;
  decoding: { cachedDecoding?: boolean; batch?: number };
} = {
  prompts: [],
  models: () => [models.info('generator')?.modelId ?? null, models.info('encoder')?.modelId ?? null],
  // The known-answer check's deliberately wrong image path (tests only); see setDiagnosticImageTransform.
  get imageTransform() {
    return transform;
  },
  set imageTransform(t: DiagnosticImageTransform) {
    transform = t;
    setDiagnosticImageTransform(t);
  },
  // The browser tests' switch between the cached decoder and transformers.js' generate, and a fixed batch size.
  get decoding() {
    return decoding;
  },
  set decoding(d: { cachedDecoding?: boolean; batch?: number }) {
    decoding = { ...d };
    overrideDecoding(decoding);
  },
};
(globalThis as { neuroevalDiagnostics?: typeof diagnostics }).neuroevalDiagnostics = diagnostics;

/** Runs calls one after another, whatever the previous one did. */
function serial<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(fn, fn);
  queue = run.catch(() => {});
  return run;
}

export const transformersApi = {
  /**
   * Loads a model into its slot (replacing the generating model or the encoder held);
   * a second load of the same model returns at once. Throws `AbortedError` when cancelled.
   */
  async load(input: TransformersLoadInput, ctx: CallContext): Promise<TransformersInfo> {
    return serial(() => models.load(input, ctx));
  },

  /** Generates an answer; streams {@link TokenProgress}; an abort returns the text so far with `finishReason: 'abort'`. */
  async generate(input: TransformersGenerateInput, ctx: CallContext): Promise<GenerateResult> {
    return serial(async () => {
      const model = await models.generator(input.model, ctx);
      const total = input.request.sampling.maxTokens;
      try {
        return await model.generate(input.request, { ...input.request.sampling, signal: ctx.signal }, (e) => {
          const report: TokenProgress = { phase: 'token', done: e.index + 1, total, detail: { kind: 'tokens', piece: e.text } };
          ctx.progress(report);
        });
      } finally {
        diagnostics.prompts = [...diagnostics.prompts, ...(model.takePrompts?.() ?? [])].slice(-RECENT_PROMPTS);
      }
    });
  },

  /**
   * Several requests at once, greedy ones decoded together (batch-size.ts
   * decides how many per step): each answer is reported as soon as it is
   * finished (typed `results` progress), then all come back in order.
   */
  async generateBatch(input: { readonly requests: readonly GenerateRequest[]; readonly model?: TransformersLoadInput }, ctx: CallContext): Promise<GenerateResult[]> {
    return serial(async () => {
      const model = await models.generator(input.model, ctx);
      const total = input.requests.length;
      let done = 0;
      try {
        return await model.generateBatch(
          input.requests,
          input.requests.map((r) => ({ ...r.sampling, signal: ctx.signal })),
          (index, result) => ctx.progress({ phase: 'result', done: ++done, total, detail: { kind: 'results', results: [{ index, result }] } }),
        );
      } finally {
        diagnostics.prompts = [...diagnostics.prompts, ...(model.takePrompts?.() ?? [])].slice(-RECENT_PROMPTS);
      }
    });
  },

  /** How many requests like this one the loaded model decodes together (measured once per load; 1 for sampled requests). */
  async batchLimit(input: { readonly request: GenerateRequest; readonly model?: TransformersLoadInput }, ctx: CallContext): Promise<number> {
    return serial(async () => {
      const model = await models.generator(input.model, ctx);
      if (!model.drivesCache || input.request.sampling.temperature !== 0) return 1;
      return (await model.batchChoice()).size;
    });
  },

  /** Sentence embeddings, one vector per text; reports `{ phase: 'embed', done, total }` per batch. */
  async embed(input: EmbedInput, ctx: CallContext): Promise<EmbedResult> {
    return serial(async () => {
      const { embedder, modelId } = await models.encoder(input.model, ctx);
      const vectors: Float32Array[] = [];
      for (let start = 0; start < input.texts.length; start += EMBED_BATCH) {
        const part = input.texts.slice(start, start + EMBED_BATCH);
        vectors.push(...(await embedder.sentenceEmbeddings(part, { pooling: input.pooling, normalize: input.normalize, signal: ctx.signal })));
        ctx.progress({ phase: 'embed', done: vectors.length, total: input.texts.length });
      }
      return { modelId, dimensions: embedder.info.dimensions, vectors };
    });
  },

  /** Contextual per-token vectors of one text from one layer, for BERTScore matching. */
  async tokenEmbed(input: TokenEmbedInput, ctx: CallContext): Promise<TokenEmbedResult> {
    return serial(async () => {
      const { embedder, modelId } = await models.encoder(input.model, ctx);
      const { normalize, layer, specialTokens } = input;
      const result = await embedder.tokenEmbeddings(input.text, { signal: ctx.signal, ...(normalize === undefined ? {} : { normalize }), ...(layer === undefined ? {} : { layer }), ...(specialTokens ? { specialTokens } : {}) });
      const { layers, hiddenStates, upstream } = embedder.info;
      return { modelId, ...result, layers, hiddenStates, upstream };
    });
  },

  /** Frees wasm and GPU memory: of `model`'s slot if that model is the one loaded there; without `model`, of every model. */
  async unload(input: { readonly model?: TransformersLoadInput } | undefined): Promise<void> {
    return serial(() => models.unload(input?.model));
  },

  /** The generating model loaded now, or null. */
  async info(): Promise<TransformersInfo | null> {
    return models.info('generator');
  },

  /** The encoder loaded now, or null. */
  async encoderInfo(): Promise<TransformersInfo | null> {
    return models.info('encoder');
  },

  /** GPU buffer memory held by this worker's models (./runtime/gpu-meter.ts); not queued, so it answers during a generate. */
  async gpuMemory(input: GpuMemoryInput | undefined): Promise<GpuMemoryReport> {
    return gpuMemory(input);
  },
};

export type TransformersApi = typeof transformersApi;

exposeApi(transformersApi);
