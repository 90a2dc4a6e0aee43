/**
 * A text-only LLM on transformers.js (e.g. a judge): tokenizer + model
 * loaded with `AutoTokenizer` / `AutoModelForCausalLM` from a self-hosted
 * source, prompts built with the tokenizer's chat template, and the same
 * measured, abortable, seeded generation as {@link TransformersVlm}.
 */
import type { PreTrainedModel, PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import type { PromptPrefix } from '../../chat/prefix.ts';
import { InvalidInputError, throwIfAborted } from '../../errors.ts';
import type { GenerateResult } from '../engine.ts';
import { EngineError } from '../errors.ts';
import type { BatchChoice } from './batch-size.ts';
import { CachedDecoder, canDrive, refuseUndriven, type EncodedPrompt, type RowRequest } from './cached-generation.ts';
import { GenerationMeter } from './generation-meter.ts';
import { disposeIfAborted, downloadReporter, loadOrExplain, modelInfo, pretrainedOptions, withNewKvOutputs, yieldBeforeEachForward, type ModelInfo, type ModelLoadOptions } from './loading.ts';
import { applyModelSource, type TransformersRuntime } from './runtime.ts';
import { runDecodeLoop } from './decode-loop.ts';
import type { TokenEvent, VlmSampling } from './generation.ts';

export type TextLlmLoadOptions = ModelLoadOptions;
export type TextLlmInfo = ModelInfo;
export type TextSampling = VlmSampling;

export interface TextMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly text: string;
}

/** A conversation with, optionally, the prefix it shares with others and that prefix's probe (chat/prefix.ts) in text form. */
export interface TextRequest {
  readonly messages: readonly TextMessage[];
  readonly sampling: TextSampling;
  readonly prefix?: PromptPrefix;
  /** The shared turns followed by the marker text, as the same chat template reads them. */
  readonly probe?: readonly TextMessage[];
  readonly onToken?: (event: TokenEvent) => void;
}

export class TransformersTextLlm {
  readonly info: TextLlmInfo;
  readonly #runtime: TransformersRuntime;
  readonly #tokenizer: PreTrainedTokenizer;
  readonly #model: PreTrainedModel;
  readonly #eosIds: ReadonlySet<number>;
  /** Greedy requests go through it (shared prefixes kept, batches); null where the architecture is not one it drives. */
  readonly #decoder: CachedDecoder | null;
  #disposed = false;

  private constructor(runtime: TransformersRuntime, tokenizer: PreTrainedTokenizer, model: PreTrainedModel, info: TextLlmInfo, cached: boolean, batch: number | undefined) {
    this.#runtime = runtime;
    this.#tokenizer = tokenizer;
    this.#model = model;
    this.info = info;
    const ids = [model.generation_config?.eos_token_id, tokenizer.eos_token_id].flat();
    this.#eosIds = new Set(ids.filter((id): id is number => typeof id === 'number'));
    yieldBeforeEachForward(model);
    this.#decoder = cached && canDrive(model) ? new CachedDecoder({ lib: runtime.lib, model, tokenizer, imageTokenId: null, prefixImages: false, publishedDecoder: runtime.edits.splitOriginal(model), ...(batch === undefined ? {} : { batch }) }) : null;
  }

  /** Whether greedy requests keep a shared prefix and decode in batches here (the architecture allows it). */
  get drivesCache(): boolean {
    return this.#decoder !== null;
  }

  /** Whether that cache is held in the engine's own arrays and grown in place (the decoder file was edited for it: decoder-graph.ts). */
  get growsCacheInPlace(): boolean {
    return this.#decoder?.growsCacheInPlace ?? false;
  }

