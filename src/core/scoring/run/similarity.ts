/**
 * Semantic similarity with a local encoder (docs/protocols.md#text-similarity): sentence cosine
 * and BERTScore-style token matching. Every value carries the encoder's name,
 * because the numbers mean nothing without it. Reference embeddings are
 * cached: many models answer the same case.
 */
import { BERTSCORE_BATCH_SIZE, bertScore, computeIdf, paddingOf, type BertScore, type EmbeddedText, type IdfWeights } from '../metrics/bertscore.ts';
import { bertScoreLayerFor, type BertScoreLayer } from '../metrics/bertscore-layers.ts';

/** What an encoder says about its depth, to read bert_score's layer from it. */
export interface EncoderLayers {
  /** The hub model the weights come from (config.json `_name_or_path`), or null. */
  readonly upstream: string | null;
  /** Transformer layers, or null when unknown. */
  readonly layers: number | null;
  /** Layers besides the last whose output the graph offers (0 = embeddings). */
  readonly hiddenStates: readonly number[];
}

export interface TokenEmbeddingRequest {
  /** Read this layer instead of the last (one the encoder offers). */
  readonly layer?: number;
  /** `keep`: all tokens, [CLS]/[SEP] marked `special`, as bert_score matches them. Default `drop`. */
  readonly specialTokens?: 'drop' | 'keep';
}

/** A loaded encoder (transformers.js in a worker, or in Node for the CLI and tests). */
export interface SimilarityEncoder {
  readonly id: string;
  /** Unit-length sentence vectors, one per text. */
  sentenceEmbeddings(texts: readonly string[]): Promise<Float32Array[]>;
  /**
   * Contextual token vectors: by default without special tokens, from the
   * last layer. Absent for encoders that give sentence vectors only (an
   * OpenAI-compatible `/embeddings` endpoint): then cosine is scored and
   * BERTScore, which needs token vectors, is not.
   */
  tokenEmbeddings?(
    text: string,
    options?: TokenEmbeddingRequest,
  ): Promise<{ readonly tokens: readonly string[]; readonly vectors: readonly Float32Array[]; readonly special?: readonly boolean[]; readonly layer?: number | null }>;
  /** The encoder's layers (loads it). Without it, BERTScore reads the last layer and records its depth as unknown. */
  describeLayers?(): Promise<EncoderLayers>;
}

interface SimilarityScore {
  readonly cosine: number;
  /** Null when the encoder gives no token vectors. */
  readonly bert: BertScore | null;
}

/** What item scoring asks of the encoder: one pair's similarity (the service, or a recorder of the pairs asked for). */
export interface PairSimilarity {
  readonly id: string;
  /** The encoder gives token vectors, so BERTScore is scored (else cosine only). */
  readonly tokens: boolean;
  score(candidate: string, reference: string): Promise<SimilarityScore>;
}

