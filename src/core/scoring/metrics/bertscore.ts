/**
 * BERTScore-style similarity from token embeddings (Zhang et al. 2020;
 * Tiiiger/bert_score `greedy_cos_idf`), as pure math: the contextual
 * embeddings come from an encoder elsewhere.
 *
 * - Each candidate token is matched to its most cosine-similar reference
 *   token: P = Σ_j w(c_j)·max_i cos(c_j, r_i) ÷ Σ_j w(c_j); symmetrically
 *   R over reference tokens; F = 2PR/(P+R).
 * - Weights are 1, or IDF weights looked up by token (bert_score:
 *   idf(t) = ln((M+1)/(df(t)+1)) over the M references, and the maximum
 *   ln(M+1) for unseen tokens; see {@link computeIdf}).
 * - Baseline rescale: x' = (x − b)/(1 − b), applied to P, R and F each with
 *   its own baseline (bert_score `rescale_with_baseline`).
 * - Special tokens: bert_score embeds [CLS] and [SEP] (`<s>`, `</s>`) with the
 *   text and keeps them in the similarity matrix, so a content token may take
 *   its best match from a special token, and a special token's row and
 *   column count in the other side's maxima; their own weight is 0 (without
 *   IDF its weights are 1 with [CLS]/[SEP] set to 0; with IDF they are in
 *   every reference, so ln((M+1)/(M+1)) = 0). Mark them with `special`.
 * - A side with no tokens but special ones (an empty text) scores P = R = F
 *   = 0, as bert_score masks it; a side whose weights sum to 0 gives 0 where
 *   bert_score gives NaN (e.g. IDF over a single reference weighs every
 *   reference token 0), so that stored figures stay numbers.
 * Batches: bert_score matches pairs in batches (`batch_size`, default 64, in
 * the order the pairs are given) padded to the batch's longest candidate and
 * reference, and a padded position has similarity 0. So when a pair's
 * reference is shorter than the batch's longest, each candidate token's
 * maximum is at least 0 (a token whose best cosine is negative scores 0), and
 * likewise for reference tokens when the candidate is shorter.
 * {@link bertScoreBatch} reproduces that ({@link paddingOf} gives each pair's
 * padding); {@link bertScore} alone is the pair scored by itself (batch size 1).
 * bert_score also sorts texts by length to embed them in batches; that
 * padding is masked inside the encoder and does not reach the matching.
 * The numbers are comparable to published BERTScore only with the same
 * encoder, layer and baseline (see bertscore-layers.ts).
 */
import { InvalidInputError } from '../../errors.ts';

export interface BertScore {
  readonly precision: number;
  readonly recall: number;
  readonly f: number;
}

export interface EmbeddedText {
  /** One embedding per token, all of the same dimension. */
  readonly vectors: readonly Float32Array[];
  /** The tokens, aligned with `vectors`; needed only for IDF weights. */
  readonly tokens?: readonly string[];
  /** Aligned with `vectors`: true for [CLS]/[SEP], which are matched against but weigh 0. */
  readonly special?: readonly boolean[];
}

export interface IdfWeights {
  readonly weights: ReadonlyMap<string, number>;
  /** Weight for tokens not in `weights`. */
  readonly unseen: number;
}

interface BertScoreOptions {
  readonly idf?: IdfWeights;
  /** The pair sits in a batch padded past its own length: on this side, a padded position of similarity 0 joins every maximum. */
  readonly padded?: { readonly candidate: boolean; readonly reference: boolean };
  /** Baselines for rescaling, e.g. bert_score's `rescale_baseline/en/<model>.tsv` row for the layer. */
  readonly baseline?: BertScore;
}

/**
 * bert_score `get_idf_dict`: document frequency over the references (each
 * token counted once per reference), idf = ln((M+1)/(df+1)); unseen tokens
 * get ln(M+1).
 */
export function computeIdf(references: readonly (readonly string[])[]): IdfWeights {
  const df = new Map<string, number>();
  for (const ref of references) for (const t of new Set(ref)) df.set(t, (df.get(t) ?? 0) + 1);
  const m = references.length;
  const weights = new Map<string, number>();
  for (const [t, c] of df) weights.set(t, Math.log((m + 1) / (c + 1)));
  return { weights, unseen: Math.log(m + 1) };
}

/** (raw − b)/(1 − b) for P, R and F, each with its own baseline. */
export function rescaleWithBaseline(score: BertScore, baseline: BertScore): BertScore {
  const r = (x: number, b: number): number => (x - b) / (1 - b);
  return { precision: r(score.precision, baseline.precision), recall: r(score.recall, baseline.recall), f: r(score.f, baseline.f) };
}

function normalise(vectors: readonly Float32Array[], dim: number): Float64Array[] {
  return vectors.map((v) => {
    if (v.length !== dim) throw new InvalidInputError(`Token embeddings differ in dimension (${v.length} vs ${dim}).`);
    let norm = 0;
    for (let k = 0; k < dim; k++) norm += v[k]! * v[k]!;
    norm = Math.sqrt(norm);
    const out = new Float64Array(dim);
    // A zero vector has cosine 0 with everything instead of NaN.
    if (norm > 0) for (let k = 0; k < dim; k++) out[k] = v[k]! / norm;
    return out;
  });
}

