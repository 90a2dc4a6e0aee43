/**
 * The {@link Engine} over transformers.js: what a worker exposes. Loading
 * happens once per engine; `generate` maps chat turns onto the model's chat
 * template. `task` picks the model class: a vision-language model
 * (`image-text-to-text`, the default) or a text-only LLM (`text-generation`,
 * e.g. a judge; requests with images are refused). JSON-schema constraints
 * are not enforced (transformers.js has no constrained decoding); the prompt
 * has to ask for JSON.
 */
import { prefixFits, prefixProbe } from '../../chat/prefix.ts';
import { hasImages, turnText, type Turn } from '../../chat/turn.ts';
import { InvalidInputError } from '../../errors.ts';
import type { BatchOptions, Engine, EngineInfo, GenerateOptions, GenerateRequest, GenerateResult, LoadOptions } from '../engine.ts';
import { EngineError } from '../errors.ts';
import type { BatchChoice } from './batch-size.ts';
import { PREFIX_MARKER, type ProcessorSettings } from './loading.ts';
import { loadTransformers, type ModelSource, type RuntimeOptions } from './runtime.ts';
import { TransformersTextLlm, type TextMessage } from './text-llm.ts';
import { TransformersVlm, type VlmInfo } from './vlm.ts';
import { type TokenEvent, type VlmDevice, type VlmSampling } from './generation.ts';

/** The generating tasks an engine can run (feature extraction is {@link TransformersEmbedder}'s). */
export type GenerationTask = 'image-text-to-text' | 'text-generation';

export interface TransformersEngineOptions {
  readonly runtime: RuntimeOptions;
  readonly source: ModelSource;
  /** Default `image-text-to-text`. */
  readonly task?: GenerationTask;
  /** Reported in {@link EngineInfo} (the catalogue's model id); defaults to the loaded model's id. */
  readonly modelId?: string;
  readonly device?: VlmDevice;
  readonly dtype?: string | Readonly<Record<string, string>>;
  readonly processor?: ProcessorSettings;
  /** See loading.ts `cachedDecoding`; default true. */
  readonly cachedDecoding?: boolean;
  /** Greedy requests decoded together, instead of the size measured here (batch-size.ts). */
  readonly batch?: number;
}

/** What an engine (or the worker) needs of a loaded generating model, whichever class it is. */
export interface LoadedGenerator {
  readonly info: Pick<VlmInfo, 'modelId' | 'device' | 'runtimeVersion'>;
  generate(request: GenerateRequest, sampling: VlmSampling, onToken?: (e: TokenEvent) => void): Promise<GenerateResult>;
  /** Several requests, greedy ones decoded together; `onResult` as each finishes. */
  generateBatch(requests: readonly GenerateRequest[], samplings: readonly VlmSampling[], onResult?: (index: number, result: GenerateResult) => void): Promise<GenerateResult[]>;
  /** Whether greedy requests go through the cached decoder (shared prefixes, batches). */
  readonly drivesCache: boolean;
  /** How many greedy requests are decoded together here, and why (batch-size.ts). */
  batchChoice(): Promise<BatchChoice>;
  dispose(): Promise<void>;
  /** The prompt texts of the requests since the last call, as the runtime received them (VLMs; a batch gives several). */
  takePrompts?(): readonly string[];
}

export class TransformersEngine implements Engine {
  readonly #options: TransformersEngineOptions;
  #model: LoadedGenerator | null = null;

  constructor(options: TransformersEngineOptions) {
    this.#options = options;
  }

