/**
 * A vision-language model on transformers.js: processor + model loaded with
 * `AutoProcessor` / `AutoModelForImageTextToText` from a self-hosted source,
 * and a measured, abortable, seeded `generate`.
 */
import type { PreTrainedModel, Processor, RawImage, Tensor } from '@huggingface/transformers';
import { imagesThenText, turnImages, type Turn } from '../../chat/turn.ts';
import { InvalidInputError, throwIfAborted } from '../../errors.ts';
import type { GenerateResult } from '../engine.ts';
import { EngineError } from '../errors.ts';
import { GenerationMeter } from './generation-meter.ts';
import { applyModelSource, type TransformersRuntime } from './runtime.ts';
import { runDecodeLoop } from './decode-loop.ts';
import { disposeIfAborted, downloadReporter, loadOrExplain, modelInfo, pretrainedOptions, yieldBeforeEachForward, type ModelInfo, type ModelLoadOptions } from './loading.ts';

/** `cpu`: onnxruntime-node's CPU provider, only with the native Node backend (runtime.ts `nativeNode`, the CLI). */
export type VlmDevice = 'wasm' | 'webgpu' | 'cpu';

/** Load options: the same as every transformers.js model (see loading.ts). */
export type VlmLoadOptions = ModelLoadOptions;

/** An encoded image (PNG, JPEG or WebP bytes). */
export interface VlmImage {
  readonly bytes: Uint8Array;
  /** Default `image/png`. */
  readonly mime?: string;
}

/** A turn of a conversation: text and images in the order the model reads them. */
export type VlmMessage = Turn<VlmImage>;

export interface VlmSampling {
  /** Upper bound on generated tokens (≥ 1). */
  readonly maxTokens: number;
  /** 0 = greedy (the seed is then irrelevant). */
  readonly temperature: number;
  /** Nucleus sampling mass in (0, 1]; 1 = off. Only used when temperature > 0. */
  readonly topP: number;
  /** Seeds transformers.js' sampler (a per-realm global). */
  readonly seed: number;
  readonly signal?: AbortSignal;
}

/** One user turn with images: the shape most benchmark items have. */
export interface VlmGenerateInput extends VlmSampling {
  readonly text: string;
  /** PNG bytes, in the order the model should see them. */
  readonly images: readonly Uint8Array[];
}

export interface TokenEvent {
  /** 0 for the first generated token. */
  readonly index: number;
  readonly tokenId: number;
  /**
   * Text this token completed: the decoded output grew by exactly this much.
   * Often '' (special tokens, half of a multi-byte character). The pieces add
   * up to the final text, except possibly an incomplete last character.
   */
  readonly text: string;
  /** ms since generate was called. */
  readonly elapsedMs: number;
}

/** What a loaded VLM says about itself (the same as every transformers.js model). */
export type VlmInfo = ModelInfo;


interface ChatPart {
  type: 'image' | 'text';
  text?: string;
}
type ModelInputs = Record<string, unknown> & { input_ids: Tensor };

export class TransformersVlm {
  readonly info: VlmInfo;
  readonly #runtime: TransformersRuntime;
  readonly #processor: Processor;
  readonly #model: PreTrainedModel;
  readonly #eosIds: ReadonlySet<number>;
  #disposed = false;
  #lastPrompt: string | null = null;

  private constructor(runtime: TransformersRuntime, processor: Processor, model: PreTrainedModel, info: VlmInfo) {
    this.#runtime = runtime;
    this.#processor = processor;
    this.#model = model;
    this.info = info;
    const ids = [model.generation_config?.eos_token_id, processor.tokenizer?.eos_token_id].flat();
    this.#eosIds = new Set(ids.filter((id): id is number => typeof id === 'number'));
    yieldBeforeEachForward(model);
  }

  /** Loads processor, tokenizer and ONNX sessions. Throws {@link AbortedError} if `signal` fires first. */
  static async load(runtime: TransformersRuntime, options: VlmLoadOptions): Promise<TransformersVlm> {
    const { lib } = runtime;
    const device = options.device ?? 'wasm';
    throwIfAborted(options.signal);
    const { modelId, revision } = applyModelSource(runtime, options.source);
    const loadOptions = pretrainedOptions(runtime, options, revision);
    const { processor, model } = await loadOrExplain(runtime, downloadReporter(options.onProgress), modelId, async () => {
      const processor = await lib.AutoProcessor.from_pretrained(modelId, { revision });
      throwIfAborted(options.signal);
      const model = await lib.AutoModelForImageTextToText.from_pretrained(modelId, loadOptions as never);
      return { processor, model };
    });
    await disposeIfAborted(model, options.signal);
    return new TransformersVlm(runtime, processor, model, modelInfo(runtime, modelId, model.config, model.constructor.name, device));
  }

  /** The text the chat template made of the last request (image tokens where each image stands), for diagnostics. */
  get lastPrompt(): string | null {
    return this.#lastPrompt;
  }

  /** The ONNX sessions, by transformers.js' name for them (for checks; do not run them directly). */
  get sessions(): Readonly<Record<string, unknown>> {
    return this.#model.sessions;
  }

  /** One user turn: images (in order), then the text (the SmolVLM convention). */
  generate(input: VlmGenerateInput, onToken?: (event: TokenEvent) => void): Promise<GenerateResult> {
    const message: VlmMessage = imagesThenText(input.images.map((bytes) => ({ bytes })), input.text);
    return this.generateChat([message], input, onToken);
  }

