import { describe, expect, it } from 'vitest';
import { bootstrapCi, mulberry32, pairedBootstrap, pairedBootstrapMean, percentile } from '../../../../../src/core/scoring/stats/bootstrap.ts';

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const ones = (k: number, n: number): number[] => Array.from({ length: n }, (_, i) => (i < k ? 1 : 0));

describe('seeded PRNG', () => {
  it('repeats for a seed, differs across seeds, stays in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
    expect(c()).not.toBe(xs[0]);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(mean(xs)).toBeGreaterThan(0.45);
    expect(mean(xs)).toBeLessThan(0.55);
  });
});

describe('percentile bootstrap', () => {
  const data = ones(70, 100);

  it('is deterministic for a seed', () => {
    expect(bootstrapCi(data, mean, { seed: 7 })).toEqual(bootstrapCi(data, mean, { seed: 7 }));
    expect(bootstrapCi(data, mean, { seed: 7 })).not.toEqual(bootstrapCi(data, mean, { seed: 8 }));
  });

  it('contains the point estimate, with a plausible width and standard error', () => {
    const ci = bootstrapCi(data, mean);
    expect(ci.estimate).toBeCloseTo(0.7, 12);
    expect(ci.resamples).toBe(1000);
    expect(ci.lower).toBeLessThan(0.7);
    expect(ci.upper).toBeGreaterThan(0.7);
    expect(ci.lower).toBeGreaterThan(0.58);
    expect(ci.upper).toBeLessThan(0.82);
    expect(ci.standardError).toBeCloseTo(Math.sqrt(0.21 / 100), 2);
  });

  it('resamples whole clusters when cluster ids are given (wider interval for correlated items)', () => {
    // 10 patients × 10 slices; a patient's slices are all right or all wrong.
    const items = Array.from({ length: 100 }, (_, i) => (Math.floor(i / 10) % 3 === 0 ? 0 : 1));
    const clusters = items.map((_, i) => `p${Math.floor(i / 10)}`);
    const iid = bootstrapCi(items, mean, { seed: 1 });
    const clustered = bootstrapCi(items, mean, { seed: 1, clusters });
    expect(clustered.estimate).toBe(iid.estimate);
    expect(clustered.upper - clustered.lower).toBeGreaterThan(1.5 * (iid.upper - iid.lower));
    expect(() => bootstrapCi(items, mean, { clusters: ['a'] })).toThrow(/differ in length/);
  });

  it('drops resamples whose statistic is not finite, and handles empty input', () => {
    const ratio = (s: readonly number[]): number => s.filter((x) => x === 1).length / s.filter((x) => x === 0).length;
    const ci = bootstrapCi([1, 1, 1, 0], ratio, { resamples: 200 });
    expect(ci.resamples).toBeLessThan(200);
    expect(Number.isFinite(ci.lower)).toBe(true);
    const empty = bootstrapCi([], mean);
    expect([empty.estimate, empty.lower, empty.upper, empty.standardError].every(Number.isNaN)).toBe(true);
    expect(empty.resamples).toBe(0);
  });

  it('interpolates quantiles like numpy.percentile', () => {
    expect(percentile([1, 2, 3, 4], 0.25)).toBeCloseTo(1.75, 12);
    expect(percentile([1, 2, 3, 4], 1)).toBe(4);
    expect(percentile([5], 0.5)).toBe(5);
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe('paired bootstrap', () => {
  it('excludes 0 for a clearly better model, with a small p-value', () => {
    const a = ones(90, 100);
    const b = ones(60, 100);
    const r = pairedBootstrapMean(a, b, { seed: 3 });
    expect(r.estimate).toBeCloseTo(0.3, 12);
    expect(r.lower).toBeGreaterThan(0);
    expect(r.upper).toBeGreaterThan(r.estimate);
    expect(r.pValue).toBeLessThan(0.01);
  });

  it('gives p = 1 and a zero interval for identical models', () => {
    const a = ones(50, 80);
    const r = pairedBootstrapMean(a, a);
    expect([r.estimate, r.lower, r.upper, r.pValue]).toEqual([0, 0, 0, 1]);
  });

  it('does not separate two equally good models', () => {
    const a = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 1 : 0));
    const b = Array.from({ length: 100 }, (_, i) => (i % 2 === 1 ? 1 : 0));
    const r = pairedBootstrapMean(a, b, { seed: 11 });
    expect(r.lower).toBeLessThan(0);
    expect(r.upper).toBeGreaterThan(0);
    expect(r.pValue).toBeGreaterThan(0.5);
  });

  it('accepts any statistic of items carrying both models', () => {
    type Pair = { a: boolean; b: boolean };
    const items: Pair[] = Array.from({ length: 60 }, (_, i) => ({ a: i % 4 !== 0, b: i % 2 === 0 }));
    const acc = (s: readonly Pair[], k: 'a' | 'b'): number => s.filter((p) => p[k]).length / s.length;
    const r = pairedBootstrap(items, (s) => acc(s, 'a') - acc(s, 'b'), { seed: 5, resamples: 500 });
    expect(r.estimate).toBeCloseTo(0.75 - 0.5, 12);
    expect(r.resamples).toBe(500);
    expect(r.lower).toBeLessThan(r.estimate);
    expect(() => pairedBootstrapMean([1], [])).toThrow(/differ in length/);
  });
});
