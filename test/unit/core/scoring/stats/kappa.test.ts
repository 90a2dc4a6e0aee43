import { describe, expect, it } from 'vitest';
import { cohenKappa } from '../../../../../src/core/scoring/stats/kappa.ts';

const rep = <T>(value: T, n: number): T[] => new Array<T>(n).fill(value);

// docs/reference-values.md, "Cohen's κ" (scikit-learn test_cohen_kappa; Artstein & Poesio 2008).
describe("Cohen's kappa", () => {
  const y1 = [...rep(0, 40), ...rep(1, 60)];
  const y2 = [...rep(0, 20), ...rep(1, 20), ...rep(0, 10), ...rep(1, 50)];

  it('row 1: 8/23, symmetric', () => {
    expect(cohenKappa(y1, y2)).toBeCloseTo(8 / 23, 12);
    expect(cohenKappa(y2, y1)).toBeCloseTo(8 / 23, 12);
  });

  it('row 2: labels outside the given list are ignored', () => {
    expect(cohenKappa([...y1, ...rep(2, 4)], [...y2, ...rep(2, 4)], { labels: [0, 1] })).toBeCloseTo(8 / 23, 12);
  });

  it('row 3: three categories → 0.8013', () => {
    const a = [...rep(0, 46), ...rep(1, 44), ...rep(2, 10)];
    const b = [...rep(0, 52), ...rep(1, 32), ...rep(2, 16)];
    expect(cohenKappa(a, b)).toBeCloseTo(0.8013, 4);
    expect(cohenKappa(a, b)).toBeCloseTo(0.8013245033112583, 12);
  });

  it('row 4: unweighted 0.9315, linear 0.9412, quadratic 0.9541', () => {
    const a = [...rep(0, 46), ...rep(1, 44), ...rep(2, 10)];
    const b = [...rep(0, 50), ...rep(1, 40), ...rep(2, 10)];
    expect(cohenKappa(a, b)).toBeCloseTo(0.9315, 4);
    expect(cohenKappa(a, b, { weights: 'linear' })).toBeCloseTo(0.9412, 4);
    expect(cohenKappa(a, b, { weights: 'quadratic' })).toBeCloseTo(0.9541, 4);
  });

  it('row 5: a rater agrees perfectly with itself', () => {
    expect(cohenKappa(y1, y1)).toBe(1);
    expect(cohenKappa(y1, y1, { weights: 'quadratic' })).toBe(1);
  });

  it('works on string labels; the label order sets the weights', () => {
    const a = ['mild', 'moderate', 'severe', 'mild'];
    const b = ['mild', 'severe', 'severe', 'moderate'];
    const labels = ['mild', 'moderate', 'severe'];
    expect(cohenKappa(a, b, { labels })).toBeCloseTo(cohenKappa([0, 1, 2, 0], [0, 2, 2, 1]), 12);
    expect(cohenKappa(a, b, { labels, weights: 'linear' })).toBeCloseTo(cohenKappa([0, 1, 2, 0], [0, 2, 2, 1], { weights: 'linear' }), 12);
  });

  it('is NaN when undefined (one category only, or no items)', () => {
    expect(cohenKappa(['a', 'a'], ['a', 'a'])).toBeNaN();
    expect(cohenKappa([], [])).toBeNaN();
    expect(() => cohenKappa([1], [])).toThrow(/different numbers/);
  });
});
