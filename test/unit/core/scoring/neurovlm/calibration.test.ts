/**
 * NeuroVLM-Bench's calibration inputs and ECE as its evaluator computes them.
 * Expected values were printed by CPython 3.11 and NumPy (Debian bookworm)
 * running the evaluator's own expressions: `float(x)`, `np.linspace(0, 1, 11)`,
 * and `ece_binned` on the vectors below.
 */
import { describe, expect, it } from 'vitest';
import { linspaceEdges, neuroVlmEce, pythonFloat } from '../../../../../src/core/scoring/neurovlm/calibration.ts';
import { scoreNeuroVlm } from '../../../../../src/core/scoring/neurovlm/score.ts';
import type { NeuroVlmItem } from '../../../../../src/core/scoring/neurovlm/types.ts';

describe('NeuroVLM-Bench calibration, as the evaluator computes it', () => {
  it("reads a confidence as Python's float() does, null where Python raises", () => {
    const cases: [unknown, number | null][] = [
      [true, 1], [false, 0], [0.9, 0.9], [' 0.9 ', 0.9], ['inf', Infinity], ['-Infinity', -Infinity], ['90%', null], [null, null], [[0.5], null],
      ['1_000.5', 1000.5], ['1__0', null], ['.5', 0.5], ['1.', 1], ['1e-1', 0.1], ['+.5e+1', 5], ['0x10', null], ['', null], [' ', null], ['١٢', 12],
    ];
    for (const [x, want] of cases) expect(pythonFloat(x), JSON.stringify(x)).toBe(want);
    expect(pythonFloat('nan')).toBeNaN();
    expect(pythonFloat('-NaN')).toBeNaN();
  });

  it("bins with NumPy's linspace edges, not k/10", () => {
    expect(linspaceEdges(10)).toEqual([0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6000000000000001, 0.7000000000000001, 0.8, 0.9, 1]);
    // 0.30000000000000004 sits on an edge where k/10 = 0.3 would move it one bin up; -0.2 and 1.7 are clipped.
    const conf = [0.30000000000000004, 0.3, 0.6000000000000001, 0.6, 0, 1, 1.7, -0.2, 0.95, 0.05];
    const correct = [1, 0, 1, 0, 0, 1, 1, 0, 1, 0].map(Boolean);
    expect(neuroVlmEce(conf, correct)).toBe(0.06999999999999998);
    // A NaN confidence is in no bin but counts in N.
    expect(neuroVlmEce([0.9, NaN, 0.8], [true, false, true])).toBe(0.09999999999999998);
  });

  it('scores true as confidence 1 and "inf" as 1; a "nan" makes ECE, Brier and AUROC NaN as the evaluator reports them', () => {
    const item = (id: string, conf: unknown, right: boolean): NeuroVlmItem => ({
      id,
      modelId: 'm',
      gold: { diagnosis_name: 'tumor' },
      answer: { kind: 'parsed', value: { diagnosis_name: right ? 'tumor' : 'stroke', diagnosis_confidence: conf } },
      latencyMs: null,
      usage: { promptTokens: null, completionTokens: null },
    });
    const ok = scoreNeuroVlm([item('a', true, true), item('b', 'inf', true), item('c', 0.25, false)]);
    expect(ok.calibration.missingConfidence).toBe(0);
    expect(ok.calibration.meanConfidence).toBeCloseTo((1 + 1 + 0.25) / 3, 12);
    expect(ok.calibration.ece).toBeCloseTo((2 / 3) * 0 + (1 / 3) * 0.25, 12);
    const refused = scoreNeuroVlm([item('a', 0.9, true), item('b', 'nan', false)]);
    expect(refused.calibration.ece).toBeNaN();
    expect(refused.calibration.brier).toBeNaN();
    expect(refused.calibration.auroc).toBeNaN();
  });
});
