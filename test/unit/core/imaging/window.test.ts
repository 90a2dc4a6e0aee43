import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../src/core/errors.ts';
import { applyWindow, autoWindow, CT_WINDOW_PRESETS, presetWindow, WINDOW_PRESETS } from '../../../../src/core/imaging/window.ts';

/** PS3.3 C.11.2.1.2.1 written out literally, as the reference. */
function reference(x: number, c: number, w: number): number {
  if (x <= c - 0.5 - (w - 1) / 2) return 0;
  if (x > c - 0.5 + (w - 1) / 2) return 255;
  return Math.round(((x - (c - 0.5)) / (w - 1) + 0.5) * 255);
}

describe('window presets', () => {
  it('has the documented CT head windows', () => {
    expect(CT_WINDOW_PRESETS.brain).toEqual({ center: 40, width: 80 });
    expect(CT_WINDOW_PRESETS.stroke).toEqual({ center: 40, width: 40 });
    expect(CT_WINDOW_PRESETS.bone).toEqual({ center: 500, width: 2000 });
    expect(CT_WINDOW_PRESETS.subdural).toEqual({ center: 75, width: 215 });
    expect(WINDOW_PRESETS).toEqual(['brain', 'stroke', 'bone', 'subdural', 'auto']);
    expect(presetWindow('bone')).toEqual({ center: 500, width: 2000, preset: 'bone' });
  });

  it('auto-windows on the 1st–99th percentile', () => {
    const values = Float32Array.from({ length: 101 }, (_, i) => i);
    expect(autoWindow(values)).toEqual({ center: 50, width: 98, preset: 'auto' });
    expect(presetWindow('auto', values)).toEqual({ center: 50, width: 98, preset: 'auto' });
  });

  it('ignores outliers and NaN in the auto window', () => {
    const values = new Float32Array(1000).fill(100);
    for (let i = 0; i < 1000; i++) values[i] = 100 + (i % 200);
    values[0] = 1e9;
    values[1] = -1e9;
    values[2] = Number.NaN;
    const w = autoWindow(values);
    expect(w.center - w.width / 2).toBeGreaterThanOrEqual(100);
    expect(w.center + w.width / 2).toBeLessThanOrEqual(300);
  });

  it('gives a width-1 window for flat or empty images', () => {
    expect(autoWindow(new Float32Array(10).fill(7))).toEqual({ center: 7, width: 1, preset: 'auto' });
    expect(autoWindow(new Float32Array(0))).toEqual({ center: 0, width: 1, preset: 'auto' });
  });
});

describe('applyWindow (DICOM linear VOI LUT)', () => {
  it('matches the standard formula at and around the edges', () => {
    const c = 40;
    const w = 80;
    // Edges: lower = 0, upper = 79.
    const xs = [-1000, -0.5, 0, 0.01, 0.5, 1, 39, 39.5, 40, 40.5, 78.99, 79, 79.01, 80, 3000];
    const got = applyWindow(Float32Array.from(xs), c, w);
    expect(Array.from(got)).toEqual(xs.map((x) => reference(Math.fround(x), c, w)));
    expect(got[2]).toBe(0); // x = lower edge → black
    expect(got[11]).toBe(255); // x = upper edge → white (top of the linear ramp)
    expect(got[8]).toBe(129); // center: ((40 − 39.5)/79 + 0.5) × 255 = 129.1
  });

  it('matches the formula on random values and windows', () => {
    let seed = 42;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let t = 0; t < 50; t++) {
      const c = rand() * 2000 - 1000;
      const w = 1 + rand() * 3000;
      const values = Float32Array.from({ length: 100 }, () => c + (rand() - 0.5) * w * 1.5);
      const got = applyWindow(values, c, w);
      values.forEach((x, i) => expect(got[i]).toBe(reference(x, c, w)));
    }
  });

  it('is the identity for C=128 W=256 on 8-bit values', () => {
    const values = Float32Array.from({ length: 256 }, (_, i) => i);
    expect(Array.from(applyWindow(values, 128, 256))).toEqual(Array.from(values));
  });

  it('thresholds at width 1', () => {
    expect(Array.from(applyWindow(Float32Array.from([9, 9.5, 9.51, 10, 11]), 10, 1))).toEqual([0, 0, 255, 255, 255]);
  });

  it('inverts for MONOCHROME1', () => {
    const values = Float32Array.from([-100, 0, 40, 80, 200]);
    const normal = applyWindow(values, 40, 80);
    const inverted = applyWindow(values, 40, 80, true);
    expect(Array.from(inverted)).toEqual(Array.from(normal, (v) => 255 - v));
  });

  it('maps NaN to the lowest output', () => {
    expect(Array.from(applyWindow(Float32Array.from([Number.NaN]), 40, 80))).toEqual([0]);
  });

  it('refuses widths below 1 and non-finite settings', () => {
    expect(() => applyWindow(new Float32Array(1), 40, 0.5)).toThrow(InvalidInputError);
    expect(() => applyWindow(new Float32Array(1), Number.NaN, 80)).toThrow(InvalidInputError);
    expect(() => applyWindow(new Float32Array(1), 40, Number.POSITIVE_INFINITY)).toThrow(InvalidInputError);
  });
});
