/**
 * The {@link Engine} over transformers.js: what a worker exposes. Loading
 * happens once per engine; `generate` maps chat turns onto the model's chat
 * template. JSON-schema constraints are not enforced (transformers.js has no
 * constrained decoding); the prompt has to ask for JSON.
 */
import type { Engine, EngineInfo, GenerateOptions, GenerateRequest, GenerateResult, LoadOptions } from '../engine.ts';
import { EngineError } from '../errors.ts';
import { loadTransformers, type ModelSource, type RuntimeOptions } from './runtime.ts';
import { TransformersVlm, type VlmDevice } from './vlm.ts';

export interface TransformersEngineOptions {
  readonly runtime: RuntimeOptions;
  readonly source: ModelSource;
  /** Reported in {@link EngineInfo} (the catalogue's model id); defaults to the loaded model's id. */
  readonly modelId?: string;
  readonly device?: VlmDevice;
  readonly dtype?: string | Readonly<Record<string, string>>;
}

export class TransformersEngine implements Engine {
  readonly #options: TransformersEngineOptions;
  #vlm: TransformersVlm | null = null;

  constructor(options: TransformersEngineOptions) {
    this.#options = options;
  }

  async load(options: LoadOptions = {}): Promise<EngineInfo> {
    if (!this.#vlm) {
      const runtime = await loadTransformers(this.#options.runtime);
      this.#vlm = await TransformersVlm.load(runtime, {
        source: this.#options.source,
        ...(this.#options.device ? { device: this.#options.device } : {}),
        ...(this.#options.dtype ? { dtype: this.#options.dtype } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      });
    }
    const info = this.#vlm.info;
    return { runtime: 'transformers', runtimeVersion: info.runtimeVersion, modelId: this.#options.modelId ?? info.modelId, device: info.device };
  }

  async generate(request: GenerateRequest, options: GenerateOptions = {}): Promise<GenerateResult> {
    if (!this.#vlm) throw new EngineError('ENGINE_NOT_LOADED', 'Load the model before generating.');
    const messages = request.messages.map((m) => ({
      role: m.role,
      text: m.text,
      images: (m.images ?? []).map((img) => ({ bytes: img.bytes, mime: img.mime })),
    }));
    const onToken = options.onToken;
    return this.#vlm.generateChat(
      messages,
      { ...request.sampling, ...(options.signal ? { signal: options.signal } : {}) },
      onToken ? (e) => e.text && onToken(e.text) : undefined,
    );
  }

  async unload(): Promise<void> {
    const vlm = this.#vlm;
    this.#vlm = null;
    await vlm?.dispose();
  }
}
