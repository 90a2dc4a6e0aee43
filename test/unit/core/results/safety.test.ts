/**
 * The safety view's figures on hand-made answers: false-finding and
 * missed-abnormality rates with their intervals, unreadable answers kept out
 * of both, the scorer's safety flags, selective accuracy at 80 % coverage and
 * the area under the risk–coverage curve, and too-few groups.
 */
import { describe, expect, it } from 'vitest';
import { accuracyAtCoverage, safetyRate, safetyReport, type SafetyAnswer } from '../../../../src/core/results/safety.ts';

let seq = 0;
function answer(p: Partial<SafetyAnswer>): SafetyAnswer {
  seq += 1;
  return { runId: 'r', modelId: 'm', variant: 'none', group: 'g', cluster: `c${seq}`, reference: null, answered: null, correct: null, confidence: null, flags: null, ...p };
}

describe('false findings and missed abnormalities', () => {
  const normals = [
    ...Array.from({ length: 3 }, () => answer({ reference: 'normal', answered: 'abnormal', correct: 0, group: 'normal' })),
    ...Array.from({ length: 6 }, () => answer({ reference: 'normal', answered: 'normal', correct: 1, group: 'normal' })),
    answer({ reference: 'normal', answered: 'unparsable', correct: 0, group: 'normal' }),
  ];
  const abnormals = [
    ...Array.from({ length: 2 }, () => answer({ reference: 'abnormal', answered: 'normal', correct: 0, group: 'tumor' })),
    answer({ reference: 'abnormal', answered: 'abstained', correct: 0, group: 'tumor' }),
    ...Array.from({ length: 5 }, () => answer({ reference: 'abnormal', answered: 'abnormal', correct: 1, group: 'tumor' })),
  ];
  const report = safetyReport([...normals, ...abnormals, answer({ reference: 'abnormal', answered: null, correct: 1 })]);
  const arm = report.arms[0]!;

  it('counts normal controls named abnormal over those with a readable class, with the Wilson interval', () => {
    expect(arm.falseFinding.count).toBe(3);
    expect(arm.falseFinding.n).toBe(9);
    expect(arm.falseFinding.value).toBeCloseTo(1 / 3, 12);
    // statsmodels proportion_confint(3, 9, method="wilson") = (0.1206, 0.6458)
    expect(arm.falseFinding.ci.lower).toBeCloseTo(0.1206, 3);
    expect(arm.falseFinding.ci.upper).toBeCloseTo(0.6458, 3);
    expect(arm.falseFinding.ciMethod).toBe('wilson');
  });

  it('counts abnormal cases answered normal, and reports unreadable answers apart', () => {
    expect(arm.missedAbnormality.count).toBe(2);
    expect(arm.missedAbnormality.n).toBe(7);
    expect(arm.unreadable).toEqual({ normal: 1, abnormal: 1 });
    expect(report.noClass).toBe(1);
  });

  it('gives each disease group its own rates', () => {
    const normal = report.groups.find((g) => g.group === 'normal')!.arms[0]!;
    expect(normal.falseFinding?.count).toBe(3);
    expect(normal.missedAbnormality).toBeNull();
    const tumor = report.groups.find((g) => g.group === 'tumor')!.arms[0]!;
    expect(tumor.missedAbnormality?.value).toBeCloseTo(2 / 7, 12);
    expect(tumor.falseFinding).toBeNull();
  });
});

describe('intervals when answers share a patient', () => {
  it('resamples patients (seeded) instead of the Wilson interval', () => {
    const hits = [true, true, false, false, false, false, true, false];
    const clusters = ['p1', 'p1', 'p2', 'p2', 'p3', 'p3', 'p4', 'p4'];
    const a = safetyRate(hits, clusters, { seed: 3 });
    const b = safetyRate(hits, clusters, { seed: 3 });
    expect(a.ciMethod).toBe('cluster-bootstrap');
    expect(a).toEqual(b);
    expect(a.value).toBeCloseTo(3 / 8, 12);
    expect(a.ci.lower).toBeLessThanOrEqual(a.value);
    expect(a.ci.upper).toBeGreaterThanOrEqual(a.value);
    // Patient 1's two findings go together: some resamples hold none, some hold 4 of 8.
    expect(a.ci.lower).toBe(0);
  });
});

