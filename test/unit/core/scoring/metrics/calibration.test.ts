import { describe, expect, it } from 'vitest';
import {
  auroc, binIndex, brierScore, calibrationReport, expectedCalibrationError, prepareConfidence, reliabilityPoints,
} from '../../../../../src/core/scoring/metrics/calibration.ts';

/** Top-label confidence and correctness from class-probability rows (as verified_calibration). */
function topLabel(probs: number[][], labels: number[]): { conf: number[]; correct: boolean[] } {
  const conf = probs.map((p) => Math.max(...p));
  const correct = probs.map((p, i) => p.indexOf(Math.max(...p)) === labels[i]);
  return { conf, correct };
}

// Rows of docs/reference-values.md#expected-calibration-error (verified_calibration, scikit-learn).
describe('calibration', () => {
  it('ECE row 1: verified_calibration get_ece, 3 bins → 0.075', () => {
    const { conf, correct } = topLabel(
      [[0.8, 0.1, 0.1], [0.6, 0.2, 0.2], [0, 0.9, 0.1], [0, 1, 0], [0.3, 0.3, 0.4], [0.2, 0, 0.85]],
      [0, 0, 1, 1, 0, 2],
    );
    expect(expectedCalibrationError(conf, correct, 3)).toBeCloseTo(0.075, 12);
  });

  it('ECE row 2: get_ece([[0.9,0.1],[0.8,0.2]], [0,0]) with 15 bins → 0.15', () => {
    const { conf, correct } = topLabel([[0.9, 0.1], [0.8, 0.2]], [0, 0]);
    expect(expectedCalibrationError(conf, correct, 15)).toBeCloseTo(0.15, 12);
  });

  it('ECE row 4: binary probabilities as confidence in label 1 → 4/9·0.25 + 5/9·0.2', () => {
    const probs = [0.5, 0.5, 0.5, 0.6, 0.5, 0.6, 0.6, 0.6, 0.6];
    const labels = [0, 1, 0, 1, 0, 1, 1, 1, 0];
    expect(expectedCalibrationError(probs, labels.map((l) => l === 1), 10)).toBeCloseTo((4 / 9) * 0.25 + (5 / 9) * 0.2, 12);
  });

  it('ECE row 5: sklearn calibration_curve points, 2 bins → true [0, 1], pred [0.1, 0.9]', () => {
    const pts = reliabilityPoints([0, 0.1, 0.2, 0.8, 0.9, 1], [false, false, false, true, true, true], 2);
    expect(pts.map((p) => p.accuracy)).toEqual([0, 1]);
    expect(pts[0]!.meanConfidence).toBeCloseTo(0.1, 12);
    expect(pts[1]!.meanConfidence).toBeCloseTo(0.9, 12);
    expect(pts.map((p) => p.count)).toEqual([3, 3]);
  });

  it('puts edge values in the lower bin: [0, 0.1], then (0.1, 0.2], …', () => {
    expect(binIndex(0, 10)).toBe(0);
    for (let k = 1; k <= 10; k++) expect([k, binIndex(k / 10, 10)]).toEqual([k, k - 1]);
    expect(binIndex(0.1000001, 10)).toBe(1);
    expect(binIndex(0.3000001, 10)).toBe(3);
    expect(binIndex(1, 15)).toBe(14);
    expect(binIndex(0.8, 15)).toBe(11);
    // conf 0 and 0.1 share bin 0 (acc 0.5, conf 0.05); 1.0 is alone in bin 9.
    expect(expectedCalibrationError([0, 0.1, 1], [false, true, true])).toBeCloseTo((2 / 3) * 0.45, 12);
    expect(reliabilityPoints([0, 0.1, 1], [false, true, true]).map((p) => p.bin)).toEqual([0, 9]);
  });

  it('maps a missing confidence to 0 and clips to [0, 1]', () => {
    expect([prepareConfidence(null), prepareConfidence(undefined), prepareConfidence(NaN)]).toEqual([0, 0, 0]);
    expect([prepareConfidence(1.7), prepareConfidence(-0.2), prepareConfidence(0.42)]).toEqual([1, 0, 0.42]);
    expect(brierScore([null, 1.5], [false, true])).toBe(0);
  });

  it('computes the Brier score on correct/incorrect', () => {
    expect(brierScore([0.95, 0.85], [true, true])).toBeCloseTo((0.05 ** 2 + 0.15 ** 2) / 2, 12);
    expect(brierScore([0.8, 0.3], [false, true])).toBeCloseTo((0.64 + 0.49) / 2, 12);
  });

  it('computes AUROC with ties counting one half (Mann–Whitney)', () => {
    const conf = [0.9, 0.8, 0.8, 0.7, 0.6, 0.6, 0.5, 0.2];
    const correct = [true, true, false, true, false, true, false, false];
    expect(auroc(conf, correct)).toBeCloseTo(13 / 16, 12);
    expect(auroc([0.1, 0.9], [false, true])).toBe(1);
    expect(auroc([0.9, 0.1], [false, true])).toBe(0);
  });

  it('all-same confidence: one bin, AUROC 0.5', () => {
    const rep = calibrationReport([0.7, 0.7, 0.7, 0.7], [true, true, true, false]);
    expect(rep.ece).toBeCloseTo(0.05, 12);
    expect(rep.reliability).toHaveLength(1);
    expect(rep.reliability[0]!.bin).toBe(6);
    expect(rep.auroc).toBe(0.5);
  });

  it('all correct: AUROC is undefined (NaN), ECE and Brier stay defined', () => {
    const rep = calibrationReport([0.95, 0.85], [true, true]);
    expect(rep.auroc).toBeNaN();
    expect(rep.ece).toBeCloseTo(0.5 * 0.05 + 0.5 * 0.15, 12);
    expect(rep.accuracy).toBe(1);
    expect(rep.meanConfidence).toBeCloseTo(0.9, 12);
  });

  it('empty input gives NaN figures and no points, without throwing', () => {
    const rep = calibrationReport([], []);
    expect([rep.ece, rep.brier, rep.auroc, rep.accuracy, rep.meanConfidence].every(Number.isNaN)).toBe(true);
    expect(rep.reliability).toEqual([]);
  });

  it('rejects mismatched lengths and bad bin counts', () => {
    expect(() => brierScore([0.5], [])).toThrow(/differ in length/);
    expect(() => expectedCalibrationError([0.5], [true], 0)).toThrow(/bins/);
  });
});
