/**
 * McNemar's test for two models scored on the same items (paired binary
 * outcomes), as statsmodels `contingency_tables.mcnemar`:
 * - b = items only model A got right, c = items only model B got right;
 * - exact (default when b + c < 25): two-sided binomial test,
 *   p = min(1, 2·P(X ≤ min(b, c))), X ~ Binomial(b + c, ½);
 * - otherwise χ² with continuity correction: (|b − c| − 1)²/(b + c) on 1
 *   degree of freedom (statsmodels does not clamp |b − c| − 1 at 0).
 * b + c = 0 → p = 1 (no discordant pairs, no evidence of a difference).
 */
import { InvalidInputError } from '../../errors.ts';
import { chiSquare1Sf } from './normal.ts';

type McNemarMethod = 'exact-binomial' | 'chi-square-corrected';

interface McNemarResult {
  /** A right, B wrong. */
  readonly b: number;
  /** A wrong, B right. */
  readonly c: number;
  /** min(b, c) for the exact test, the χ² value otherwise. */
  readonly statistic: number;
  readonly pValue: number;
  readonly method: McNemarMethod;
}

interface McNemarOptions {
  /** 'auto' (default): exact when b + c < 25. */
  readonly method?: McNemarMethod | 'auto';
}

/** P(X ≤ k) for X ~ Binomial(n, ½), summed in log space so large n cannot underflow. */
export function binomialHalfCdf(k: number, n: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  const logHalfN = -n * Math.LN2;
  let logC = 0;
  let max = -Infinity;
  const logs: number[] = [];
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log((n - i + 1) / i);
    logs.push(logC + logHalfN);
    max = Math.max(max, logC + logHalfN);
  }
  return Math.min(1, Math.exp(max) * logs.reduce((s, l) => s + Math.exp(l - max), 0));
}

/** McNemar test from the discordant counts. */
export function mcnemarFromCounts(b: number, c: number, options: McNemarOptions = {}): McNemarResult {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0) {
    throw new InvalidInputError(`McNemar counts must be non-negative integers (got b=${b}, c=${c}).`);
  }
  const requested = options.method ?? 'auto';
  const method: McNemarMethod = requested === 'auto' ? (b + c < 25 ? 'exact-binomial' : 'chi-square-corrected') : requested;
  if (b + c === 0) return { b, c, statistic: method === 'exact-binomial' ? 0 : NaN, pValue: 1, method };
  if (method === 'exact-binomial') {
    const k = Math.min(b, c);
    return { b, c, statistic: k, pValue: Math.min(1, 2 * binomialHalfCdf(k, b + c)), method };
  }
  const statistic = (Math.abs(b - c) - 1) ** 2 / (b + c);
  return { b, c, statistic, pValue: chiSquare1Sf(statistic), method };
}

/** McNemar test from per-item correctness of models A and B (same items, same order). */
export function mcnemar(correctA: readonly boolean[], correctB: readonly boolean[], options: McNemarOptions = {}): McNemarResult {
  if (correctA.length !== correctB.length) {
    throw new InvalidInputError(`McNemar needs the same items for both models (${correctA.length} vs ${correctB.length}).`);
  }
  let b = 0;
  let c = 0;
  for (let i = 0; i < correctA.length; i++) {
    if (correctA[i] && !correctB[i]) b++;
    else if (!correctA[i] && correctB[i]) c++;
  }
  return mcnemarFromCounts(b, c, options);
}
