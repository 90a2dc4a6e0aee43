import { describe, expect, it } from 'vitest';
import { calibrationShift, type DegradedItem } from '../../../../../src/core/scoring/metrics/calibration-shift.ts';

const item = (severity: string | number, confidence: number | null, correct: boolean): DegradedItem => ({ severity, confidence, correct });

describe('calibration shift per degradation severity', () => {
  it('is mean confidence − accuracy per level, and its change from the undegraded level', () => {
    const items = [
      item(2, 0.9, false), item(2, 0.9, false), item(2, 0.8, true), item(2, 0.8, false),
      item(0, 0.9, true), item(0, 0.7, true), item(0, 0.8, false), item(0, 0.6, true),
      item(1, 0.8, true), item(1, 0.9, false),
    ];
    const out = calibrationShift(items);
    expect(out.map((s) => s.severity)).toEqual([0, 1, 2]);
    const [l0, l1, l2] = out;
    expect(l0!.meanConfidence).toBeCloseTo(0.75, 12);
    expect(l0!.accuracy).toBeCloseTo(0.75, 12);
    expect(l0!.shift).toBeCloseTo(0, 12);
    expect(l0!.deltaFromBaseline).toBe(0);
    expect(l1!.shift).toBeCloseTo(0.85 - 0.5, 12);
    expect(l2!.n).toBe(4);
    expect(l2!.shift).toBeCloseTo(0.85 - 0.25, 12);
    expect(l2!.deltaFromBaseline).toBeCloseTo(0.6, 12);
  });

  it('finds "none"/"L0" baselines, orders levels naturally and treats null confidence as 0', () => {
    const out = calibrationShift([item('L10', 0.5, true), item('L2', null, false), item('none', 1, true)]);
    expect(out.map((s) => s.severity)).toEqual(['none', 'L2', 'L10']);
    expect(out[1]!.meanConfidence).toBe(0);
    expect(out[2]!.shift).toBeCloseTo(-0.5, 12);
    expect(out[2]!.deltaFromBaseline).toBeCloseTo(-0.5, 12);
  });

  it('accepts an explicit baseline; without one, deltas are null', () => {
    const items = [item('mild', 0.9, true), item('severe', 0.9, false)];
    expect(calibrationShift(items).map((s) => s.deltaFromBaseline)).toEqual([null, null]);
    const out = calibrationShift(items, { baseline: 'mild' });
    expect(out[1]!.deltaFromBaseline).toBeCloseTo(1, 12);
  });

  it('returns an empty list for no items', () => {
    expect(calibrationShift([])).toEqual([]);
  });
});
