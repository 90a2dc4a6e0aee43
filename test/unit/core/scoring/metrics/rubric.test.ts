import { describe, expect, it } from 'vitest';
import { meanRubricScore, rubricScore } from '../../../../../src/core/scoring/metrics/rubric.ts';

describe('rubric points', () => {
  it('divides met points by positive points', () => {
    const s = rubricScore([{ points: 5, met: true }, { points: 3, met: false }, { points: 2, met: true }])!;
    expect(s.score).toBeCloseTo(0.7, 12);
    expect([s.earned, s.possible]).toEqual([7, 10]);
  });

  it('subtracts met penalties and clips to [0, 1]', () => {
    const s = rubricScore([{ points: 4, met: true }, { points: -2, met: true }, { points: -5, met: false }])!;
    expect(s.score).toBeCloseTo(0.5, 12);
    const negative = rubricScore([{ points: 2, met: false }, { points: -6, met: true }])!;
    expect(negative.score).toBe(0);
    expect(negative.raw).toBeCloseTo(-3, 12);
  });

  it('treats a missing verdict as not met', () => {
    expect(rubricScore([{ points: 1, met: null }, { points: 1, met: true }])!.score).toBeCloseTo(0.5, 12);
  });

  it('is null (not scorable) without positive points', () => {
    expect(rubricScore([])).toBeNull();
    expect(rubricScore([{ points: -1, met: true }, { points: 0, met: true }])).toBeNull();
  });

  it('averages per case (clipped) or clips the mean (HealthBench)', () => {
    const a = rubricScore([{ points: 1, met: true }, { points: -3, met: true }]); // raw −2, score 0
    const b = rubricScore([{ points: 1, met: true }]); // 1
    expect(meanRubricScore([a, b, null])).toBeCloseTo(0.5, 12);
    expect(meanRubricScore([a, b], 'mean')).toBe(0);
    expect(meanRubricScore([null])).toBeNaN();
  });
});
