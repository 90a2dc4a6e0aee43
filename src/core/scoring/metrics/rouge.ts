/**
 * ROUGE-N, ROUGE-L and ROUGE-Lsum, compatible with google-research
 * `rouge_score` (`rouge/rouge_scorer.py`, `rouge/tokenize.py`), which in turn
 * reproduces ROUGE-1.5.5 (`-e data -n 2`, and `-m` with stemming).
 *
 * - Tokens: lower-case, `[^a-z0-9]+` → space, split on whitespace, drop empty
 *   tokens; with stemming, tokens longer than 3 characters go through the
 *   Porter stemmer in NLTK mode (what `rouge_score` uses).
 * - Precision = overlap ÷ prediction units, recall = overlap ÷ target units,
 *   F = 2PR/(P+R) (0 when P+R = 0). Empty inputs score 0, never NaN.
 * - Argument order is `score(target, prediction)`, as in `rouge_score`.
 * Changing the tokenizer or the LCS tie-breaking changes stored ROUGE scores.
 */
import { InvalidInputError } from '../../errors.ts';
import { porterStem } from './porter.ts';

export interface PrfScore {
  readonly precision: number;
  readonly recall: number;
  readonly f: number;
}

type RougeNType = 'rouge1' | 'rouge2' | 'rouge3' | 'rouge4' | 'rouge5' | 'rouge6' | 'rouge7' | 'rouge8' | 'rouge9';
type RougeType = RougeNType | 'rougeL' | 'rougeLsum';

interface RougeOptions {
  /** Porter-stem tokens longer than 3 characters (`use_stemmer=True`). Default false. */
  readonly useStemmer?: boolean;
}

const ZERO: PrfScore = { precision: 0, recall: 0, f: 0 };