  /**
   * Generates an answer to a conversation. Never throws for an abort: it
   * returns what was generated with `finishReason: 'abort'`. The text is
   * decoded without special tokens.
   */
  async generateChat(messages: readonly VlmMessage[], sampling: VlmSampling, onToken?: (event: TokenEvent) => void): Promise<GenerateResult> {
    if (this.#disposed) throw new EngineError('ENGINE_NOT_LOADED', 'This model was unloaded; load it again.');
    checkSampling(sampling);
    const { lib } = this.#runtime;
    const meter = new GenerationMeter();
    const signal = sampling.signal;
    const abortResult = (): GenerateResult => ({ text: '', finishReason: 'abort', usage: meter.usage() });
    if (signal?.aborted) return abortResult();

    // In reading order: the processor pairs the n-th image token of the prompt with the n-th image.
    const images = (await Promise.all(messages.flatMap((m) => turnImages(m)).map((img) => decodeImage(this.#runtime, img)))).map((img) => scramble(this.#runtime, img));
    if (signal?.aborted) return abortResult();
    const inputs = await this.#encode(messages, images);
    if (signal?.aborted) return abortResult();

    return runDecodeLoop({ lib, model: this.#model, tokenizer: this.#processor.tokenizer!, inputs, sampling, eosIds: this.#eosIds, meter, ...(onToken ? { onToken } : {}) });
  }

  async #encode(messages: readonly VlmMessage[], images: RawImage[]): Promise<ModelInputs> {
    const { prompt, inputs } = await encodeChat(this.#processor, messages, images);
    this.#lastPrompt = prompt;
    return inputs;
  }

  /** Releases the ONNX sessions (GPU and wasm memory). */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.#model.dispose();
  }
}


/**
 * A deliberately wrong image path, for the known-answer check only: the
 * browser tests switch it on (through the transformers worker's
 * `neuroevalDiagnostics.imageTransform`) to prove that a model which learned
 * the demo falls to chance when its images are scrambled before the
 * processor. Off (null) in every normal use.
 */
export type DiagnosticImageTransform = 'invert' | 'transpose' | null;
let diagnosticTransform: DiagnosticImageTransform = null;

export function setDiagnosticImageTransform(t: DiagnosticImageTransform): void {
  diagnosticTransform = t;
}

function scramble(runtime: TransformersRuntime, img: RawImage): RawImage {
  if (diagnosticTransform === null) return img;
  const { data, width, height, channels } = img;
  const out = new Uint8ClampedArray(data.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < channels; c++) {
        const from = (y * width + x) * channels + c;
        if (diagnosticTransform === 'invert') out[from] = 255 - data[from]!;
        else out[(x * height + y) * channels + c] = data[from]!;
      }
    }
  }
  return diagnosticTransform === 'invert' ? new runtime.lib.RawImage(out, width, height, channels) : new runtime.lib.RawImage(out, height, width, channels);
}

/**
 * What a VLM receives for a conversation: the chat template's text (one
 * image token block per image part, where the part stands) and the
 * processor's tensors. Exported so the demo-trained model is trained on
 * exactly the inputs the app gives it (scripts/demo-trained/).
 */
export async function encodeChat(processor: Processor, messages: readonly VlmMessage[], images: RawImage[]): Promise<{ prompt: string; inputs: ModelInputs }> {
  const chat = messages.map((m) => ({
    role: m.role,
    content: m.parts.map((p): ChatPart => (p.type === 'image' ? { type: 'image' } : { type: 'text', text: p.text })),
  }));
  const prompt = processor.apply_chat_template(chat as never, { add_generation_prompt: true, tokenize: false }) as string;
  // Some processors (Idefics3) fail without images; the tokenizer alone is what they would run then.
  const inputs: unknown = images.length > 0 ? await processor(prompt, images) : processor.tokenizer!(prompt);
  return { prompt, inputs: inputs as ModelInputs };
}

function checkSampling(s: VlmSampling): void {
  if (!Number.isInteger(s.maxTokens) || s.maxTokens < 1) throw new InvalidInputError(`maxTokens must be a whole number ≥ 1, not ${s.maxTokens}.`);
  if (!Number.isFinite(s.temperature) || s.temperature < 0) throw new InvalidInputError(`temperature must be ≥ 0, not ${s.temperature}.`);
  if (!(s.topP > 0 && s.topP <= 1)) throw new InvalidInputError(`topP must be in (0, 1], not ${s.topP}.`);
  if (!Number.isInteger(s.seed) || s.seed < 0) throw new InvalidInputError(`seed must be a whole number ≥ 0, not ${s.seed}.`);
}

/**
 * Decodes image bytes with transformers.js' own loader: createImageBitmap +
 * OffscreenCanvas in browsers and workers (no DOM), sharp in Node.
 */
export async function decodeImage(runtime: TransformersRuntime, image: VlmImage): Promise<RawImage> {
  const blob = new Blob([image.bytes as BlobPart], { type: image.mime ?? 'image/png' });
  try {
    return await runtime.lib.RawImage.fromBlob(blob);
  } catch (error) {
    throw new InvalidInputError(`An image could not be decoded (${image.mime ?? 'image/png'}, ${image.bytes.length} bytes): ${error instanceof Error ? error.message : String(error)}`);
  }
}

