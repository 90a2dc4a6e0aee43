import { describe, expect, it } from 'vitest';
import { krippendorffAlpha } from '../../../../../src/core/scoring/stats/krippendorff.ts';

// docs/reference-values.md, "Krippendorff's α" (Inspect AI tests/scorer/test_krippendorff.py).
describe("Krippendorff's alpha", () => {
  it('nominal: systematic disagreement → −0.75', () => {
    expect(krippendorffAlpha([[0, 1], [0, 1], [1, 0], [1, 0]])).toBeCloseTo(-0.75, 12);
  });

  it('nominal: one off rating → 1 − 132/420', () => {
    expect(krippendorffAlpha([[1, 1, 1], [0, 0, 0], [1, 1, 1], [0, 0, 1]])).toBeCloseTo(1 - 132 / 420, 12);
  });

  it('nominal: uneven raters → 1/3', () => {
    expect(krippendorffAlpha([[1, 1, 0], [0, 0]])).toBeCloseTo(1 / 3, 12);
  });

  it('interval → 19/24', () => {
    expect(krippendorffAlpha([[1, 2], [3, 4], [1, 1]], 'interval')).toBeCloseTo(19 / 24, 12);
  });

  it('ordinal → 94/99', () => {
    expect(krippendorffAlpha([[1, 1], [3, 4], [5, 5]], 'ordinal')).toBeCloseTo(94 / 99, 12);
  });

  it('perfect agreement → 1; all-identical ratings (0/0) and empty → NaN, undefined', () => {
    expect(krippendorffAlpha([['a', 'a'], ['b', 'b'], ['c', 'c']])).toBe(1);
    expect(krippendorffAlpha([[5, 5], [5, 5], [5, 5]])).toBeNaN();
    expect(krippendorffAlpha([['right', 'right'], ['right', 'right', 'right']])).toBeNaN();
    expect(krippendorffAlpha([[1, 1, 1], [3, 3, 3], [5, 5, 5]], 'ordinal')).toBe(1);
    expect(krippendorffAlpha([])).toBeNaN();
    expect(krippendorffAlpha([[1], [2]])).toBeNaN();
  });

  it('drops missing ratings and units left with one rating', () => {
    const withMissing = krippendorffAlpha([[1, 1, null], [0, 0, undefined], [1, NaN, 0], [null, 1]]);
    expect(withMissing).toBeCloseTo(krippendorffAlpha([[1, 1], [0, 0], [1, 0]]), 12);
    expect(krippendorffAlpha([[1, 2, null], [3, 4], [1, 1], [7, null]], 'interval')).toBeCloseTo(19 / 24, 12);
  });

  it('ordinal and interval differ on skewed data', () => {
    const data = [[1, 1, 5], [5, 5, 5], [4, 5, 5], [4, 4, 5]];
    expect(Math.abs(krippendorffAlpha(data, 'ordinal') - krippendorffAlpha(data, 'interval'))).toBeGreaterThan(0.05);
  });

  it('rejects non-numeric ratings for ordinal and interval data', () => {
    expect(() => krippendorffAlpha([['low', 'low'], ['high', 'high']], 'ordinal')).toThrow(/numeric/);
  });
});
