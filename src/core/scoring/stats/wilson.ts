/**
 * Wilson score interval for a binomial proportion (Wilson 1927), as
 * statsmodels `proportion_confint(method="wilson")`:
 *   center = (p̂ + z²/2n) / (1 + z²/n)
 *   half   = z·√(p̂(1−p̂)/n + z²/4n²) / (1 + z²/n)
 * with z = Φ⁻¹(1 − α/2) (1.959963984540054 for 95 %). The bounds are
 * clipped to [0, 1] against rounding. n = 0 → NaN bounds (no data).
 */
import { normalQuantile } from './normal.ts';

interface ProportionInterval {
  readonly estimate: number;
  readonly lower: number;
  readonly upper: number;
}

/** Wilson interval for `successes` out of `n` at confidence `level` (default 0.95). */
export function wilsonInterval(successes: number, n: number, level = 0.95): ProportionInterval {
  if (!(n > 0) || successes < 0 || successes > n || !(level > 0 && level < 1)) {
    return { estimate: n > 0 ? successes / n : NaN, lower: NaN, upper: NaN };
  }
  const z = normalQuantile(1 - (1 - level) / 2);
  const z2 = z * z;
  const p = successes / n;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { estimate: p, lower: Math.max(0, center - half), upper: Math.min(1, center + half) };
}