  async load(options: LoadOptions = {}): Promise<EngineInfo> {
    if (!this.#model) {
      const runtime = await loadTransformers(this.#options.runtime);
      const loadOptions = {
        source: this.#options.source,
        ...(this.#options.device ? { device: this.#options.device } : {}),
        ...(this.#options.dtype ? { dtype: this.#options.dtype } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(this.#options.processor ? { processor: this.#options.processor } : {}),
        ...(this.#options.cachedDecoding === undefined ? {} : { cachedDecoding: this.#options.cachedDecoding }),
        ...(this.#options.batch === undefined ? {} : { batch: this.#options.batch }),
      };
      const model = this.#options.task === 'text-generation' ? await TransformersTextLlm.load(runtime, loadOptions) : await TransformersVlm.load(runtime, loadOptions);
      this.#model = asGenerator(model);
    }
    const info = this.#model.info;
    return { runtime: 'transformers', runtimeVersion: info.runtimeVersion, modelId: this.#options.modelId ?? info.modelId, device: info.device };
  }

  async generate(request: GenerateRequest, options: GenerateOptions = {}): Promise<GenerateResult> {
    if (!this.#model) throw new EngineError('ENGINE_NOT_LOADED', 'Load the model before generating.');
    const onToken = options.onToken;
    return this.#model.generate(
      request,
      { ...request.sampling, ...(options.signal ? { signal: options.signal } : {}) },
      onToken ? (e) => e.text && onToken(e.text) : undefined,
    );
  }

  async batchLimit(request: GenerateRequest): Promise<number> {
    if (!this.#model?.drivesCache || request.sampling.temperature !== 0) return 1;
    return (await this.#model.batchChoice()).size;
  }

  async generateBatch(requests: readonly GenerateRequest[], options: BatchOptions = {}): Promise<GenerateResult[]> {
    if (!this.#model) throw new EngineError('ENGINE_NOT_LOADED', 'Load the model before generating.');
    const signal = options.signal;
    return this.#model.generateBatch(
      requests,
      requests.map((r) => ({ ...r.sampling, ...(signal ? { signal } : {}) })),
      options.onResult,
    );
  }

  async unload(): Promise<void> {
    const model = this.#model;
    this.#model = null;
    await model?.dispose();
  }
}

/** A request's turns as a text model reads them, with its prefix and that prefix's probe in the same form. */
function textRequest(request: GenerateRequest, modelId: string): { messages: TextMessage[]; prefix?: { prefix: NonNullable<GenerateRequest['prefix']>; probe: TextMessage[] } } {
  if (hasImages(request.messages)) throw new InvalidInputError(`"${modelId}" is a text-only model; it cannot read images.`);
  const asText = (turns: readonly Turn<unknown>[]) => turns.map((m) => ({ role: m.role, text: turnText(m) }));
  const messages = asText(request.messages);
  const prefix = request.prefix && prefixFits(request.messages, request.prefix) ? request.prefix : undefined;
  // turnText joins a turn's parts with newlines, so the probe's marker, a part of its own, follows the shared parts' text as the request's next part does.
  return { messages, ...(prefix ? { prefix: { prefix, probe: asText(prefixProbe(request.messages, prefix, PREFIX_MARKER)) } } : {}) };
}

/** Adapts a VLM or a text LLM to {@link LoadedGenerator}. */
export function asGenerator(model: TransformersVlm | TransformersTextLlm): LoadedGenerator {
  if (model instanceof TransformersTextLlm) {
    return {
      info: model.info,
      drivesCache: model.drivesCache,
      batchChoice: () => model.batchChoice(),
      generate: async (request, sampling, onToken) => {
        const { messages, prefix } = textRequest(request, model.info.modelId);
        return model.generate(messages, sampling, onToken, prefix);
      },
      generateBatch: async (requests, samplings, onResult) =>
        model.generateBatch(
          requests.map((r, i) => {
            const { messages, prefix } = textRequest(r, model.info.modelId);
            return { messages, sampling: samplings[i]!, ...(prefix ? { prefix: prefix.prefix, probe: prefix.probe } : {}) };
          }),
          onResult,
        ),
      dispose: () => model.dispose(),
    };
  }
  return {
    info: model.info,
    drivesCache: model.drivesCache,
    batchChoice: () => model.batchChoice(),
    generate: (request, sampling, onToken) => model.generateChat(request.messages, sampling, onToken, request.prefix),
    generateBatch: (requests, samplings, onResult) =>
      model.generateBatch(
        requests.map((r, i) => ({ messages: r.messages, sampling: samplings[i]!, ...(r.prefix ? { prefix: r.prefix } : {}) })),
        onResult,
      ),
    dispose: () => model.dispose(),
    takePrompts: () => model.takePrompts(),
  };
}
