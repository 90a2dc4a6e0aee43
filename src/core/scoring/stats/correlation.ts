/**
 * Pearson correlation and standard errors of a mean score.
 * - `pearson`: r = Σ(x−x̄)(y−ȳ) / √(Σ(x−x̄)²·Σ(y−ȳ)²); NaN when either side
 *   has zero variance or fewer than 2 pairs (used to check a judge model
 *   against clinician scores, target r > 0.9).
 * - `standardError`: sample sd (ddof = 1) ÷ √n, as Inspect AI `stderr()`.
 * - `clusteredStandardError`: CR1 cluster-robust SE of the mean, as Inspect AI
 *   `stderr(cluster=…)`: √(Σ_c (Σ_{i∈c} (x_i − x̄))² · C/(C−1)) ÷ n.
 * Undefined cases return NaN (Inspect returns 0 for n < 2; NaN says "not
 * enough data" instead of claiming no uncertainty).
 */
import { InvalidInputError } from '../../errors.ts';

interface Correlation {
  readonly r: number;
  readonly n: number;
}

const meanOf = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Pearson's r with the number of pairs. */
export function pearson(x: readonly number[], y: readonly number[]): Correlation {
  if (x.length !== y.length) throw new InvalidInputError(`Correlation needs paired values (${x.length} vs ${y.length}).`);
  const n = x.length;
  if (n < 2) return { r: NaN, n };
  const mx = meanOf(x);
  const my = meanOf(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return { r: NaN, n };
  return { r: Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy))), n };
}

/** Standard error of the mean; NaN for fewer than 2 values. */
export function standardError(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return NaN;
  const m = meanOf(values);
  const variance = values.reduce((a, v) => a + (v - m) ** 2, 0) / (n - 1);
  return Math.sqrt(variance / n);
}

/** CR1 clustered standard error of the mean; NaN for no values or fewer than 2 clusters. */
export function clusteredStandardError(values: readonly number[], clusters: readonly (string | number)[]): number {
  if (values.length !== clusters.length) {
    throw new InvalidInputError(`Cluster ids (${clusters.length}) and values (${values.length}) differ in length.`);
  }
  const n = values.length;
  if (n === 0) return NaN;
  const m = meanOf(values);
  const sums = new Map<string | number, number>();
  values.forEach((v, i) => sums.set(clusters[i]!, (sums.get(clusters[i]!) ?? 0) + (v - m)));
  const c = sums.size;
  if (c < 2) return NaN;
  let total = 0;
  for (const s of sums.values()) total += s * s;
  return Math.sqrt((total * c) / (c - 1)) / n;
}