/** Records the pairs item scoring asks for, in order, answering zeros: a dry run that finds bert_score's batches before scoring. */
export class PairRecorder implements PairSimilarity {
  readonly pairs: { candidate: string; reference: string }[] = [];
  constructor(
    readonly id: string,
    readonly tokens = true,
  ) {}
  score(candidate: string, reference: string): Promise<SimilarityScore> {
    this.pairs.push({ candidate, reference });
    return Promise.resolve({ cosine: 0, bert: { precision: 0, recall: 0, f: 0 } });
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export class SimilarityService implements PairSimilarity {
  readonly #sentences = new Map<string, Promise<Float32Array>>();
  #plan: { candidate: string; reference: string; padded: { candidate: boolean; reference: boolean } }[] | undefined;
  #next = 0;
  readonly #tokens = new Map<string, Promise<EmbeddedText>>();
  #idf: IdfWeights | undefined;
  #layer: Promise<BertScoreLayer> | undefined;

  /**
   * @param baseline bert_score's rescale baseline for this encoder and layer
   *   (P, R, F; the row of {@link layer}): scores become (raw − b) ÷ (1 − b).
   *   Without one, raw scores.
   */
  constructor(
    readonly encoder: SimilarityEncoder,
    private readonly baseline?: BertScore,
    /** bert_score's `batch_size`: pairs are matched in padded batches of this many (1: each pair alone). */
    readonly batchSize: number = BERTSCORE_BATCH_SIZE,
  ) {}

  /**
   * The pairs {@link score} will be asked for, in that order (bert_score's
   * list of candidates and references): each text is embedded once here, and
   * each pair learns the padding of its batch. Calls of {@link score} must
   * then come in the same order.
   */
  async planPairs(pairs: readonly { candidate: string; reference: string }[]): Promise<void> {
    if (!this.tokens) return;
    const lengths = await Promise.all(pairs.map(async (p) => ({ candidate: (await this.#embedTokens(p.candidate)).vectors.length, reference: (await this.#embedTokens(p.reference)).vectors.length })));
    const padded = paddingOf(lengths, this.batchSize);
    this.#plan = pairs.map((p, i) => ({ ...p, padded: padded[i]! }));
    this.#next = 0;
  }

  get id(): string {
    return this.encoder.id;
  }

  get tokens(): boolean {
    return this.encoder.tokenEmbeddings !== undefined;
  }

  /**
   * IDF weights from the references' tokens (bert_score `idf=True`): call once
   * with the reference of every scored pair before scoring. As bert_score's
   * `get_idf_dict`, every reference given counts, repeats included (two
   * models answering one question give that reference twice); each distinct
   * text is tokenised once.
   */
  async useIdf(references: readonly string[]): Promise<void> {
    if (!this.tokens) return;
    const distinct = [...new Set(references)];
    const tokens = new Map(await Promise.all(distinct.map(async (r) => [r, [...((await this.#embedTokens(r)).tokens ?? [])]] as const)));
    this.#idf = computeIdf(references.map((r) => tokens.get(r)!));
  }

  /** The IDF weights in use (after {@link useIdf}), or undefined. */
  get idf(): IdfWeights | undefined {
    return this.#idf;
  }

  #embedSentence(text: string, cache: boolean): Promise<Float32Array> {
    const hit = this.#sentences.get(text);
    if (hit) return hit;
    const p = this.encoder.sentenceEmbeddings([text]).then((v) => v[0]!);
    if (cache) this.#sentences.set(text, p);
    return p;
  }

  /**
   * The layer BERTScore reads (asks the encoder once): bert_score's layer
   * for the encoder's upstream model where the graph offers it, else the
   * last layer, recorded as such.
   */
  layer(): Promise<BertScoreLayer> {
    this.#layer ??= (async () => {
      const d = this.encoder.describeLayers ? await this.encoder.describeLayers() : null;
      const bertScore = bertScoreLayerFor(d?.upstream);
      const layers = d?.layers ?? null;
      const offered = bertScore !== null && (bertScore === layers || (d?.hiddenStates ?? []).includes(bertScore));
      return { used: offered ? bertScore : layers, layers, bertScore, model: d?.upstream ?? null };
    })();
    return this.#layer;
  }

  #embedTokens(text: string, cache = true): Promise<EmbeddedText> {
    const hit = this.#tokens.get(text);
    if (hit) return hit;
    const p = this.layer().then(async (layer) => {
      // Ask for a layer only when it is not the last, so encoders without hidden-state outputs are never asked for one.
      const t = await this.encoder.tokenEmbeddings!(text, { specialTokens: 'keep', ...(layer.used !== null && layer.used !== layer.layers ? { layer: layer.used } : {}) });
      return { tokens: t.tokens, vectors: t.vectors, ...(t.special ? { special: t.special } : {}) };
    });
    if (cache) this.#tokens.set(text, p);
    return p;
  }

  /** Cosine of the sentence vectors and BERTScore P/R/F of `candidate` against `reference`. */
  async score(candidate: string, reference: string): Promise<SimilarityScore> {
    const planned = this.#plan?.[this.#next];
    if (this.#plan) {
      // The plan's order is bert_score's order of pairs; a call out of that order would get another pair's padding.
      if (!planned || planned.candidate !== candidate || planned.reference !== reference) throw new Error(`BERTScore pair ${this.#next + 1} was asked out of the planned order.`);
      this.#next++;
    }
    const [c, r] = await Promise.all([this.#embedSentence(candidate, false), this.#embedSentence(reference, true)]);
    if (!this.tokens) return { cosine: dot(c, r), bert: null };
    const [ct, rt] = await Promise.all([this.#embedTokens(candidate, !!planned), this.#embedTokens(reference, true)]);
    const padded = planned?.padded ?? (this.batchSize > 1 ? undefined : { candidate: false, reference: false });
    return {
      cosine: dot(c, r),
      bert: bertScore(ct, rt, { ...(this.#idf ? { idf: this.#idf } : {}), ...(this.baseline ? { baseline: this.baseline } : {}), ...(padded ? { padded } : {}) }),
    };
  }
}

/** What {@link encoderFromEmbedder} needs of transformers.js' `TransformersEmbedder` (kept structural, so scoring does not import engines). */
interface EmbedderLike {
  readonly info: { readonly modelId: string };
  sentenceEmbeddings(texts: readonly string[], options: { pooling: 'mean' | 'cls'; normalize: boolean; signal?: AbortSignal }): Promise<Float32Array[]>;
  tokenEmbeddings(
    text: string,
    options?: { normalize?: boolean; signal?: AbortSignal } & TokenEmbeddingRequest,
  ): Promise<{ tokens: string[]; vectors: Float32Array[]; special?: boolean[]; layer?: number | null }>;
}

/** A loaded encoder as a {@link SimilarityEncoder}: mean-pooled unit sentence vectors (sentence-transformers' default), unit token vectors. */
export function encoderFromEmbedder(embedder: EmbedderLike & { readonly info: EncoderLayers }, id: string = embedder.info.modelId, signal?: AbortSignal): SimilarityEncoder {
  const opts = signal ? { signal } : {};
  const { upstream, layers, hiddenStates } = embedder.info;
  return {
    id,
    sentenceEmbeddings: (texts) => embedder.sentenceEmbeddings(texts, { pooling: 'mean', normalize: true, ...opts }),
    tokenEmbeddings: (text, request = {}) => embedder.tokenEmbeddings(text, { normalize: true, ...request, ...opts }),
    describeLayers: () => Promise.resolve({ upstream, layers, hiddenStates }),
  };
}
