import { describe, expect, it } from 'vitest';
import { binomialHalfCdf, mcnemar, mcnemarFromCounts } from '../../../../../src/core/scoring/stats/mcnemar.ts';

describe('McNemar test', () => {
  it('uses the exact binomial test below 25 discordant pairs: b=10, c=2 → 2·79/4096', () => {
    const r = mcnemarFromCounts(10, 2);
    expect(r.method).toBe('exact-binomial');
    expect(r.statistic).toBe(2);
    expect(r.pValue).toBeCloseTo(158 / 4096, 14);
  });

  it('exact: b=13, c=11 → 0.838820; equal counts → 1', () => {
    expect(mcnemarFromCounts(13, 11).pValue).toBeCloseTo(0.8388197422027588, 12);
    expect(mcnemarFromCounts(4, 4).pValue).toBe(1);
    expect(mcnemarFromCounts(0, 0).pValue).toBe(1);
    expect(mcnemarFromCounts(0, 1).pValue).toBe(1);
    expect(mcnemarFromCounts(0, 5).pValue).toBeCloseTo(2 / 32, 14);
  });

  it('uses χ² with continuity correction from 25 discordant pairs', () => {
    const r = mcnemarFromCounts(20, 5); // (15 − 1)²/25 = 7.84
    expect(r.method).toBe('chi-square-corrected');
    expect(r.statistic).toBeCloseTo(7.84, 12);
    expect(r.pValue).toBeCloseTo(0.005110260660855866, 12);
    const big = mcnemarFromCounts(30, 10); // 19²/40 = 9.025
    expect(big.statistic).toBeCloseTo(9.025, 12);
    expect(big.pValue).toBeCloseTo(0.002663119259138558, 12);
  });

  it('can be forced to either method', () => {
    expect(mcnemarFromCounts(100, 70, { method: 'exact-binomial' }).pValue).toBeCloseTo(0.025844387581341693, 12);
    expect(mcnemarFromCounts(100, 70, { method: 'chi-square-corrected' }).pValue).toBeCloseTo(0.02613509411386816, 12);
    expect(mcnemarFromCounts(600, 500, { method: 'exact-binomial' }).pValue).toBeCloseTo(0.0028195449914364284, 12);
  });

  it('counts discordant pairs from per-item correctness', () => {
    const a = [true, true, true, false, false, true];
    const b = [true, false, false, false, true, true];
    const r = mcnemar(a, b);
    expect([r.b, r.c]).toEqual([2, 1]);
    expect(r.pValue).toBe(1);
    expect(() => mcnemar([true], [])).toThrow(/same items/);
    expect(() => mcnemarFromCounts(-1, 2)).toThrow(/non-negative/);
  });

  it('computes the binomial(n, ½) CDF', () => {
    expect(binomialHalfCdf(2, 12)).toBeCloseTo(79 / 4096, 15);
    expect(binomialHalfCdf(12, 12)).toBe(1);
    expect(binomialHalfCdf(-1, 12)).toBe(0);
  });
});
