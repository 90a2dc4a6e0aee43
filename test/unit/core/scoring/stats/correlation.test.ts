import { describe, expect, it } from 'vitest';
import { clusteredStandardError, pearson, standardError } from '../../../../../src/core/scoring/stats/correlation.ts';

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe('Pearson correlation', () => {
  it('matches a hand computation and reports n', () => {
    const r = pearson([1, 2, 3, 4, 5], [2, 4, 5, 4, 5]);
    expect(r.r).toBeCloseTo(6 / Math.sqrt(60), 12);
    expect(r.n).toBe(5);
    expect(pearson([1, 2, 3], [6, 4, 2]).r).toBeCloseTo(-1, 12);
    expect(pearson([1, 2, 3], [10, 20, 30]).r).toBeCloseTo(1, 12);
  });

  it('is NaN for zero variance or fewer than two pairs', () => {
    expect(pearson([1, 1, 1], [1, 2, 3]).r).toBeNaN();
    expect(pearson([1], [2]).r).toBeNaN();
    expect(pearson([], []).n).toBe(0);
    expect(() => pearson([1], [])).toThrow(/paired/);
  });
});

// docs/reference-values.md#standard-errors-and-intervals (Inspect AI tests/scorer/test_metric.py).
describe('standard errors', () => {
  it('stderr of 0..9 → 0.957', () => {
    expect(standardError(range(10))).toBeCloseTo(0.957, 3);
    expect(standardError([1])).toBeNaN();
  });

  it('clustered stderr (CR1) of 0..19 with cluster = i mod 4 → 0.645', () => {
    const values = range(20);
    expect(clusteredStandardError(values, values.map((i) => i % 4))).toBeCloseTo(0.645, 3);
  });

  it('is NaN with fewer than two clusters or no values', () => {
    expect(clusteredStandardError([1, 2], ['a', 'a'])).toBeNaN();
    expect(clusteredStandardError([], [])).toBeNaN();
    expect(() => clusteredStandardError([1], [])).toThrow(/differ in length/);
  });
});
