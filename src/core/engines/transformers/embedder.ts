/**
 * A text encoder on transformers.js for similarity scoring: tokenizer +
 * model loaded with `AutoTokenizer` / `AutoModel` (BERT, MiniLM, … feature
 * extraction exports) from a self-hosted source.
 *
 * - `sentenceEmbeddings`: one vector per text, mean- or CLS-pooled over the
 *   last hidden state, optionally L2-normalised (cosine = dot product).
 * - `tokenEmbeddings`: the contextual vector of every token of one text, for
 *   BERTScore's greedy matching: special tokens left out, or kept with
 *   [CLS]/[SEP] marked (bert_score matches against them at weight 0); from
 *   the last layer, or from an earlier one where the ONNX graph outputs it
 *   (`hidden_states.<n>`: transformers.js has no `output_hidden_states` for
 *   ONNX encoders, so only what the export lists can be read).
 *
 * Texts longer than the model's limit are truncated (`truncated` says so for
 * token embeddings). Long lists run in batches, with a macrotask turn between
 * them so an abort sent to a worker gets in; an abort throws {@link AbortedError}.
 */
import type { PreTrainedModel, PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import { InvalidInputError, throwIfAborted } from '../../errors.ts';
import { EngineError } from '../errors.ts';
import { disposeIfAborted, downloadReporter, loadOrExplain, modelInfo, nextMacrotask, pretrainedOptions, type ModelInfo, type ModelLoadOptions } from './loading.ts';
import { applyModelSource, type TransformersLib, type TransformersRuntime } from './runtime.ts';

export type EmbedderLoadOptions = ModelLoadOptions;

export interface EmbedderInfo extends ModelInfo {
  /** Length of every vector. */
  readonly dimensions: number;
  /** Longest input in tokens, special tokens included; longer texts are truncated. */
  readonly maxTokens: number;
  /** Transformer layers (`num_hidden_layers`), or null when config.json does not say. */
  readonly layers: number | null;
  /** Layers whose output the graph lists as `hidden_states.<n>` (0 = embeddings), ascending. */
  readonly hiddenStates: readonly number[];
  /** The model the weights come from: config.json's `_name_or_path` when it names a hub model, else null. */
  readonly upstream: string | null;
}

export type Pooling = 'mean' | 'cls';

export interface SentenceEmbeddingOptions {
  /** `mean` (over the tokens, special ones included, as sentence-transformers does) or `cls` (the first token). */
  readonly pooling: Pooling;
  /** Scale each vector to length 1. */
  readonly normalize: boolean;
  /** Texts per model call. Default 16. */
  readonly batchSize?: number;
  readonly signal?: AbortSignal;
}

export interface TokenEmbeddingOptions {
  /** Scale each vector to length 1 (what BERTScore's cosine matching needs). Default true. */
  readonly normalize?: boolean;
  /** The layer to read (0 = embeddings): the last, or one in {@link EmbedderInfo.hiddenStates}. Default the last. */
  readonly layer?: number;
  /** `drop` (default) leaves every special token out; `keep` keeps all tokens, [CLS]/[SEP] marked in `special`. */
  readonly specialTokens?: 'drop' | 'keep';
  readonly signal?: AbortSignal;
}

export interface TokenEmbeddings {
  /** The tokenizer's tokens (e.g. `brain`, `##s`), special tokens excluded unless kept. */
  readonly tokens: string[];
  /** One contextual vector per token, in the same order. */
  readonly vectors: Float32Array[];
  /** Per token: it is the tokenizer's [CLS] or [SEP] (`<s>`, `</s>`), the tokens bert_score weighs 0. */
  readonly special: boolean[];
  /** The layer the vectors come from; null for the last layer of an encoder whose depth is unknown. */
  readonly layer: number | null;
  /** The text was longer than {@link EmbedderInfo.maxTokens}; only its start was encoded. */
  readonly truncated: boolean;
}

interface Encoded {
  readonly input_ids: Tensor;
  readonly attention_mask: Tensor;
  readonly token_type_ids: Tensor;
  /** Per text: it was cut to fit. */
  readonly truncated: readonly boolean[];
}

const DEFAULT_BATCH = 16;

export class TransformersEmbedder {
  readonly info: EmbedderInfo;
  readonly #lib: TransformersLib;
  readonly #tokenizer: PreTrainedTokenizer;
  readonly #model: PreTrainedModel;
  readonly #specialIds: ReadonlySet<number>;
  /** [CLS] and [SEP] (or `<s>`, `</s>`): what bert_score zeroes in its weights. */
  readonly #clsSepIds: ReadonlySet<number>;
  #tokensById: string[] | null = null;
  #disposed = false;

  private constructor(lib: TransformersLib, tokenizer: PreTrainedTokenizer, model: PreTrainedModel, info: EmbedderInfo) {
    this.#lib = lib;
    this.#tokenizer = tokenizer;
    this.#model = model;
    this.info = info;
    this.#specialIds = new Set(tokenizer.all_special_ids);
    const vocab = tokenizer.get_vocab() as Map<string, number>;
    const config = tokenizer.config as Record<string, unknown>;
    this.#clsSepIds = new Set([configToken(config.cls_token), configToken(config.sep_token)].flatMap((t) => (t !== null && vocab.has(t) ? [vocab.get(t)!] : [])));
  }

  /** Loads tokenizer and encoder. Throws {@link AbortedError} if `signal` fires first, `ENGINE_MODEL_MISSING` if the files cannot be loaded. */
  static async load(runtime: TransformersRuntime, options: EmbedderLoadOptions): Promise<TransformersEmbedder> {
    const { lib } = runtime;
    throwIfAborted(options.signal);
    const { modelId, revision } = applyModelSource(runtime, options.source);
    const pretrained = pretrainedOptions(runtime, options, revision);
    const downloads = downloadReporter(options.onProgress);
    const tokenizer = await loadOrExplain(runtime, downloads, modelId, () => lib.AutoTokenizer.from_pretrained(modelId, pretrained));
    throwIfAborted(options.signal);
    const model = await loadOrExplain(runtime, downloads, modelId, () => lib.AutoModel.from_pretrained(modelId, pretrained as never));
    await disposeIfAborted(model, options.signal);
    const config = model.config as { hidden_size?: number; d_model?: number; dim?: number; max_position_embeddings?: number; num_hidden_layers?: number; n_layers?: number; _name_or_path?: string };
    const dimensions = config.hidden_size ?? config.d_model ?? config.dim;
    if (!dimensions) {
      await model.dispose();
      throw new EngineError('ENGINE_UNSUPPORTED', `Model "${modelId}" does not state its hidden size in config.json; it is not an encoder NeuroEval can use.`);
    }
    // Tokenizers without a limit report a huge model_max_length; the position table is the real bound.
    const limits = [tokenizer.model_max_length, config.max_position_embeddings].filter((n): n is number => typeof n === 'number' && n > 2 && n < 1e6);
    const maxTokens = limits.length > 0 ? Math.min(...limits) : 512;
    const info = modelInfo(runtime, modelId, model.config, model.constructor.name, options.device ?? 'wasm', model.sessions);
    const layerCount = config.num_hidden_layers ?? config.n_layers;
    const layers = typeof layerCount === 'number' && Number.isInteger(layerCount) && layerCount > 0 ? layerCount : null;
    const session = (model.sessions as Record<string, { outputNames?: readonly string[] } | undefined>).model;
    const hiddenStates = (session?.outputNames ?? []).flatMap((n) => /^hidden_states\.(\d+)$/.exec(n)?.slice(1).map(Number) ?? []).sort((a, b) => a - b);
    // A local path (a converter's working folder) says nothing about the upstream model.
    const named = config._name_or_path;
    const upstream = typeof named === 'string' && /^[\w.-]+(\/[\w.-]+)?$/.test(named) ? named : null;
    return new TransformersEmbedder(lib, tokenizer, model, { ...info, dimensions, maxTokens, layers, hiddenStates, upstream });
  }

  /** The ONNX sessions, by transformers.js' name for them (for checks; do not run them directly). */
  get sessions(): Readonly<Record<string, unknown>> {
    return this.#model.sessions;
  }

  /** One vector per text, in order. */
  async sentenceEmbeddings(texts: readonly string[], options: SentenceEmbeddingOptions): Promise<Float32Array[]> {
    this.#checkLoaded();
    if (options.pooling !== 'mean' && options.pooling !== 'cls') throw new InvalidInputError(`pooling must be "mean" or "cls", not ${String(options.pooling)}.`);
    const batchSize = options.batchSize ?? DEFAULT_BATCH;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new InvalidInputError(`batchSize must be a whole number ≥ 1, not ${batchSize}.`);
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      throwIfAborted(options.signal);
      const batch = texts.slice(start, start + batchSize);
      const inputs = this.#tokenize(batch);
      const hidden = await this.#run(inputs);
      const [n, seq, dim] = hidden.dims as [number, number, number];
      const data = hidden.data as Float32Array;
      const mask = inputs.attention_mask.data as BigInt64Array;
      for (let b = 0; b < n; b++) {
        const vector = new Float32Array(dim);
        if (options.pooling === 'cls') vector.set(data.subarray(b * seq * dim, b * seq * dim + dim));
        else meanPool(data, mask, b, seq, dim, vector);
        out.push(options.normalize ? normalize(vector) : vector);
      }
      await nextMacrotask();
    }
    throwIfAborted(options.signal);
    return out;
  }

  /** The contextual vector of each token of `text` from the chosen layer; special tokens excluded unless kept. */
  async tokenEmbeddings(text: string, options: TokenEmbeddingOptions = {}): Promise<TokenEmbeddings> {
    this.#checkLoaded();
    throwIfAborted(options.signal);
    const { layers, hiddenStates } = this.info;
    const last = options.layer === undefined || options.layer === layers;
    if (!last && !hiddenStates.includes(options.layer!)) {
      throw new InvalidInputError(`Model "${this.info.modelId}" outputs ${hiddenStates.length ? `layers ${hiddenStates.join(', ')} and ` : ''}its last layer${layers !== null ? ` (${layers})` : ''}, not layer ${String(options.layer)}.`);
    }
    const keep = options.specialTokens === 'keep';
    const inputs = this.#tokenize([text]);
    const hidden = await this.#run(inputs, last ? undefined : options.layer);
    throwIfAborted(options.signal);
    const dim = hidden.dims[2]!;
    const data = hidden.data as Float32Array;
    const ids = Array.from(inputs.input_ids.data as BigInt64Array, Number);
    const names = this.#tokenNames();
    const tokens: string[] = [];
    const vectors: Float32Array[] = [];
    const special: boolean[] = [];
    ids.forEach((id, i) => {
      if (!keep && this.#specialIds.has(id)) return;
      tokens.push(names[id] ?? `[${id}]`);
      special.push(keep && this.#clsSepIds.has(id));
      const vector = data.slice(i * dim, (i + 1) * dim);
      vectors.push(options.normalize === false ? vector : normalize(vector));
    });
    return { tokens, vectors, special, layer: last ? layers : options.layer!, truncated: inputs.truncated[0]! };
  }

  /** Releases the ONNX session (GPU and wasm memory). */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.#model.dispose();
  }

  #checkLoaded(): void {
    if (this.#disposed) throw new EngineError('ENGINE_NOT_LOADED', 'This model was unloaded; load it again.');
  }

  /**
   * Token ids with the tokenizer's special tokens, right-padded. A text over
   * the limit keeps its start and its closing special tokens (`[SEP]`), as
   * Hugging Face tokenizers truncate; transformers.js 4.3.1 would cut them off.
   */
  #tokenize(texts: readonly string[]): Encoded {
    if (texts.some((t) => typeof t !== 'string')) throw new InvalidInputError('Every text to embed must be a string.');
    const max = this.info.maxTokens;
    const rows = texts.map((text) => {
      const full = this.#tokenizer.encode(text);
      if (full.length <= max) return { ids: full, truncated: false };
      let tail = full.length;
      while (tail > 0 && this.#specialIds.has(full[tail - 1]!)) tail--;
      const closing = full.slice(tail);
      return { ids: [...full.slice(0, max - closing.length), ...closing], truncated: true };
    });
    const seq = Math.max(1, ...rows.map((r) => r.ids.length));
    const ids = new BigInt64Array(rows.length * seq).fill(BigInt(this.#tokenizer.pad_token_id ?? 0));
    const mask = new BigInt64Array(rows.length * seq);
    rows.forEach((row, b) => {
      row.ids.forEach((id, t) => {
        ids[b * seq + t] = BigInt(id);
        mask[b * seq + t] = 1n;
      });
    });
    const { Tensor } = this.#lib;
    const dims = [rows.length, seq];
    return {
      input_ids: new Tensor('int64', ids, dims),
      attention_mask: new Tensor('int64', mask, dims),
      token_type_ids: new Tensor('int64', new BigInt64Array(rows.length * seq), dims),
      truncated: rows.map((r) => r.truncated),
    };
  }

  /**
   * The hidden state [batch, seq, hidden] of `layer` (`hidden_states.<layer>`),
   * or the last one (named as transformers.js' feature-extraction pipeline looks for it).
   */
  async #run({ input_ids, attention_mask, token_type_ids }: Encoded, layer?: number): Promise<Tensor> {
    const outputs = (await this.#model({ input_ids, attention_mask, token_type_ids })) as Record<string, Tensor | undefined>;
    const hidden = layer !== undefined ? outputs[`hidden_states.${layer}`] : (outputs.last_hidden_state ?? outputs.token_embeddings ?? outputs.logits);
    if (!hidden || hidden.dims.length !== 3) {
      throw new EngineError('ENGINE_UNSUPPORTED', `Model "${this.info.modelId}" returned no per-token hidden states (outputs: ${Object.keys(outputs).join(', ')}).`);
    }
    return hidden;
  }

  #tokenNames(): string[] {
    if (!this.#tokensById) {
      const names: string[] = [];
      for (const [token, id] of this.#tokenizer.get_vocab()) names[id] = token;
      this.#tokensById = names;
    }
    return this.#tokensById;
  }
}

/** A tokenizer_config.json token entry: a string or an `AddedToken` object. */
function configToken(entry: unknown): string | null {
  if (typeof entry === 'string') return entry;
  const content = (entry as { content?: unknown } | null)?.content;
  return typeof content === 'string' ? content : null;
}

/** Average of the unmasked token vectors of row `b`. */
function meanPool(data: Float32Array, mask: BigInt64Array, b: number, seq: number, dim: number, out: Float32Array): void {
  let count = 0;
  for (let t = 0; t < seq; t++) {
    if (mask[b * seq + t] === 0n) continue;
    count++;
    const offset = (b * seq + t) * dim;
    for (let k = 0; k < dim; k++) out[k]! += data[offset + k]!;
  }
  if (count > 0) for (let k = 0; k < dim; k++) out[k]! /= count;
}

/** Scales `v` to length 1 in place (a zero vector stays zero); returns it. */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let k = 0; k < v.length; k++) v[k]! /= norm;
  return v;
}

/** Cosine similarity of two vectors of the same length (0 when either is zero). */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new InvalidInputError(`Vectors of different lengths (${a.length}, ${b.length}) cannot be compared.`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let k = 0; k < a.length; k++) {
    dot += a[k]! * b[k]!;
    na += a[k]! * a[k]!;
    nb += b[k]! * b[k]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}
