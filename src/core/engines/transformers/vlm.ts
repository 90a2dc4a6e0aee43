/**
 * A vision-language model on transformers.js: processor + model loaded with
 * `AutoProcessor` / `AutoModelForImageTextToText` from a self-hosted source,
 * and a measured, abortable, seeded `generate`.
 */
import type { PreTrainedModel, Processor, RawImage, Tensor } from '@huggingface/transformers';
import { prefixFits, prefixProbe, type PromptPrefix } from '../../chat/prefix.ts';
import { imagesThenText, turnImages, type Turn } from '../../chat/turn.ts';
import { InvalidInputError, throwIfAborted } from '../../errors.ts';
import type { GenerateResult } from '../engine.ts';
import { EngineError } from '../errors.ts';
import type { BatchChoice } from './batch-size.ts';
import { CachedDecoder, canDrive, refuseUndriven, type EncodedPrompt, type RowRequest } from './cached-generation.ts';
import { GenerationMeter } from './generation-meter.ts';
import type { TokenEvent, VlmSampling } from './generation.ts';
import { applyModelSource, type TransformersRuntime } from './runtime.ts';
import { runDecodeLoop } from './decode-loop.ts';
import { PREFIX_MARKER, disposeIfAborted, downloadReporter, loadOrExplain, modelInfo, pretrainedOptions, withNewKvOutputs, yieldBeforeEachForward, type ModelInfo, type ModelLoadOptions, type ProcessorSettings } from './loading.ts';

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

/** One user turn with images: the shape most benchmark items have. */
export interface VlmGenerateInput extends VlmSampling {
  readonly text: string;
  /** PNG bytes, in the order the model should see them. */
  readonly images: readonly Uint8Array[];
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
  readonly #settings: ProcessorSettings;
  /** Greedy requests go through it (shared prefixes kept, batches); null where the architecture is not one it drives. */
  readonly #decoder: CachedDecoder | null;
  #disposed = false;
  /** Prompt texts made since the diagnostics last took them (a batch makes several). */
  #prompts: string[] = [];