  /**
   * Loads tokenizer and ONNX session(s). Throws {@link AbortedError} if `signal`
   * fires first, `ENGINE_MODEL_MISSING` if the files cannot be loaded and
   * `ENGINE_UNSUPPORTED` for a tokenizer without a chat template.
   */
  static async load(runtime: TransformersRuntime, options: TextLlmLoadOptions): Promise<TransformersTextLlm> {
    const { lib } = runtime;
    throwIfAborted(options.signal);
    const { modelId, revision } = applyModelSource(runtime, options.source);
    const pretrained = pretrainedOptions(runtime, options, revision);
    const downloads = downloadReporter(options.onProgress);
    const tokenizer = await loadOrExplain(runtime, downloads, modelId, () => lib.AutoTokenizer.from_pretrained(modelId, pretrained));
    if (!tokenizer.chat_template) {
      throw new EngineError('ENGINE_UNSUPPORTED', `Model "${modelId}" has no chat template; a text judge needs an instruction-tuned (chat) model.`);
    }
    throwIfAborted(options.signal);
    const model = await loadOrExplain(runtime, downloads, modelId, () => withNewKvOutputs(runtime, options, modelId, revision, (read) => lib.AutoModelForCausalLM.from_pretrained(modelId, { ...pretrained, ...read } as never)));
    await disposeIfAborted(model, options.signal);
    const llm = new TransformersTextLlm(runtime, tokenizer, model, modelInfo(runtime, modelId, model.config, model.constructor.name, options.device ?? 'wasm', model.sessions), options.cachedDecoding !== false, options.batch);
    await refuseUndriven(model, llm.#decoder, modelId);
    return llm;
  }

  /** The ONNX sessions, by transformers.js' name for them (for checks; do not run them directly). */
  get sessions(): Readonly<Record<string, unknown>> {
    return this.#model.sessions;
  }

  /**
   * Generates the assistant's answer to a conversation. Never throws for an
   * abort: it returns what was generated with `finishReason: 'abort'`. The
   * text is decoded without special tokens.
   */
  async generate(messages: readonly TextMessage[], sampling: TextSampling, onToken?: (event: TokenEvent) => void, prefix?: { readonly prefix: PromptPrefix; readonly probe: readonly TextMessage[] }): Promise<GenerateResult> {
    if (this.#disposed) throw new EngineError('ENGINE_NOT_LOADED', 'This model was unloaded; load it again.');
    checkSampling(sampling);
    if (messages.length === 0) throw new InvalidInputError('A conversation needs at least one message.');
    if (this.#decoder?.takes(sampling)) {
      const [result] = await this.generateBatch([{ messages, sampling, ...(onToken ? { onToken } : {}), ...(prefix ? prefix : {}) }]);
      return result!;
    }
    const { lib } = this.#runtime;
    const meter = new GenerationMeter();
    const signal = sampling.signal;
    if (signal?.aborted) return { text: '', finishReason: 'abort', usage: meter.usage() };

    const inputs = this.#encode(messages);
    return runDecodeLoop({ lib, model: this.#model, tokenizer: this.#tokenizer, inputs, sampling, eosIds: this.#eosIds, meter, ...(onToken ? { onToken } : {}) });
  }

  /**
   * Greedy answers to several conversations, decoded together where the
   * architecture allows (else one by one), each with its shared prefix kept
   * (cached-generation.ts); `onResult` gets each as soon as it is finished.
   */
  async generateBatch(requests: readonly TextRequest[], onResult?: (index: number, result: GenerateResult) => void): Promise<GenerateResult[]> {
    if (this.#disposed) throw new EngineError('ENGINE_NOT_LOADED', 'This model was unloaded; load it again.');
    const decoder = this.#decoder;
    if (!decoder || !requests.every((r) => decoder.takes(r.sampling))) {
      const out: GenerateResult[] = [];
      for (const [i, r] of requests.entries()) {
        out.push(await (decoder?.takes(r.sampling) ? this.generateBatch([r]).then((x) => x[0]!) : this.generate(r.messages, r.sampling, r.onToken)));
        onResult?.(i, out[i]!);
      }
      return out;
    }
    const rows: RowRequest[] = requests.map((r) => {
      checkSampling(r.sampling);
      if (r.messages.length === 0) throw new InvalidInputError('A conversation needs at least one message.');
      const probe = r.probe;
      return {
        encode: async () => this.#encodePrompt(r.messages),
        sampling: r.sampling,
        ...(r.onToken ? { onToken: r.onToken } : {}),
        ...(r.prefix && probe ? { prefix: r.prefix, probe: async () => this.#encodePrompt(probe, false) } : {}),
      };
    });
    return decoder.generate(rows, onResult);
  }

  /** How many greedy requests are decoded together here (1 where the cached decoder does not run this model). */
  batchChoice(): Promise<BatchChoice> {
    return this.#decoder ? this.#decoder.batchChoice() : Promise.resolve({ size: 1, reason: 'this architecture is decoded by transformers.js\' generate, one request at a time' });
  }

  /** Frees the kept shared prefix (the next request with one computes it again). */
  forgetPrefix(): void {
    this.#decoder?.dispose();
  }

  #encodePrompt(messages: readonly TextMessage[], generationPrompt = true): EncodedPrompt {
    const { input_ids } = this.#encode(messages, generationPrompt);
    return { ids: Array.from(input_ids.data as BigInt64Array, Number), images: [], vision: () => null };
  }

  /** The prompt through the tokenizer's chat template, with the assistant's turn opened. */
  #encode(messages: readonly TextMessage[], generationPrompt = true): { input_ids: Tensor; attention_mask: Tensor } {
    const chat = messages.map((m) => ({ role: m.role, content: m.text }));
    try {
      return this.#tokenizer.apply_chat_template(chat, { add_generation_prompt: generationPrompt, tokenize: true, return_dict: true, return_tensor: true }) as {
        input_ids: Tensor;
        attention_mask: Tensor;
      };
    } catch (error) {
      // Some templates refuse role orders (e.g. a system turn, or two user turns in a row).
      throw new InvalidInputError(`The model's chat template rejected this conversation: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Releases the ONNX sessions (GPU and wasm memory). */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#decoder?.dispose();
    await this.#model.dispose();
  }
}

function checkSampling(s: TextSampling): void {
  if (!Number.isInteger(s.maxTokens) || s.maxTokens < 1) throw new InvalidInputError(`maxTokens must be a whole number ≥ 1, not ${s.maxTokens}.`);
  if (!Number.isFinite(s.temperature) || s.temperature < 0) throw new InvalidInputError(`temperature must be ≥ 0, not ${s.temperature}.`);
  if (!(s.topP > 0 && s.topP <= 1)) throw new InvalidInputError(`topP must be in (0, 1], not ${s.topP}.`);
  if (!Number.isInteger(s.seed) || s.seed < 0) throw new InvalidInputError(`seed must be a whole number ≥ 0, not ${s.seed}.`);
}