/** `scoring.fmeasure`: harmonic mean, 0 when both are 0. */
function fMeasure(precision: number, recall: number): number {
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

/** `rouge_score`'s default tokenizer. */
export function rougeTokenize(text: string, options: RougeOptions = {}): string[] {
  const cleaned = text.toLowerCase().replace(/[^a-z0-9]+/g, ' ');
  const tokens: string[] = [];
  for (const raw of cleaned.split(/\s+/)) {
    const token = options.useStemmer && raw.length > 3 ? porterStem(raw) : raw;
    if (/^[a-z0-9]+$/.test(token)) tokens.push(token);
  }
  return tokens;
}

function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    // Tokens are [a-z0-9]+, so a space can join them without ambiguity.
    const key = tokens.slice(i, i + n).join(' ');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** ROUGE-N over pre-tokenized text (`_score_ngrams`). */
function rougeN(targetTokens: readonly string[], predictionTokens: readonly string[], n: number): PrfScore {
  const target = ngramCounts(targetTokens, n);
  const prediction = ngramCounts(predictionTokens, n);
  let overlap = 0;
  for (const [gram, count] of target) overlap += Math.min(count, prediction.get(gram) ?? 0);
  const targetTotal = Math.max(targetTokens.length - n + 1, 0);
  const predictionTotal = Math.max(predictionTokens.length - n + 1, 0);
  const precision = overlap / Math.max(predictionTotal, 1);
  const recall = overlap / Math.max(targetTotal, 1);
  return { precision, recall, f: fMeasure(precision, recall) };
}

/** The (|ref|+1)×(|can|+1) LCS length table (`_lcs_table`). */
export function lcsTable(ref: readonly string[], can: readonly string[]): number[][] {
  const table: number[][] = Array.from({ length: ref.length + 1 }, () => new Array<number>(can.length + 1).fill(0));
  for (let i = 1; i <= ref.length; i++) {
    const row = table[i]!;
    const prev = table[i - 1]!;
    for (let j = 1; j <= can.length; j++) {
      row[j] = ref[i - 1] === can[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, row[j - 1]!);
    }
  }
  return table;
}

/**
 * Indices into `ref` of one longest common subsequence, read back with the
 * same tie-breaking as `_backtrack_norec` (prefer moving in `can` only on a
 * strictly larger cell), so Lsum picks the same tokens as `rouge_score`.
 */
export function lcsIndices(ref: readonly string[], can: readonly string[]): number[] {
  const t = lcsTable(ref, can);
  const out: number[] = [];
  let i = ref.length;
  let j = can.length;
  while (i > 0 && j > 0) {
    if (ref[i - 1] === can[j - 1]) {
      out.push(i - 1);
      i--;
      j--;
    } else if (t[i]![j - 1]! > t[i - 1]![j]!) {
      j--;
    } else {
      i--;
    }
  }
  return out.reverse();
}

/** ROUGE-L (`_score_lcs`): LCS length over the whole token sequences. */
export function rougeL(targetTokens: readonly string[], predictionTokens: readonly string[]): PrfScore {
  if (targetTokens.length === 0 || predictionTokens.length === 0) return ZERO;
  const lcs = lcsTable(targetTokens, predictionTokens)[targetTokens.length]![predictionTokens.length]!;
  const precision = lcs / predictionTokens.length;
  const recall = lcs / targetTokens.length;
  return { precision, recall, f: fMeasure(precision, recall) };
}

/**
 * Summary-level ROUGE-L (`_summary_level_lcs`, Lin 2004 §3.2): for each target
 * sentence, the union of its LCS index sets with every prediction sentence;
 * hits are capped by the remaining token counts on both sides (as ROUGE-1.5.5)
 * so a token is never counted twice.
 */
export function rougeLsum(targetSentences: readonly (readonly string[])[], predictionSentences: readonly (readonly string[])[]): PrfScore {
  if (targetSentences.length === 0 || predictionSentences.length === 0) return ZERO;
  const m = targetSentences.reduce((s, x) => s + x.length, 0);
  const n = predictionSentences.reduce((s, x) => s + x.length, 0);
  if (m === 0 || n === 0) return ZERO;
  const remainingTarget = new Map<string, number>();
  const remainingPrediction = new Map<string, number>();
  for (const s of targetSentences) for (const t of s) remainingTarget.set(t, (remainingTarget.get(t) ?? 0) + 1);
  for (const s of predictionSentences) for (const t of s) remainingPrediction.set(t, (remainingPrediction.get(t) ?? 0) + 1);
  let hits = 0;
  for (const ref of targetSentences) {
    const union = new Set<number>();
    for (const can of predictionSentences) for (const i of lcsIndices(ref, can)) union.add(i);
    for (const i of [...union].sort((a, b) => a - b)) {
      const token = ref[i]!;
      const c = remainingPrediction.get(token) ?? 0;
      const r = remainingTarget.get(token) ?? 0;
      if (c > 0 && r > 0) {
        hits++;
        remainingPrediction.set(token, c - 1);
        remainingTarget.set(token, r - 1);
      }
    }
  }
  const precision = hits / n;
  const recall = hits / m;
  return { precision, recall, f: fMeasure(precision, recall) };
}

/** Sentences for rougeLsum: split on "\n", drop empty strings (not whitespace-only ones). */
function sentences(text: string, options: RougeOptions): string[][] {
  return text.split('\n').filter((s) => s.length > 0).map((s) => rougeTokenize(s, options));
}

function isRougeType(type: string): type is RougeType {
  return type === 'rougeL' || type === 'rougeLsum' || /^rouge[1-9]$/.test(type);
}

/**
 * Scores one prediction against one target for the requested ROUGE types
 * (`RougeScorer(rouge_types, use_stemmer).score(target, prediction)`).
 * Throws {@link InvalidInputError} for an unknown type name (a caller bug).
 */
export function rougeScore<T extends RougeType>(
  target: string,
  prediction: string,
  types: readonly T[],
  options: RougeOptions = {},
): Record<T, PrfScore> {
  const result = {} as Record<T, PrfScore>;
  let targetTokens: string[] | null = null;
  let predictionTokens: string[] | null = null;
  for (const type of types) {
    if (!isRougeType(type)) throw new InvalidInputError(`Unknown ROUGE type "${String(type)}".`);
    if (type === 'rougeLsum') {
      result[type] = rougeLsum(sentences(target, options), sentences(prediction, options));
      continue;
    }
    targetTokens ??= rougeTokenize(target, options);
    predictionTokens ??= rougeTokenize(prediction, options);
    result[type] = type === 'rougeL' ? rougeL(targetTokens, predictionTokens) : rougeN(targetTokens, predictionTokens, Number(type.slice(5)));
  }
  return result;
}

/**
 * Best score over several targets (`score_multi`): for each type, the target
 * with the highest F wins. No targets → every type scores 0.
 */
export function rougeScoreMulti<T extends RougeType>(
  targets: readonly string[],
  prediction: string,
  types: readonly T[],
  options: RougeOptions = {},
): Record<T, PrfScore> {
  const best = {} as Record<T, PrfScore>;
  for (const type of types) best[type] = ZERO;
  for (const target of targets) {
    const scores = rougeScore(target, prediction, types, options);
    for (const type of types) if (scores[type].f > best[type].f) best[type] = scores[type];
  }
  return best;
}