function specialFlags(text: EmbeddedText, side: string): readonly boolean[] {
  if (!text.special) return text.vectors.map(() => false);
  if (text.special.length !== text.vectors.length) throw new InvalidInputError(`The ${side} side marks ${text.special.length} special tokens for ${text.vectors.length} embeddings.`);
  return text.special;
}

function tokenWeights(text: EmbeddedText, special: readonly boolean[], idf: IdfWeights | undefined, side: string): number[] {
  if (idf === undefined) return special.map((s) => (s ? 0 : 1));
  if (!text.tokens || text.tokens.length !== text.vectors.length) {
    throw new InvalidInputError(`IDF weighting needs one token per embedding on the ${side} side.`);
  }
  return text.tokens.map((t, i) => (special[i] ? 0 : (idf.weights.get(t) ?? idf.unseen)));
}

function weightedMean(values: readonly number[], weights: readonly number[]): number {
  let num = 0;
  let den = 0;
  values.forEach((v, i) => {
    num += v * weights[i]!;
    den += weights[i]!;
  });
  return den > 0 ? num / den : NaN;
}

/** BERTScore-style P/R/F of a candidate against one reference. */
export function bertScore(candidate: EmbeddedText, reference: EmbeddedText, options: BertScoreOptions = {}): BertScore {
  const dim = candidate.vectors[0]?.length ?? reference.vectors[0]?.length ?? 0;
  const cand = normalise(candidate.vectors, dim);
  const ref = normalise(reference.vectors, dim);
  // A padded reference adds columns of similarity 0 to each candidate token's row, and a padded candidate rows of 0.
  const bestForCand = new Array<number>(cand.length).fill(options.padded?.reference ? 0 : -Infinity);
  const bestForRef = new Array<number>(ref.length).fill(options.padded?.candidate ? 0 : -Infinity);
  for (let j = 0; j < cand.length; j++) {
    for (let i = 0; i < ref.length; i++) {
      let cos = 0;
      for (let k = 0; k < dim; k++) cos += cand[j]![k]! * ref[i]![k]!;
      if (cos > bestForCand[j]!) bestForCand[j] = cos;
      if (cos > bestForRef[i]!) bestForRef[i] = cos;
    }
  }
  const candSpecial = specialFlags(candidate, 'candidate');
  const refSpecial = specialFlags(reference, 'reference');
  const empty = candSpecial.every(Boolean) || refSpecial.every(Boolean);
  const p = empty ? NaN : weightedMean(bestForCand, tokenWeights(candidate, candSpecial, options.idf, 'candidate'));
  const r = empty ? NaN : weightedMean(bestForRef, tokenWeights(reference, refSpecial, options.idf, 'reference'));
  const precision = Number.isNaN(p) ? 0 : p;
  const recall = Number.isNaN(r) ? 0 : r;
  const harmonic = (2 * precision * recall) / (precision + recall);
  const f = Number.isNaN(harmonic) ? 0 : harmonic;
  const raw = { precision, recall, f };
  return options.baseline ? rescaleWithBaseline(raw, options.baseline) : raw;
}

/** bert_score's default batch size for matching pairs (`score(..., batch_size=64)`). */
export const BERTSCORE_BATCH_SIZE = 64;

/**
 * Which side of each pair is padded when pairs (given by their token counts,
 * special tokens included) are matched in consecutive batches of
 * `batchSize`, as bert_score's `bert_cos_score_idf` does.
 */
export function paddingOf(lengths: readonly { readonly candidate: number; readonly reference: number }[], batchSize = BERTSCORE_BATCH_SIZE): { candidate: boolean; reference: boolean }[] {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new InvalidInputError(`A BERTScore batch size is a whole number ≥ 1 (got ${batchSize}).`, { field: 'batchSize' });
  const out: { candidate: boolean; reference: boolean }[] = [];
  for (let start = 0; start < lengths.length; start += batchSize) {
    const batch = lengths.slice(start, start + batchSize);
    const maxC = Math.max(...batch.map((l) => l.candidate));
    const maxR = Math.max(...batch.map((l) => l.reference));
    for (const l of batch) out.push({ candidate: l.candidate < maxC, reference: l.reference < maxR });
  }
  return out;
}

/** BERTScore of each pair as bert_score scores a list of pairs in padded batches of `batchSize` (default 64). */
export function bertScoreBatch(
  pairs: readonly { readonly candidate: EmbeddedText; readonly reference: EmbeddedText }[],
  options: Omit<BertScoreOptions, 'padded'> & { readonly batchSize?: number } = {},
): BertScore[] {
  const { batchSize, ...rest } = options;
  const padded = paddingOf(pairs.map((p) => ({ candidate: p.candidate.vectors.length, reference: p.reference.vectors.length })), batchSize);
  return pairs.map((p, i) => bertScore(p.candidate, p.reference, { ...rest, padded: padded[i]! }));
}
