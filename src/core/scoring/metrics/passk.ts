/**
 * pass@k (docs/protocols.md#passk):
 * - over a ranked list: a case passes if any of its top-k hypotheses is
 *   equivalent to the reference (Neural-MedBench differential diagnosis);
 * - over n samples: the unbiased estimator 1 − C(n−c, k)/C(n, k) of
 *   Chen et al. 2021 (HumanEval), computed as the product
 *   1 − Π_{i=n−c+1}^{n} (1 − k/i), which never forms large binomials.
 */

/**
 * True when one of the first `k` hypotheses is equivalent. A list shorter
 * than k is scored on what it has; k < 1 → false.
 */
export function passAtKRanked(equivalent: readonly boolean[], k: number): boolean {
  const top = Math.min(Math.floor(k), equivalent.length);
  for (let i = 0; i < top; i++) if (equivalent[i]) return true;
  return false;
}

/** Share of cases passing at k over ranked lists; NaN for no cases. */
export function meanPassAtKRanked(cases: readonly (readonly boolean[])[], k: number): number {
  if (cases.length === 0) return NaN;
  return cases.filter((c) => passAtKRanked(c, k)).length / cases.length;
}

/**
 * Unbiased pass@k from n samples of which c are correct.
 * NaN when the estimator is undefined: k > n (fewer samples than k — the
 * HumanEval code returns 1 there even when c = 0), k < 1, or c outside [0, n].
 */
export function passAtKUnbiased(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k)) return NaN;
  if (k < 1 || k > n || c < 0 || c > n) return NaN;
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/** Mean unbiased pass@k over cases; cases where it is undefined are skipped; none left → NaN. */
export function meanPassAtKUnbiased(cases: readonly { readonly n: number; readonly c: number }[], k: number): number {
  let sum = 0;
  let count = 0;
  for (const { n, c } of cases) {
    const v = passAtKUnbiased(n, c, k);
    if (Number.isNaN(v)) continue;
    sum += v;
    count++;
  }
  return count === 0 ? NaN : sum / count;
}
