/**
 * Krippendorff's α for several raters with missing ratings (Krippendorff
 * 2011, "Computing Krippendorff's alpha-reliability"), computed as Inspect AI
 * `scorer/_metrics/krippendorff.py`:
 *   α = 1 − D_o / D_e,
 *   D_o = (1/n) Σ_u Σ_{i≠j in u} δ²(a_i, a_j) / (m_u − 1),
 *   D_e = Σ_{i≠j over all pairable values} δ²(a_i, a_j) / (n(n − 1)),
 * where each unit u is the list of ratings one item received, m_u its size
 * and n the number of pairable values.
 * - Missing ratings (null, undefined, NaN) are dropped; units left with fewer
 *   than 2 ratings are not pairable and are skipped.
 * - nominal: δ² = [a ≠ b]; interval: δ² = (a − b)²; ordinal: values are
 *   re-encoded as cumulative-midpoint ranks of the marginal counts
 *   (Σ_{k<c} n_k + n_c/2), which turns the ordinal δ² into a squared difference.
 * Fewer than 2 pairable values → NaN. Every rating identical (D_e = 0) → NaN
 * too: α = 1 − 0/0 is undefined (Inspect AI returns 1 there, which reads as
 * perfect agreement where the raters had nothing to disagree about).
 */
import { InvalidInputError } from '../../errors.ts';

type AlphaLevel = 'nominal' | 'ordinal' | 'interval';
type AlphaRating = string | number | null | undefined;

const isMissing = (v: AlphaRating): v is null | undefined => v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v));

/** Σ_{i≠j} [a≠b] = n² − Σ_c n_c². */
function nominalDisagreement(ratings: readonly (string | number)[]): number {
  const counts = new Map<string | number, number>();
  for (const r of ratings) counts.set(r, (counts.get(r) ?? 0) + 1);
  let same = 0;
  for (const c of counts.values()) same += c * c;
  return ratings.length * ratings.length - same;
}

/** Σ_{i≠j} (a−b)² = 2n·Σ(x − x̄)². */
function squaredDisagreement(ratings: readonly number[]): number {
  const n = ratings.length;
  const mean = ratings.reduce((a, b) => a + b, 0) / n;
  return 2 * n * ratings.reduce((a, x) => a + (x - mean) ** 2, 0);
}

function numeric(units: readonly (readonly (string | number)[])[], level: AlphaLevel): number[][] {
  return units.map((u) => u.map((v) => {
    if (typeof v !== 'number') throw new InvalidInputError(`Krippendorff's α (${level}) needs numeric ratings; got "${v}".`);
    return v;
  }));
}

function ordinalScores(units: readonly (readonly number[])[]): number[][] {
  const counts = new Map<number, number>();
  for (const u of units) for (const v of u) counts.set(v, (counts.get(v) ?? 0) + 1);
  const midpoint = new Map<number, number>();
  let cumulative = 0;
  for (const v of [...counts.keys()].sort((a, b) => a - b)) {
    const c = counts.get(v)!;
    midpoint.set(v, cumulative + c / 2);
    cumulative += c;
  }
  return units.map((u) => u.map((v) => midpoint.get(v)!));
}

/**
 * α over units of ratings. Throws {@link InvalidInputError} when ordinal or
 * interval data holds a non-numeric rating.
 */
export function krippendorffAlpha(units: readonly (readonly AlphaRating[])[], level: AlphaLevel = 'nominal'): number {
  const pairable = units
    .map((u) => u.filter((v): v is string | number => !isMissing(v)))
    .filter((u) => u.length >= 2);
  const n = pairable.reduce((s, u) => s + u.length, 0);
  if (n < 2) return NaN;
  let prepared: (readonly (string | number)[])[] = pairable;
  let disagreement: (ratings: readonly (string | number)[]) => number = nominalDisagreement;
  if (level !== 'nominal') {
    const nums = numeric(pairable, level);
    prepared = level === 'ordinal' ? ordinalScores(nums) : nums;
    disagreement = (r) => squaredDisagreement(r as readonly number[]);
  }
  const dObserved = prepared.reduce((s, u) => s + disagreement(u) / (u.length - 1), 0) / n;
  const dExpected = disagreement(prepared.flat()) / (n * (n - 1));
  if (dExpected === 0) return NaN;
  return 1 - dObserved / dExpected;
}
