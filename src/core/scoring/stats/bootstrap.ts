/**
 * Seeded nonparametric bootstrap (Efron & Tibshirani 1993) for any statistic
 * over benchmark items (docs/protocols.md#intervals-and-tests: percentile CIs, default 1,000
 * resamples, seeded PRNG; paired bootstrap for model-vs-model differences).
 *
 * - PRNG: mulberry32, so a seed gives the same intervals in the browser, in
 *   workers and in Node. Changing the PRNG or the draw order changes stored
 *   intervals.
 * - Percentile interval: the (1−level)/2 and (1+level)/2 quantiles of the
 *   resampled statistics, linearly interpolated as NumPy's default
 *   `np.percentile`. Resamples whose statistic is NaN/±∞ are dropped and
 *   `resamples` reports how many were kept.
 * - Clustered: with `clusters`, whole clusters are drawn with replacement
 *   (e.g. several slices of one patient), keeping within-cluster correlation.
 * Empty input or no valid resample → NaN bounds.
 */
import { InvalidInputError } from '../../errors.ts';
import { mulberry32 } from '../../random/mulberry32.ts';

export { mulberry32 };

interface BootstrapOptions {
  /** Number of resamples (default 1,000). */
  readonly resamples?: number;
  /** PRNG seed (default 0). */
  readonly seed?: number;
  /** Interval coverage (default 0.95). */
  readonly level?: number;
  /** Cluster id per item; when given, clusters are resampled instead of items. */
  readonly clusters?: readonly (string | number)[];
}

interface BootstrapResult {
  /** The statistic on the full data. */
  readonly estimate: number;
  readonly lower: number;
  readonly upper: number;
  /** Sample standard deviation of the resampled statistics. */
  readonly standardError: number;
  /** Resamples with a finite statistic. */
  readonly resamples: number;
}

interface PairedBootstrapResult extends BootstrapResult {
  /** Two-sided: 2 × the share of resampled differences on the far side of 0 (≤ 0 or ≥ 0), capped at 1. */
  readonly pValue: number;
}

/** NumPy-default (linear) quantile of an ascending array; NaN when empty. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** Resampled statistics (finite ones only), in draw order. */
function resampleStatistics<T>(items: readonly T[], statistic: (sample: readonly T[]) => number, options: BootstrapOptions): number[] {
  const { resamples = 1000, seed = 0, clusters } = options;
  if (clusters && clusters.length !== items.length) {
    throw new InvalidInputError(`Cluster ids (${clusters.length}) and items (${items.length}) differ in length.`);
  }
  if (items.length === 0) return [];
  const groups: number[][] = [];
  if (clusters) {
    const byId = new Map<string | number, number[]>();
    clusters.forEach((id, i) => {
      const g = byId.get(id);
      if (g) g.push(i);
      else byId.set(id, [i]);
    });
    groups.push(...byId.values());
  } else {
    for (let i = 0; i < items.length; i++) groups.push([i]);
  }
  const random = mulberry32(seed);
  const stats: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const sample: T[] = [];
    for (let g = 0; g < groups.length; g++) {
      for (const i of groups[Math.floor(random() * groups.length)]!) sample.push(items[i]!);
    }
    const s = statistic(sample);
    if (Number.isFinite(s)) stats.push(s);
  }
  return stats;
}

function summarise(estimate: number, stats: number[], level: number): BootstrapResult {
  const sorted = [...stats].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  const variance = sorted.reduce((a, b) => a + (b - mean) ** 2, 0) / (sorted.length - 1);
  return {
    estimate,
    lower: percentile(sorted, (1 - level) / 2),
    upper: percentile(sorted, (1 + level) / 2),
    standardError: sorted.length > 1 ? Math.sqrt(variance) : NaN,
    resamples: sorted.length,
  };
}

/** Percentile bootstrap CI for `statistic` over `items`. */
export function bootstrapCi<T>(
  items: readonly T[],
  statistic: (sample: readonly T[]) => number,
  options: BootstrapOptions = {},
): BootstrapResult {
  return summarise(statistic(items), resampleStatistics(items, statistic, options), options.level ?? 0.95);
}