  private constructor(runtime: TransformersRuntime, processor: Processor, model: PreTrainedModel, info: VlmInfo, settings: ProcessorSettings, cached: boolean, batch: number | undefined) {
    this.#runtime = runtime;
    this.#processor = processor;
    this.#model = model;
    this.info = info;
    this.#settings = settings;
    const ids = [model.generation_config?.eos_token_id, processor.tokenizer?.eos_token_id].flat();
    this.#eosIds = new Set(ids.filter((id): id is number => typeof id === 'number'));
    yieldBeforeEachForward(model);
    const config = model.config as unknown as { image_token_id?: number; image_token_index?: number };
    const imageTokenId = config.image_token_id ?? config.image_token_index;
    this.#decoder =
      cached && canDrive(model) && typeof imageTokenId === 'number'
        ? new CachedDecoder({
            lib: runtime.lib,
            model,
            tokenizer: processor.tokenizer!,
            imageTokenId,
            prefixImages: splitsByTile(processor),
            publishedDecoder: runtime.edits.splitOriginal(model),
            ...(batch === undefined ? {} : { batch }),
          })
        : null;
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
      const model = await withNewKvOutputs(runtime, options, modelId, revision, (read) => lib.AutoModelForImageTextToText.from_pretrained(modelId, { ...loadOptions, ...read } as never));
      return { processor, model };
    });
    await disposeIfAborted(model, options.signal);
    const vlm = new TransformersVlm(runtime, processor, model, modelInfo(runtime, modelId, model.config, model.constructor.name, device, model.sessions), options.processor ?? {}, options.cachedDecoding !== false, options.batch);
    await refuseUndriven(model, vlm.#decoder, modelId);
    return vlm;
  }

  /** Whether greedy requests keep a shared prefix and decode in batches here (the architecture allows it). */
  get drivesCache(): boolean {
    return this.#decoder !== null;
  }

  /** Whether that cache is held in the engine's own arrays and grown in place (the decoder file was edited for it: decoder-graph.ts). */
  get growsCacheInPlace(): boolean {
    return this.#decoder?.growsCacheInPlace ?? false;
  }

  /** Positions of the kept prefix a second decoder session holds itself (held-prefix.ts; 0: none). */
  get heldPrefixTokens(): number {
    return this.#decoder?.heldPrefixTokens ?? 0;
  }

  /** Whether sampled requests are decoded by the cached decoder too (only it can run the edited decoder file: decoder-graph.ts). */
  get runsEveryRequest(): boolean {
    return this.#decoder?.runsEveryRequest ?? false;
  }

  /** The texts the chat template made of the requests since the last call (image tokens where each image stands), for diagnostics. */
  takePrompts(): string[] {
    const taken = this.#prompts;
    this.#prompts = [];
    return taken;
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
  async generateChat(messages: readonly VlmMessage[], sampling: VlmSampling, onToken?: (event: TokenEvent) => void, prefix?: PromptPrefix): Promise<GenerateResult> {
    if (this.#disposed) throw new EngineError('ENGINE_NOT_LOADED', 'This model was unloaded; load it again.');
    checkSampling(sampling);
    if (this.#decoder?.takes(sampling)) {
      const [result] = await this.generateBatch([{ messages, sampling, ...(onToken ? { onToken } : {}), ...(prefix ? { prefix } : {}) }]);
      return result!;
    }
    const { lib } = this.#runtime;
    const meter = new GenerationMeter();
    const signal = sampling.signal;
    const abortResult = (): GenerateResult => ({ text: '', finishReason: 'abort', usage: meter.usage() });
    if (signal?.aborted) return abortResult();

    const images = await this.#images(messages);
    if (signal?.aborted) return abortResult();
    const { inputs } = await this.#encode(messages, images);
    if (signal?.aborted) return abortResult();

    return runDecodeLoop({ lib, model: this.#model, tokenizer: this.#processor.tokenizer!, inputs, sampling, eosIds: this.#eosIds, meter, ...(onToken ? { onToken } : {}) });
  }

  /**
   * Greedy answers to several conversations, decoded together (the
   * architecture permitting; else one by one through {@link generateChat}),
   * each with its shared prefix kept (cached-generation.ts). `onResult` gets
   * each answer as soon as it is finished.
   */
  async generateBatch(
    requests: readonly { readonly messages: readonly VlmMessage[]; readonly sampling: VlmSampling; readonly prefix?: PromptPrefix; readonly onToken?: (event: TokenEvent) => void }[],
    onResult?: (index: number, result: GenerateResult) => void,
  ): Promise<GenerateResult[]> {
    if (this.#disposed) throw new EngineError('ENGINE_NOT_LOADED', 'This model was unloaded; load it again.');
    const decoder = this.#decoder;
    if (!decoder || !requests.every((r) => decoder.takes(r.sampling))) {
      const out: GenerateResult[] = [];
      for (const [i, r] of requests.entries()) {
        if (decoder?.takes(r.sampling)) out.push((await this.generateBatch([r]))[0]!);
        else out.push(await this.generateChat(r.messages, r.sampling, r.onToken, r.prefix));
        onResult?.(i, out[i]!);
      }
      return out;
    }
    const rows: RowRequest[] = requests.map((r) => {
      checkSampling(r.sampling);
      const prefix = r.prefix && prefixFits(r.messages, r.prefix) ? r.prefix : undefined;
      return {
        encode: () => this.#encodePrompt(r.messages),
        sampling: r.sampling,
        ...(r.onToken ? { onToken: r.onToken } : {}),
        ...(prefix ? { prefix, probe: () => this.#encodePrompt(prefixProbe(r.messages, prefix, PREFIX_MARKER), false) } : {}),
      };
    });
    return decoder.generate(rows, onResult);
  }

  /** The conversation's images, decoded, in reading order (the processor pairs the n-th image token with the n-th image). */
  async #images(messages: readonly VlmMessage[]): Promise<RawImage[]> {
    return (await Promise.all(messages.flatMap((m) => turnImages(m)).map((img) => decodeImage(this.#runtime, img)))).map((img) => scramble(this.#runtime, img));
  }

  async #encode(messages: readonly VlmMessage[], images: RawImage[], remember = true): Promise<{ inputs: ModelInputs }> {
    const { prompt, inputs } = await encodeChat(this.#processor, messages, images, this.#settings);
    // Bounded: nothing may read them for a long run.
    if (remember) this.#prompts = [...this.#prompts.slice(-31), prompt];
    return { inputs };
  }

  /** The conversation tokenised for the cached decoder, with its images' tiles and a way to take their vision inputs apart. */
  async #encodePrompt(messages: readonly VlmMessage[], remember = true): Promise<EncodedPrompt> {
    const images = await this.#images(messages);
    const { inputs } = await this.#encode(messages, images, remember);
    return encodedPrompt(inputs, images.length, (this.#processor as unknown as { config?: { image_seq_len?: number } }).config?.image_seq_len ?? null, this.#imageTokenId());
  }

  #imageTokenId(): number | null {
    const config = this.#model.config as unknown as { image_token_id?: number; image_token_index?: number };
    return config.image_token_id ?? config.image_token_index ?? null;
  }

  /** How many greedy requests are decoded together here (1 where the cached decoder does not run this model). */
  batchChoice(): Promise<BatchChoice> {
    return this.#decoder ? this.#decoder.batchChoice() : Promise.resolve({ size: 1, reason: 'this architecture is decoded by transformers.js\' generate, one request at a time' });
  }

  /** Frees the kept shared prefix (the next request with one computes it again). */
  forgetPrefix(): void {
    this.#decoder?.dispose();
  }

  /** Releases the ONNX sessions (GPU and wasm memory). */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#decoder?.dispose();
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
export async function encodeChat(processor: Processor, messages: readonly VlmMessage[], images: RawImage[], settings: ProcessorSettings = {}): Promise<{ prompt: string; inputs: ModelInputs }> {
  const chat = messages.map((m) => ({
    role: m.role,
    content: m.parts.map((p): ChatPart => (p.type === 'image' ? { type: 'image' } : { type: 'text', text: p.text })),
  }));
  const prompt = processor.apply_chat_template(chat as never, { add_generation_prompt: true, tokenize: false }) as string;
  // Some processors (Idefics3) fail without images; the tokenizer alone is what they would run then.
  // Only what the user changed goes to the processor: its own config decides the rest.
  const options = settings.imageSplitting === undefined ? {} : { do_image_splitting: settings.imageSplitting };
  const inputs: unknown = images.length > 0 ? await (processor as unknown as (t: string, i: RawImage[], o: object) => Promise<unknown>)(prompt, images, options) : processor.tokenizer!(prompt);
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


/** Whether the processor's vision inputs come as tiles per image along their second axis, with `rows`/`cols` per image (Idefics3, SmolVLM). */
function splitsByTile(processor: Processor): boolean {
  const name = (processor as unknown as { constructor: { name: string } }).constructor.name;
  return name === 'Idefics3Processor' || name === 'SmolVLMProcessor';
}

const VISION_KEYS_SKIPPED = new Set(['input_ids', 'attention_mask', 'rows', 'cols', 'token_type_ids']);

/**
 * A processor's output as the cached decoder reads it: the token ids, each
 * image's tiles and tokens (Idefics3 / SmolVLM: rows × cols tiles plus the
 * whole image, `image_seq_len` tokens each; others: the image tokens shared
 * out evenly, tiles unknown), and the vision inputs of a range of images
 * (tile-split processors: their tiles along the second axis; others: all of
 * them or nothing).
 */
export function encodedPrompt(inputs: ModelInputs, imageCount: number, imageSeqLen: number | null, imageTokenId: number | null): EncodedPrompt {
  const ids = Array.from(inputs.input_ids.data as BigInt64Array, Number);
  const rows = (inputs as { rows?: number[][] }).rows?.[0];
  const cols = (inputs as { cols?: number[][] }).cols?.[0];
  const tiled = imageSeqLen !== null && rows !== undefined && cols !== undefined && rows.length === imageCount;
  const tilesOf = (i: number) => (rows![i]! * cols![i]! > 0 ? rows![i]! * cols![i]! + 1 : 1);
  const imageTokens = imageTokenId === null ? 0 : ids.filter((id) => id === imageTokenId).length;
  const images = Array.from({ length: imageCount }, (_, i) =>
    tiled ? { tiles: tilesOf(i), tokens: tilesOf(i) * imageSeqLen } : { tiles: null, tokens: imageCount > 0 ? imageTokens / imageCount : 0 },
  );
  const vision = Object.fromEntries(Object.entries(inputs).filter(([k, v]) => !VISION_KEYS_SKIPPED.has(k) && typeof (v as Tensor | null)?.dims === 'object')) as Record<string, Tensor>;
  return {
    ids,
    images,
    vision(from, to) {
      if (to <= from || Object.keys(vision).length === 0) return null;
      if (from === 0 && to === imageCount) return vision;
      if (!tiled) return null;
      const start = images.slice(0, from).reduce((n, im) => n + im.tiles!, 0);
      const end = start + images.slice(from, to).reduce((n, im) => n + im.tiles!, 0);
      return Object.fromEntries(Object.entries(vision).map(([k, t]) => [k, t.slice(null, [start, end])]));
    },
  };
}