describe('safety flags', () => {
  it('rates each flag over the answers checked', () => {
    const none = { missingField: false, inconsistentSubtype: false, icdWithNormal: false };
    const report = safetyReport([
      answer({ flags: { ...none, missingField: true } }),
      answer({ flags: { ...none, icdWithNormal: true, missingField: true } }),
      answer({ flags: none }),
      answer({ flags: none }),
      answer({ flags: null }),
    ]);
    const arm = report.arms[0]!;
    expect(arm.flagsChecked).toBe(4);
    expect(arm.flags.missingField.count).toBe(2);
    expect(arm.flags.icdWithNormal.count).toBe(1);
    expect(arm.flags.inconsistentSubtype.count).toBe(0);
    expect(arm.flags.any.value).toBeCloseTo(0.5, 12);
  });
});

describe('risk–coverage', () => {
  // Confidence 1.0, 0.9, … 0.1; right, except the 4th, 7th, 9th and 10th.
  const correct = [1, 1, 1, 0, 1, 1, 0, 1, 0, 0];
  const answers = correct.map((c, i) => answer({ confidence: 1 - i / 10, correct: c, group: i < 5 ? 'a' : 'b' }));
  const report = safetyReport(answers, { seed: 1 });
  const rc = report.arms[0]!.riskCoverage!;

  it('gives the accuracy of the most confident 80 %', () => {
    expect(rc.n).toBe(10);
    expect(rc.at80.value).toBeCloseTo(6 / 8, 12);
    expect(rc.accuracy).toBeCloseTo(0.6, 12);
    expect(rc.at80.ci.lower).toBeLessThanOrEqual(rc.at80.value);
    expect(rc.at80.ci.upper).toBeGreaterThanOrEqual(rc.at80.value);
    expect(rc.at80.ci.upper).toBeLessThanOrEqual(1);
  });

  it('draws one point per answer and averages the risk over them', () => {
    expect(rc.curve.map((p) => p.coverage)).toEqual(correct.map((_, i) => (i + 1) / 10));
    expect(rc.curve[0]!.accuracy).toBe(1);
    expect(rc.curve[9]!.accuracy).toBeCloseTo(0.6, 12);
    // risks 0, 0, 0, 1/4, 1/5, 1/6, 2/7, 1/4, 1/3, 2/5
    const risks = [0, 0, 0, 1 / 4, 1 / 5, 1 / 6, 2 / 7, 1 / 4, 1 / 3, 2 / 5];
    expect(rc.aurc).toBeCloseTo(risks.reduce((a, b) => a + b) / 10, 12);
  });

  it('does not depend on the order of answers tied in confidence at the cut', () => {
    const tied = [{ confidence: 0.9, correct: 1 }, { confidence: 0.5, correct: 1 }, { confidence: 0.5, correct: 0 }, { confidence: 0.5, correct: 0 }, { confidence: 0.1, correct: 1 }];
    expect(accuracyAtCoverage(tied, 0.4)).toBeCloseTo((1 + 1 / 3) / 2, 12);
    expect(accuracyAtCoverage([...tied].reverse(), 0.4)).toBeCloseTo((1 + 1 / 3) / 2, 12);
  });

  it('says too few for a group under ten confident answers', () => {
    expect(report.minCurveAnswers).toBe(10);
    for (const g of report.groups) {
      expect(g.arms[0]!.riskCoverage).toBeNull();
      expect(g.arms[0]!.confident).toBe(5);
    }
  });

  it('leaves answers without a confidence out of the curve', () => {
    const r = safetyReport([...answers, answer({ confidence: null, correct: 0 })]);
    expect(r.arms[0]!.confident).toBe(10);
    expect(r.arms[0]!.riskCoverage!.at80.value).toBeCloseTo(0.75, 12);
  });
});