/**
 * Paired bootstrap for a difference between two models on the same items:
 * each item carries both models' outcomes and `difference` returns
 * statistic(A) − statistic(B) on a sample, so both models are resampled
 * together (Koehn 2004; sacrebleu `paired_bs`).
 */
export function pairedBootstrap<T>(
  items: readonly T[],
  difference: (sample: readonly T[]) => number,
  options: BootstrapOptions = {},
): PairedBootstrapResult {
  const stats = resampleStatistics(items, difference, options);
  const summary = summarise(difference(items), stats, options.level ?? 0.95);
  const atOrBelow = stats.filter((d) => d <= 0).length;
  const atOrAbove = stats.filter((d) => d >= 0).length;
  const pValue = stats.length === 0 ? NaN : Math.min(1, (2 * Math.min(atOrBelow, atOrAbove)) / stats.length);
  return { ...summary, pValue };
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

/** Paired bootstrap of mean(a) − mean(b) for per-item scores of two models on the same items. */
export function pairedBootstrapMean(a: readonly number[], b: readonly number[], options: BootstrapOptions = {}): PairedBootstrapResult {
  if (a.length !== b.length) throw new InvalidInputError(`Paired scores differ in length (${a.length} vs ${b.length}).`);
  const pairs = a.map((x, i): readonly [number, number] => [x, b[i]!]);
  return pairedBootstrap(pairs, (s) => mean(s.map((p) => p[0])) - mean(s.map((p) => p[1])), options);
}

/**
 * {@link bootstrapCi} of the mean of `values`, without clusters: the same
 * draws and the same result, but no per-resample arrays, so 100,000 items
 * × 1,000 resamples stay fast enough for a results page.
 */
export function bootstrapMeanCi(values: ArrayLike<number>, options: Omit<BootstrapOptions, 'clusters'> = {}): BootstrapResult {
  const { resamples = 1000, seed = 0, level = 0.95 } = options;
  const n = values.length;
  let total = 0;
  for (let i = 0; i < n; i++) total += values[i]!;
  if (n === 0) return summarise(NaN, [], level);
  const random = mulberry32(seed);
  const stats: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let g = 0; g < n; g++) sum += values[Math.floor(random() * n)]!;
    const s = sum / n;
    if (Number.isFinite(s)) stats.push(s);
  }
  return summarise(total / n, stats, level);
}

/**
 * {@link bootstrapCi} of the pooled mean of `values` with `clusters`: the
 * same draws (one per cluster per resample, clusters in first-seen order) and
 * the same statistic (the mean over every value of the drawn clusters), but
 * computed from per-cluster sums and counts, so a run with many samples per
 * question stays fast. Sums are added cluster by cluster, so continuous values
 * can differ from {@link bootstrapCi} in the last bits; 0/1 values match exactly.
 */
export function bootstrapClusterMeanCi(values: readonly number[], clusters: readonly (string | number)[], options: Omit<BootstrapOptions, 'clusters'> = {}): BootstrapResult {
  const { resamples = 1000, seed = 0, level = 0.95 } = options;
  if (clusters.length !== values.length) {
    throw new InvalidInputError(`Cluster ids (${clusters.length}) and items (${values.length}) differ in length.`);
  }
  const index = new Map<string | number, number>();
  const sums: number[] = [];
  const counts: number[] = [];
  let total = 0;
  values.forEach((v, i) => {
    const id = clusters[i]!;
    let g = index.get(id);
    if (g === undefined) {
      index.set(id, (g = sums.length));
      sums.push(0);
      counts.push(0);
    }
    sums[g]! += v;
    counts[g]! += 1;
    total += v;
  });
  const n = values.length;
  if (n === 0) return summarise(NaN, [], level);
  const k = sums.length;
  const random = mulberry32(seed);
  const stats: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    let count = 0;
    for (let g = 0; g < k; g++) {
      const pick = Math.floor(random() * k);
      sum += sums[pick]!;
      count += counts[pick]!;
    }
    const s = sum / count;
    if (Number.isFinite(s)) stats.push(s);
  }
  return summarise(total / n, stats, level);
}
