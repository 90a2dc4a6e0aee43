/**
 * Rubric-points scoring (LiveMedBench, QuarkMedBench, HealthBench;
 * docs/protocols.md#related-protocols): each case has rubric items with signed points and a
 * judge's met/unmet verdict. Score = clip(Σ points of met items ÷ Σ positive
 * points, 0, 1). Met negative items (penalties) lower the score.
 *
 * HealthBench (openai/simple-evals `healthbench_eval.py`) keeps per-case
 * scores unclipped and clips only the mean; `raw` and
 * {@link meanRubricScore}'s `clip: 'mean'` reproduce that.
 */

interface RubricItem {
  readonly points: number;
  /** The judge's verdict; null (no verdict) counts as not met. */
  readonly met: boolean | null;
}

interface RubricScore {
  /** clip(earned ÷ possible, 0, 1). */
  readonly score: number;
  /** earned ÷ possible, unclipped. */
  readonly raw: number;
  readonly earned: number;
  readonly possible: number;
}

const clip01 = (x: number): number => Math.min(1, Math.max(0, x));

/** Score for one case; null when the rubric has no positive points (not scorable). */
export function rubricScore(items: readonly RubricItem[]): RubricScore | null {
  let possible = 0;
  let earned = 0;
  for (const item of items) {
    if (item.points > 0) possible += item.points;
    if (item.met === true) earned += item.points;
  }
  if (possible <= 0) return null;
  const raw = earned / possible;
  return { score: clip01(raw), raw, earned, possible };
}

/**
 * Mean over cases, skipping null (not scorable) cases; none left → NaN.
 * `clip: 'case'` (default) averages clipped case scores (LiveMedBench);
 * `'mean'` averages raw scores and clips the mean (HealthBench).
 */
export function meanRubricScore(scores: readonly (RubricScore | null)[], clip: 'case' | 'mean' = 'case'): number {
  const valid = scores.filter((s): s is RubricScore => s !== null);
  if (valid.length === 0) return NaN;
  if (clip === 'case') return valid.reduce((a, s) => a + s.score, 0) / valid.length;
  return clip01(valid.reduce((a, s) => a + s.raw, 0) / valid.length);
}
