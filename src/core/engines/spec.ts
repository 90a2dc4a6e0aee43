/**
 * How to reach one model, whatever its runtime: what a run stores so a
 * resume (in any tab) can rebuild its engine, and what the judge and encoder
 * choices of a scoring pass name. A spec never holds a secret: an endpoint's
 * API key stays in the endpoint settings and is looked up by `endpointId`
 * when the engine is built (src/lib/engines/model-host.ts).
 */

/** The transformers.js task of a model: a VLM, a text LLM (judge), or an encoder (similarity). */
export type TransformersTask = 'image-text-to-text' | 'text-generation' | 'feature-extraction';

export interface ModelFileRef {
  readonly name: string;
  readonly sha256: string;
}

interface SpecBase {
  /** The model's id in the run (part of every item key) or in the models table. */
  readonly id: string;
  /** What the user calls it. */
  readonly label: string;
}

export interface TransformersSpec extends SpecBase {
  readonly kind: 'transformers';
  /** Absolute URL of the model folder, ending in `/` (the app's own `models/<id>/`; a `file:` URL for a CLI run). */
  readonly location: string;
  /** `cpu` is onnxruntime-node, which only `neuroeval run` uses (a browser cannot resume such a run). */
  readonly device: 'webgpu' | 'wasm' | 'cpu';
  /** Default `image-text-to-text`. */
  readonly task?: TransformersTask;
  /** `fp32`, `q4f16`, … or one per session. Default: the model's config. */
  readonly dtype?: string | Readonly<Record<string, string>>;
  /** The files loaded, with their hashes (the identity of the weights). */
  readonly files: readonly ModelFileRef[];
  /**
   * VLMs: what the user changed of the processor's own settings (e.g. no
   * image splitting); absent: the model's preprocessor_config.json as it is.
   */
  readonly processor?: { readonly imageSplitting?: boolean };
  /**
   * How the engine runs, to compare with the engine as it was (the
   * throughput bench's baseline): runs made in the app never set it.
   * `cachedDecoding: false` sends every request through transformers.js'
   * `generate`; `wasmThreads: 'runtime-default'` leaves onnxruntime-web its own
   * thread count; `batch` fixes the requests decoded together.
   */
  readonly engine?: { readonly cachedDecoding?: boolean; readonly wasmThreads?: number | 'runtime-default'; readonly batch?: number };
}

export interface WebLlmSpec extends SpecBase {
  readonly kind: 'webllm';
  /** A catalogue id, or a WebLLM prebuilt model id. */
  readonly entryId: string;
  /** Absolute base URL of the weights (an on-prem mirror, or the app's own imported-model folder). */
  readonly weightsBaseUrl?: string;
  /** Absolute URL of the model library (.wasm). */
  readonly modelLibUrl?: string;
  readonly contextWindow?: number;
  /** Whether the model reads images (a VLM under test) or only text (a judge). */
  readonly task: 'image-text-to-text' | 'text-generation';
  readonly files: readonly ModelFileRef[];
}

export interface OpenAiSpec extends SpecBase {
  readonly kind: 'openai';
  /** The endpoint's id in the endpoint settings, where its API key (if any) is kept. */
  readonly endpointId: string;
  readonly baseUrl: string;
  readonly model: string;
  readonly concurrency: number;
}

export type EngineSpec = TransformersSpec | WebLlmSpec | OpenAiSpec;

/** The runtime name an engine of this spec reports (`EngineInfo.runtime`). */
export function runtimeOfSpec(spec: EngineSpec): 'transformers' | 'webllm' | 'openai-compatible' {
  return spec.kind === 'openai' ? 'openai-compatible' : spec.kind;
}

/** The files that identify the weights; none for an endpoint (its weights are not ours to hash). */
export function specFiles(spec: EngineSpec): readonly ModelFileRef[] {
  return spec.kind === 'openai' ? [] : spec.files;
}

/**
 * A stable identity for what a spec loads (not its display label), used to
 * decide whether two requests need the same resident model.
 */
export function residencyKey(spec: EngineSpec): string {
  switch (spec.kind) {
    case 'transformers':
      return JSON.stringify(['transformers', spec.location, spec.device, spec.task ?? 'image-text-to-text', spec.dtype ?? null, spec.processor ?? null, spec.engine ?? null]);
    case 'webllm':
      return JSON.stringify(['webllm', spec.entryId, spec.weightsBaseUrl ?? null, spec.modelLibUrl ?? null, spec.contextWindow ?? null]);
    case 'openai':
      return JSON.stringify(['openai', spec.baseUrl, spec.model]);
  }
}
