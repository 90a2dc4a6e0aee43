import { describe, expect, it } from 'vitest';
import {
  addGaussianNoise,
  downsample,
  gaussianBlur,
  gaussianKernel,
  gaussianSource,
  hashSeed,
  KERNEL_ONE,
  mulberry32,
  reduceContrast,
} from '../../../../../src/core/imaging/degrade/ops.ts';
import { rawImage } from '../../../../../src/core/imaging/degrade/pixels.ts';
import { SEVERITY_TABLE } from '../../../../../src/core/imaging/degrade/severities.ts';
import { flatImage, highFrequencyEnergy, stats, testImage } from './helpers.ts';

const img = testImage(96, 96);

describe('PRNG', () => {
  it('mulberry32 is deterministic, seed-dependent and uniform in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const xs = Array.from({ length: 10_000 }, () => a());
    expect(xs.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => b()));
    expect(xs[0]).not.toBe(c());
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(xs.reduce((s, x) => s + x, 0) / xs.length).toBeCloseTo(0.5, 1);
  });

  it('gaussianSource has mean 0 and variance 1', () => {
    const g = gaussianSource(mulberry32(7));
    const xs = Array.from({ length: 20_000 }, () => g());
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length;
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(variance).toBeGreaterThan(0.95);
    expect(variance).toBeLessThan(1.05);
  });

  it('hashSeed is a stable 32-bit hash', () => {
    expect(hashSeed('abc')).toBe(hashSeed('abc'));
    expect(hashSeed('abc')).not.toBe(hashSeed('abd'));
    expect(Number.isInteger(hashSeed('x'))).toBe(true);
    expect(hashSeed('x')).toBeGreaterThanOrEqual(0);
    expect(hashSeed('x')).toBeLessThan(2 ** 32);
  });
});

describe('addGaussianNoise', () => {
  it('keeps the mean and adds noise of the requested σ, growing with severity', () => {
    const base = stats(img);
    let previous = 0;
    for (const sigma of SEVERITY_TABLE.noise) {
      const out = addGaussianNoise(img, sigma, 1234);
      expect(Math.abs(stats(out).mean - base.mean)).toBeLessThan(1);
      const diff = rawImage(img.width, img.height, 1, Uint8Array.from(out.data, (v, i) => v - img.data[i]! + 128));
      expect(stats(diff).std).toBeGreaterThan(sigma * 0.9);
      expect(stats(diff).std).toBeLessThan(sigma * 1.1);
      expect(stats(out).std).toBeGreaterThan(previous);
      previous = stats(out).std;
    }
  });

  it('is deterministic for a seed and differs between seeds', () => {
    expect(addGaussianNoise(img, 16, 1).data).toEqual(addGaussianNoise(img, 16, 1).data);
    expect(addGaussianNoise(img, 16, 1).data).not.toEqual(addGaussianNoise(img, 16, 2).data);
  });

  it('adds the same noise to R, G and B and leaves alpha alone', () => {
    const gray = rawImage(16, 16, 4, new Uint8Array(16 * 16 * 4).map((_, i) => (i % 4 === 3 ? 77 : 128)));
    const out = addGaussianNoise(gray, 30, 9);
    for (let p = 0; p < out.data.length; p += 4) {
      expect(out.data[p + 1]).toBe(out.data[p]);
      expect(out.data[p + 2]).toBe(out.data[p]);
      expect(out.data[p + 3]).toBe(77);
    }
    expect(stats(out).std).toBeGreaterThan(20);
  });
});

describe('gaussianBlur', () => {
  it('uses an exactly normalised integer kernel', () => {
    for (const sigma of [0.5, 1, 2, 4]) {
      const k = gaussianKernel(sigma);
      expect(k.reduce((s, v) => s + v, 0)).toBe(KERNEL_ONE);
      expect(k.length).toBe(2 * Math.max(1, Math.ceil(3 * sigma)) + 1);
      expect(Array.from(k)).toEqual(Array.from(k).reverse());
    }
  });

  it('removes high-frequency energy monotonically with severity and keeps the mean', () => {
    let previous = highFrequencyEnergy(img);
    for (const sigma of SEVERITY_TABLE.blur) {
      const out = gaussianBlur(img, sigma);
      const e = highFrequencyEnergy(out);
      expect(e).toBeLessThan(previous);
      expect(Math.abs(stats(out).mean - stats(img).mean)).toBeLessThan(1);
      previous = e;
    }
  });

  it('leaves a flat image unchanged and never touches alpha', () => {
    expect(gaussianBlur(flatImage(10, 7, 200), 4).data).toEqual(flatImage(10, 7, 200).data);
    const rgba = testImage(20, 20, 4);
    const out = gaussianBlur(rgba, 2);
    for (let p = 3; p < out.data.length; p += 4) expect(out.data[p]).toBe(rgba.data[p]);
  });
});

describe('reduceContrast', () => {
  it('shrinks the standard deviation by the factor around an unchanged mean', () => {
    const base = stats(img);
    for (const factor of SEVERITY_TABLE.contrast) {
      const s = stats(reduceContrast(img, factor));
      expect(s.mean).toBeCloseTo(base.mean, 0);
      expect(s.std / base.std).toBeCloseTo(factor, 1);
    }
  });

  it('uses one mean for all colour channels (hues keep their order)', () => {
    const rgb = rawImage(2, 1, 3, Uint8Array.from([200, 100, 0, 0, 100, 200]));
    expect(Array.from(reduceContrast(rgb, 0.5).data)).toEqual([150, 100, 50, 50, 100, 150]);
  });
});

describe('downsample', () => {
  it('keeps the size, loses detail monotonically and keeps the mean', () => {
    let previous = highFrequencyEnergy(img);
    for (const k of SEVERITY_TABLE.downsample) {
      const out = downsample(img, k);
      expect([out.width, out.height, out.channels]).toEqual([img.width, img.height, 1]);
      const e = highFrequencyEnergy(out);
      expect(e).toBeLessThan(previous);
      expect(Math.abs(stats(out).mean - stats(img).mean)).toBeLessThan(2);
      previous = e;
    }
  });

  it('handles sizes that are not multiples of k, and k = 1 is the identity', () => {
    const odd = testImage(37, 19, 3);
    const out = downsample(odd, 8);
    expect([out.width, out.height, out.channels]).toEqual([37, 19, 3]);
    expect(downsample(odd, 1).data).toEqual(odd.data);
  });

  it('averages boxes exactly: a 2×2 checkerboard at k = 2 becomes flat', () => {
    const checker = rawImage(8, 8, 1, Uint8Array.from({ length: 64 }, (_, i) => (((i >> 3) + i) % 2 ? 200 : 100)));
    expect(new Set(downsample(checker, 2).data)).toEqual(new Set([150]));
  });
});
