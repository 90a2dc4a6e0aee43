import { describe, expect, it } from 'vitest';
import { chiSquare1Sf, erfc, normalCdf, normalQuantile } from '../../../../../src/core/scoring/stats/normal.ts';
import { wilsonInterval } from '../../../../../src/core/scoring/stats/wilson.ts';

describe('normal distribution helpers', () => {
  it('inverts the normal CDF accurately (AS 241)', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 14);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(0.05)).toBeCloseTo(-1.6448536269514729, 14);
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361340902404056, 12);
    expect(normalQuantile(1e-300)).toBeCloseTo(-37.0470962993612, 10);
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(normalQuantile(1.5)).toBeNaN();
  });

  it('is consistent with its CDF', () => {
    for (const p of [1e-8, 0.001, 0.1, 0.3, 0.5, 0.8, 0.975, 0.999999]) {
      expect(normalCdf(normalQuantile(p)) / p).toBeCloseTo(1, 10);
    }
  });

  it('computes erfc and the χ²(1) upper tail', () => {
    expect(erfc(0)).toBe(1);
    expect(erfc(1)).toBeCloseTo(0.15729920705028516, 14);
    expect(erfc(3) / 2.2090496998585445e-5).toBeCloseTo(1, 12);
    expect(erfc(-1)).toBeCloseTo(1.8427007929497148, 14);
    expect(chiSquare1Sf(3.841458820694124)).toBeCloseTo(0.05, 12);
    expect(chiSquare1Sf(0)).toBe(1);
  });
});

describe('Wilson interval', () => {
  // docs/reference-values.md#standard-errors-and-intervals (statsmodels proportion_confint(method="wilson")).
  const table: [number, number, number, number][] = [
    [17, 20, 0.639581, 0.947631],
    [5, 5, 0.565518, 1.0],
    [2, 10, 0.056682, 0.509838],
    [5, 10, 0.236593, 0.763407],
    [0, 10, 0, 0.277533],
  ];
  it.each(table)('%i/%i → (%f, %f)', (k, n, lo, hi) => {
    const ci = wilsonInterval(k, n);
    expect(Math.abs(ci.lower - lo)).toBeLessThan(1e-6);
    expect(Math.abs(ci.upper - hi)).toBeLessThan(1e-6);
    expect(ci.estimate).toBeCloseTo(k / n, 12);
  });

  it('narrows with a lower level', () => {
    const ci = wilsonInterval(17, 20, 0.9);
    expect(ci.lower).toBeCloseTo(0.6781719243246932, 9);
    expect(ci.upper).toBeCloseTo(0.9384175895226318, 9);
  });

  it('returns NaN bounds for n = 0 or impossible counts', () => {
    const empty = wilsonInterval(0, 0);
    expect([empty.estimate, empty.lower, empty.upper].every(Number.isNaN)).toBe(true);
    expect(wilsonInterval(3, 2).lower).toBeNaN();
  });
});
