/**
 * Calibration of self-reported confidence against correctness (top-label,
 * binary correct/incorrect), as NeuroVLM-Bench scores `diagnosis_confidence`
 * (docs/protocols.md#neurovlm-bench-the-benchmarks-own-figures; check values in
 * docs/reference-values.md#expected-calibration-error).
 *
 * - Confidence: `null`/`undefined`/NaN → 0, then clipped to [0, 1].
 * - ECE (Guo et al. 2017): Σ_b (|B_b|/n)·|acc(B_b) − conf(B_b)| over B
 *   equal-width bins; the first bin is [0, 1/B], then (k/B, (k+1)/B] — upper
 *   edges inclusive, as `verified_calibration` (`bisect_left` on the upper
 *   edges i/B) and sklearn `calibration_curve`. Empty bins weigh 0.
 * - Brier score: mean (confidence − correct)².
 * - AUROC of confidence as a score for correctness: the Mann–Whitney U
 *   statistic ÷ (n₊·n₋), ties counting ½ (= sklearn `roc_auc_score`).
 * Empty input → NaN everywhere; AUROC is NaN unless both outcomes occur.
 */
import { InvalidInputError } from '../../errors.ts';

/** Null/NaN → 0, then clip to [0, 1]. */
export function prepareConfidence(c: number | null | undefined): number {
  if (c === null || c === undefined || Number.isNaN(c)) return 0;
  return Math.min(1, Math.max(0, c));
}

/** Index of the bin holding `c` ∈ [0, 1]: [0, 1/B] → 0, (k/B, (k+1)/B] → k. */
export function binIndex(c: number, bins: number): number {
  let k = Math.min(bins - 1, Math.max(0, Math.ceil(c * bins) - 1));
  // Compare with the edges exactly as k/B, correcting float error in c·B.
  while (k > 0 && c <= k / bins) k--;
  while (k < bins - 1 && c > (k + 1) / bins) k++;
  return k;
}

export interface ReliabilityPoint {
  readonly bin: number;
  readonly lower: number;
  readonly upper: number;
  readonly count: number;
  readonly meanConfidence: number;
  readonly accuracy: number;
}

function checkInputs(confidences: readonly (number | null | undefined)[], correct: readonly boolean[]): number[] {
  if (confidences.length !== correct.length) {
    throw new InvalidInputError(`Confidences (${confidences.length}) and outcomes (${correct.length}) differ in length.`);
  }
  return confidences.map(prepareConfidence);
}

/** Mean confidence vs accuracy for each non-empty bin, in bin order. */
export function reliabilityPoints(
  confidences: readonly (number | null | undefined)[],
  correct: readonly boolean[],
  bins = 10,
): ReliabilityPoint[] {
  const conf = checkInputs(confidences, correct);
  if (!Number.isInteger(bins) || bins < 1) throw new InvalidInputError(`The number of bins must be a positive integer (got ${bins}).`);
  const count = new Array<number>(bins).fill(0);
  const confSum = new Array<number>(bins).fill(0);
  const hits = new Array<number>(bins).fill(0);
  conf.forEach((c, i) => {
    const b = binIndex(c, bins);
    count[b]!++;
    confSum[b]! += c;
    if (correct[i]) hits[b]!++;
  });
  const points: ReliabilityPoint[] = [];
  for (let b = 0; b < bins; b++) {
    const n = count[b]!;
    if (n === 0) continue;
    points.push({ bin: b, lower: b / bins, upper: (b + 1) / bins, count: n, meanConfidence: confSum[b]! / n, accuracy: hits[b]! / n });
  }
  return points;
}

/** Expected calibration error with `bins` equal-width bins (default 10). */
export function expectedCalibrationError(
  confidences: readonly (number | null | undefined)[],
  correct: readonly boolean[],
  bins = 10,
): number {
  if (confidences.length === 0) return NaN;
  let ece = 0;
  for (const p of reliabilityPoints(confidences, correct, bins)) {
    ece += (p.count / confidences.length) * Math.abs(p.accuracy - p.meanConfidence);
  }
  return ece;
}

/** Brier score of confidence against the 0/1 outcome. */
export function brierScore(confidences: readonly (number | null | undefined)[], correct: readonly boolean[]): number {
  const conf = checkInputs(confidences, correct);
  if (conf.length === 0) return NaN;
  let sum = 0;
  conf.forEach((c, i) => {
    sum += (c - (correct[i] ? 1 : 0)) ** 2;
  });
  return sum / conf.length;
}

/** AUROC via average ranks (Mann–Whitney); NaN unless both outcomes are present. */
export function auroc(scores: readonly (number | null | undefined)[], positive: readonly boolean[]): number {
  const s = checkInputs(scores, positive);
  const order = s.map((_, i) => i).sort((a, b) => s[a]! - s[b]!);
  let nPos = 0;
  let rankSumPos = 0;
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && s[order[j + 1]!] === s[order[i]!]) j++;
    const avgRank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) {
      if (positive[order[k]!]) {
        nPos++;
        rankSumPos += avgRank;
      }
    }
    i = j + 1;
  }
  const nNeg = s.length - nPos;
  if (nPos === 0 || nNeg === 0) return NaN;
  return (rankSumPos - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

interface CalibrationReport {
  readonly n: number;
  readonly meanConfidence: number;
  readonly accuracy: number;
  readonly ece: number;
  readonly brier: number;
  readonly auroc: number;
  readonly bins: number;
  readonly reliability: readonly ReliabilityPoint[];
}

/** All calibration figures for one set of (confidence, correct) pairs. */
export function calibrationReport(
  confidences: readonly (number | null | undefined)[],
  correct: readonly boolean[],
  bins = 10,
): CalibrationReport {
  const conf = checkInputs(confidences, correct);
  const n = conf.length;
  return {
    n,
    meanConfidence: n === 0 ? NaN : conf.reduce((a, b) => a + b, 0) / n,
    accuracy: n === 0 ? NaN : correct.filter(Boolean).length / n,
    ece: expectedCalibrationError(conf, correct, bins),
    brier: brierScore(conf, correct),
    auroc: auroc(conf, correct),
    bins,
    reliability: reliabilityPoints(conf, correct, bins),
  };
}
