import { describe, expect, it } from 'vitest';
import { meanPassAtKRanked, meanPassAtKUnbiased, passAtKRanked, passAtKUnbiased } from '../../../../../src/core/scoring/metrics/passk.ts';

describe('pass@k over a ranked list', () => {
  it('passes when one of the top-k hypotheses is equivalent', () => {
    const ranked = [false, false, true, false];
    expect(passAtKRanked(ranked, 1)).toBe(false);
    expect(passAtKRanked(ranked, 2)).toBe(false);
    expect(passAtKRanked(ranked, 3)).toBe(true);
    expect(passAtKRanked(ranked, 10)).toBe(true);
    expect(passAtKRanked([], 5)).toBe(false);
    expect(passAtKRanked([true], 0)).toBe(false);
  });

  it('averages over cases; no cases → NaN', () => {
    expect(meanPassAtKRanked([[true], [false, true], [false, false]], 1)).toBeCloseTo(1 / 3, 12);
    expect(meanPassAtKRanked([[true], [false, true], [false, false]], 2)).toBeCloseTo(2 / 3, 12);
    expect(meanPassAtKRanked([], 1)).toBeNaN();
  });
});

describe('unbiased pass@k (1 − C(n−c, k)/C(n, k))', () => {
  it('matches hand-computed binomial ratios', () => {
    expect(passAtKUnbiased(10, 3, 1)).toBeCloseTo(0.3, 12);
    expect(passAtKUnbiased(5, 2, 2)).toBeCloseTo(1 - 3 / 10, 12); // C(3,2)/C(5,2) = 3/10
    expect(passAtKUnbiased(10, 2, 5)).toBeCloseTo(1 - 56 / 252, 12); // C(8,5)/C(10,5)
    expect(passAtKUnbiased(4, 0, 2)).toBe(0);
    expect(passAtKUnbiased(4, 3, 2)).toBe(1); // n − c < k
    expect(passAtKUnbiased(3, 3, 3)).toBe(1);
  });

  it('stays finite for large n (product form, no huge binomials)', () => {
    // C(n−c,k)/C(n,k) = Π_{i=0}^{k−1} (n−c−i)/(n−i)
    let ratio = 1;
    for (let i = 0; i < 100; i++) ratio *= (2000 - 37 - i) / (2000 - i);
    expect(passAtKUnbiased(2000, 37, 100)).toBeCloseTo(1 - ratio, 12);
  });

  it('is NaN where undefined: k > n, k < 1, c outside [0, n]', () => {
    expect(passAtKUnbiased(3, 0, 5)).toBeNaN();
    expect(passAtKUnbiased(3, 1, 0)).toBeNaN();
    expect(passAtKUnbiased(3, 4, 1)).toBeNaN();
    expect(passAtKUnbiased(3, -1, 1)).toBeNaN();
  });

  it('averages over cases, skipping undefined ones', () => {
    expect(meanPassAtKUnbiased([{ n: 10, c: 3 }, { n: 10, c: 0 }, { n: 1, c: 1 }], 2)).toBeCloseTo((1 - 21 / 45) / 2, 12);
    expect(meanPassAtKUnbiased([], 1)).toBeNaN();
  });
});
