/**
 * The {@link Engine} over transformers.js: what a worker exposes. Loading
 * happens once per engine; `generate` maps chat turns onto the model's chat
 * template. `task` picks the model class: a vision-language model
 * (`image-text-to-text`, the default) or a text-only LLM (`text-generation`,
 * e.g. a judge; requests with images are refused). JSON-schema constraints
 * are not enforced (transformers.js has no constrained decoding); the prompt
 * has to ask for JSON.
 */
import { hasImages, turnText } from '../../chat/turn.ts';
import { InvalidInputError } from '../../errors.ts';
import type { Engine, EngineInfo, GenerateOptions, GenerateRequest, GenerateResult, LoadOptions } from '../engine.ts';
import { EngineError } from '../errors.ts';
import { loadTransformers, type ModelSource, type RuntimeOptions } from './runtime.ts';
import { TransformersTextLlm } from './text-llm.ts';
import { TransformersVlm, type TokenEvent, type VlmDevice, type VlmInfo, type VlmSampling } from './vlm.ts';

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
}

/** What an engine (or the worker) needs of a loaded generating model, whichever class it is. */
export interface LoadedGenerator {
  readonly info: Pick<VlmInfo, 'modelId' | 'device' | 'runtimeVersion'>;
  generate(request: GenerateRequest, sampling: VlmSampling, onToken?: (e: TokenEvent) => void): Promise<GenerateResult>;
  dispose(): Promise<void>;
  /** The prompt text of the last request, as the runtime received it (VLMs). */
  lastPrompt?(): string | null;
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

  async unload(): Promise<void> {
    const model = this.#model;
    this.#model = null;
    await model?.dispose();
  }
}

/** Adapts a VLM or a text LLM to {@link LoadedGenerator}. */
export function asGenerator(model: TransformersVlm | TransformersTextLlm): LoadedGenerator {
  if (model instanceof TransformersTextLlm) {
    return {
      info: model.info,
      generate: async (request, sampling, onToken) => {
        if (hasImages(request.messages)) {
          throw new InvalidInputError(`"${model.info.modelId}" is a text-only model; it cannot read images.`);
        }
        return model.generate(request.messages.map((m) => ({ role: m.role, text: turnText(m) })), sampling, onToken);
      },
      dispose: () => model.dispose(),
    };
  }
  return {
    info: model.info,
    generate: (request, sampling, onToken) =>
      model.generateChat(request.messages, sampling, onToken),
    dispose: () => model.dispose(),
    lastPrompt: () => model.lastPrompt,
  };
}
