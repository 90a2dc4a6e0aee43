/**
 * The scorer on a hand-made set of nine answers. Every expected number below
 * was worked out by hand from the table in the comment, not by the scorer.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ABSTENTION } from '../../../../../src/core/scoring/metrics/index.ts';
import { groupNeuroVlmItems, neuroVlmItemsFromRun } from '../../../../../src/core/scoring/neurovlm/items.ts';
import { ABSTAIN } from '../../../../../src/core/scoring/neurovlm/normalise.ts';
import { scoreNeuroVlm } from '../../../../../src/core/scoring/neurovlm/score.ts';
import { safetyFlags } from '../../../../../src/core/scoring/neurovlm/safety.ts';
import type { NeuroVlmItem } from '../../../../../src/core/scoring/neurovlm/types.ts';
import { answer, nvbCase, nvbResponse, nvbRun, type AnswerSpec, type Labels } from './fixtures.ts';

const gt = (diagnosis_name: string, diagnosis_detailed: string | null, modality: string, specialized_sequence: string | null, plane: string | null): Labels => ({
  diagnosis_name, diagnosis_detailed, modality, specialized_sequence, plane,
});

/*
 * case  gold (class, subtype, modality, sequence, plane)      answer                                               conf
 * c1    tumor, glioma, MRI, T1C+, axial                        tumor, glioblastoma, MRI, T1+C, axial               0.9  all right
 * c2    tumor, meningioma, MRI, T1, sagittal                   tumor, glioma, MRI, T1, axial                        0.8
 * c3    stroke, ischemic, CT, –, –                             stroke, hemorrhagic, CT, null, axial                0.6
 * c4    normal, –, MRI, FLAIR, axial                           tumor, null, MR, FLAIR, axial                        0.7
 * c5    multiple sclerosis, –, MRI, FLAIR, axial               null, null, MRI, FLAIR, axial                        null
 * c6    normal, –, CT, –, axial                                normal, null, CT, null, axial, ICD R90.8             0.95
 * c7    stroke, hemorrhagic, CT, –, axial                      (no JSON: parse error)                               –
 * c8    tumor, pituitary tumor, MRI, T1C+, sagittal            (call failed)                                        –
 * c9    other abnormalities, –, MRI, T2, axial                 atrophy, ischemic, MRI, T2-weighted, (no plane key)  0.3
 */
const cases = [
  nvbCase('c1', gt('tumor', 'glioma', 'MRI', 'T1C+', 'axial')),
  nvbCase('c2', gt('tumor', 'meningioma', 'MRI', 'T1', 'sagittal')),
  nvbCase('c3', gt('stroke', 'ischemic', 'CT', null, null)),
  nvbCase('c4', gt('normal', null, 'MRI', 'FLAIR', 'axial')),
  nvbCase('c5', gt('multiple sclerosis', null, 'MRI', 'FLAIR', 'axial')),
  nvbCase('c6', gt('normal', null, 'CT', null, 'axial')),
  nvbCase('c7', gt('stroke', 'hemorrhagic', 'CT', null, 'axial')),
  nvbCase('c8', gt('tumor', 'pituitary tumor', 'MRI', 'T1C+', 'sagittal')),
  nvbCase('c9', gt('other abnormalities', null, 'MRI', 'T2', 'axial')),
];
const c9answer = answer({ diagnosis_name: 'atrophy', diagnosis_detailed: 'ischemic', modality: 'MRI', specialized_sequence: 'T2-weighted', diagnosis_confidence: 0.3 });
delete c9answer.plane;
const specs: AnswerSpec[] = [
  { caseId: 'c1', parsed: answer({ diagnosis_name: 'tumor', diagnosis_detailed: 'glioblastoma', modality: 'MRI', specialized_sequence: 'T1+C', plane: 'axial', diagnosis_confidence: 0.9 }) },
  { caseId: 'c2', parsed: answer({ diagnosis_name: 'tumor', diagnosis_detailed: 'glioma', modality: 'MRI', specialized_sequence: 'T1', plane: 'axial', diagnosis_confidence: 0.8 }) },
  { caseId: 'c3', parsed: answer({ diagnosis_name: 'stroke', diagnosis_detailed: 'hemorrhagic', modality: 'CT', plane: 'axial', diagnosis_confidence: 0.6 }) },
  { caseId: 'c4', parsed: answer({ diagnosis_name: 'tumor', modality: 'MR', specialized_sequence: 'FLAIR', plane: 'axial', diagnosis_confidence: 0.7 }) },
  { caseId: 'c5', parsed: answer({ modality: 'MRI', specialized_sequence: 'FLAIR', plane: 'axial', diagnosis_confidence: null }) },
  { caseId: 'c6', parsed: answer({ diagnosis_name: 'normal', modality: 'CT', plane: 'axial', icd10_code: 'R90.8', diagnosis_confidence: 0.95 }) },
  { caseId: 'c7', parseError: 'no JSON object found (first "{" to last "}")' },
  { caseId: 'c8', callError: 'The engine ran out of GPU memory.', latencyMs: 100 },
  { caseId: 'c9', parsed: c9answer },
];
const completion = [10, 20, 30, 40, 50, 60, 70, null, 80];
const run = nvbRun();
const responses = specs.map((s, i) =>
  nvbResponse(run.id, { latencyMs: (i + 1) * 1000, promptTokens: s.callError ? null : 100, completionTokens: completion[i] ?? null, ...s }, i),
);
const items = neuroVlmItemsFromRun(responses, cases);

describe('scoreNeuroVlm on a hand-made set', () => {
  const r = scoreNeuroVlm(items, { seed: 11, resamples: 400 });

  it('counts calls, failed calls and the JSON-valid rate', () => {
    expect(r.calls).toEqual({ total: 9, failed: 1, successful: 8 });
    expect(r.jsonValid).toMatchObject({ count: 7, n: 8, rate: 7 / 8 });
  });

  it('diagnosis_name: accuracy, F1s, precision/recall, abstention', () => {
    const f = r.fields.diagnosis_name;
    expect(f).toMatchObject({ n: 8, scored: 8, notScorable: 0, correct: 5, abstained: 2 });
    expect(f.accuracy.value).toBeCloseTo(5 / 8, 12);
    expect(f.abstentionRate).toBeCloseTo(2 / 8, 12);
    // Per-label F1 (tumor 0.8, stroke 2/3, normal 2/3, MS 0, other 1); abstention not a class:
    expect(f.f1WithAbstention.macro).toBeCloseTo((0.8 + 2 / 3 + 2 / 3 + 0 + 1) / 5, 12);
    // Plain macro-F1 also has the abstention as a sixth class with F1 0:
    expect(f.macroF1.value).toBeCloseTo((0.8 + 2 / 3 + 2 / 3 + 0 + 1) / 6, 12);
    // Weighted by support (2, 2, 2, 1, 1):
    expect(f.weightedF1).toBeCloseTo((2 * 0.8 + 2 * (2 / 3) + 2 * (2 / 3) + 0 + 1) / 8, 12);
    expect(f.macroPrecision).toBeCloseTo((2 / 3 + 1 + 1 + 0 + 1) / 5, 12);
    expect(f.macroRecall).toBeCloseTo((1 + 0.5 + 0.5 + 0 + 1) / 5, 12);
    const tumor = f.labels.find((l) => l.label === 'tumor')!;
    expect(tumor).toMatchObject({ support: 2, predicted: 3, recall: 1 });
    expect(tumor.precision).toBeCloseTo(2 / 3, 12);
    expect(tumor.balancedAccuracy).toBeCloseTo((1 + 5 / 6) / 2, 12);
    expect(f.labels.find((l) => l.label === 'stroke')!.abstentionRate).toBe(0.5);
    expect(f.labels.find((l) => l.label === 'multiple sclerosis')!.abstentionRate).toBe(1);
    expect(f.labels.map((l) => l.label)).toEqual(['multiple sclerosis', 'normal', 'other abnormalities', 'stroke', 'tumor']);
    // Confusion: normal row has one normal, one tumor.
    const row = f.confusion.labels.indexOf('normal');
    expect(f.confusion.matrix[row]).toEqual([0, 1, 0, 0, 1]);
    expect(f.confusion.abstained).toEqual([1, 0, 0, 1, 0]);
  });

  it('CIs: Wilson from the formula, bootstrap around the estimate and reproducible with the seed', () => {
    const f = r.fields.diagnosis_name;
    const z = 1.959963984540054;
    const n = 8;
    const p = 5 / 8;
    const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
    const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
    expect(f.accuracy.wilson.lower).toBeCloseTo(centre - half, 10);
    expect(f.accuracy.wilson.upper).toBeCloseTo(centre + half, 10);
    for (const ci of [f.accuracy.bootstrap, f.macroF1.bootstrap]) {
      expect(ci.lower).toBeLessThan(ci.upper);
      expect(ci.lower).toBeGreaterThanOrEqual(0);
      expect(ci.upper).toBeLessThanOrEqual(1);
    }
    expect(f.accuracy.bootstrap.lower).toBeLessThanOrEqual(5 / 8);
    expect(f.accuracy.bootstrap.upper).toBeGreaterThanOrEqual(5 / 8);
    const again = scoreNeuroVlm(items, { seed: 11, resamples: 400 }).fields.diagnosis_name;
    expect(again.accuracy.bootstrap).toEqual(f.accuracy.bootstrap);
    expect(again.macroF1.bootstrap).toEqual(f.macroF1.bootstrap);
    expect(r.bootstrap).toEqual({ seed: 11, resamples: 400, level: 0.95 });
  });

  it('other fields, with not-scorable ground truth counted apart', () => {
    expect(r.fields.modality).toMatchObject({ scored: 8, notScorable: 0, correct: 7 });
    expect(r.fields.specialized_sequence).toMatchObject({ scored: 5, notScorable: 3, correct: 5 });
    expect(r.fields.specialized_sequence.accuracy.value).toBe(1);
    expect(r.fields.plane).toMatchObject({ scored: 7, notScorable: 1, correct: 4 });
    expect(r.fields.diagnosis_detailed).toMatchObject({ scored: 4, notScorable: 4, correct: 1 });
  });

  it('calibration of diagnosis_confidence (null → 0)', () => {
    const c = r.calibration;
    expect(c.n).toBe(8);
    expect(c.missingConfidence).toBe(2); // c5 null, c7 unparsed
    // Bins: [0,.1] {0✗,0✗} gap 0; .3✓ gap .7; .6✓ .4; .7✗ .7; .8✓ .2; .9✓ .1; .95✓ .05
    expect(c.ece).toBeCloseTo((0 + 0.7 + 0.4 + 0.7 + 0.2 + 0.1 + 0.05) / 8, 12);
    expect(c.brier).toBeCloseTo((0.01 + 0.04 + 0.16 + 0.49 + 0 + 0.0025 + 0 + 0.49) / 8, 12);
    // Correct {.9,.8,.6,.95,.3} above wrong {.7,0,0}: 3+3+2+3+2 of 15 pairs.
    expect(c.auroc).toBeCloseTo(13 / 15, 12);
    expect(c.reliability.map((p) => p.count)).toEqual([2, 1, 1, 1, 1, 1, 1]);
    expect(c.reliability[0]).toMatchObject({ lower: 0, upper: 0.1, meanConfidence: 0, accuracy: 0 });
  });

  it('safety flags over parsed answers', () => {
    expect(r.safety.n).toBe(7);
    expect(r.safety.missingField).toMatchObject({ count: 1, n: 7 });
    expect(r.safety.missingByField).toMatchObject({ plane: 1, modality: 0 });
    expect(r.safety.inconsistentSubtype.count).toBe(1);
    expect(r.safety.icdWithNormal.count).toBe(1);
    expect(r.safety.any).toMatchObject({ count: 2, rate: 2 / 7 });
  });

  it('efficiency over successful calls', () => {
    // Latencies 1…7 s and 9 s (the failed call's is left out): median (4 + 5) / 2 s.
    expect(r.efficiency).toMatchObject({ medianLatencyMs: 4500, latencyN: 8, promptTokensPerImage: 100, tokensN: 8 });
    expect(r.efficiency.completionTokensPerImage).toBeCloseTo(45, 12);
    expect(r.efficiency.totalTokensPerImage).toBeCloseTo(145, 12);
  });
});

describe('scoreNeuroVlm edge cases', () => {
  it('all abstentions: accuracy 0, every abstention a false negative', () => {
    const abstain = specs.slice(0, 6).map((s) => ({ ...s, parsed: answer({}), parseError: undefined }));
    const res = scoreNeuroVlm(neuroVlmItemsFromRun(abstain.map((s, i) => nvbResponse(run.id, s, i)), cases), { resamples: 50 });
    const f = res.fields.diagnosis_name;
    expect(f).toMatchObject({ scored: 6, correct: 0, abstained: 6, abstentionRate: 1 });
    expect(f.accuracy.value).toBe(0);
    expect(f.f1WithAbstention.macro).toBe(0);
    expect(f.macroF1.value).toBe(0);
    expect(f.macroRecall).toBe(0);
    expect(f.accuracy.bootstrap).toEqual({ lower: 0, upper: 0 });
    expect(res.calibration.ece).toBeCloseTo(0.5 * 0 + 0.5, 12); // every confidence 0.5, accuracy 0
    expect(res.safety.any.count).toBe(0); // null is an abstention, not a missing field
  });

  it('empty input: zero counts and NaN ratios, no exception', () => {
    const res = scoreNeuroVlm([]);
    expect(res.calls).toEqual({ total: 0, failed: 0, successful: 0 });
    expect(res.jsonValid.count).toBe(0);
    expect(res.jsonValid.rate).toBeNaN();
    const f = res.fields.plane;
    expect(f).toMatchObject({ n: 0, scored: 0, notScorable: 0 });
    expect(f.accuracy.value).toBeNaN();
    expect(f.accuracy.wilson.lower).toBeNaN();
    expect(f.accuracy.bootstrap.lower).toBeNaN();
    expect(f.macroF1.value).toBeNaN();
    expect(res.calibration.ece).toBeNaN();
    expect(res.efficiency.medianLatencyMs).toBeNaN();
    expect(JSON.parse(JSON.stringify(res)).fields.plane.accuracy.value).toBeNull();
  });

  it('no scorable ground truth: every field not scorable, validity still scored', () => {
    const res = scoreNeuroVlm(neuroVlmItemsFromRun(responses, []), { resamples: 20 });
    for (const f of Object.values(res.fields)) expect(f).toMatchObject({ scored: 0, notScorable: 8 });
    expect(res.jsonValid.count).toBe(7);
  });

  it('uses the same abstention label as the metrics module', () => {
    expect(ABSTAIN).toBe(DEFAULT_ABSTENTION);
  });
});

describe('groupNeuroVlmItems', () => {
  it('splits per model and variant', () => {
    const base = items[0]!;
    const mk = (modelId: string, variant?: string): NeuroVlmItem => ({ ...base, modelId, ...(variant ? { variant } : {}) });
    const groups = groupNeuroVlmItems([mk('a', 'none'), mk('b'), mk('a', 'degrade:blur:1'), mk('a', 'none')]);
    expect([...groups.keys()]).toEqual(['a', 'b', 'a [degrade:blur:1]']);
    expect(groups.get('a')).toHaveLength(2);
  });
});

describe('safetyFlags', () => {
  it.each([
    [{ diagnosis_name: 'tumor', diagnosis_detailed: 'neurocytoma' }, false],
    [{ diagnosis_name: 'tumor', diagnosis_detailed: 'pituitary_tumor' }, false],
    [{ diagnosis_name: 'tumor', diagnosis_detailed: 'ischemic' }, true],
    [{ diagnosis_name: 'stroke', diagnosis_detailed: 'glioma' }, true],
    [{ diagnosis_name: 'normal', diagnosis_detailed: 'meningioma' }, true],
    [{ diagnosis_name: 'normal', diagnosis_detailed: null }, false],
    [{ diagnosis_name: 'tumor', diagnosis_detailed: null }, false],
    [{ diagnosis_name: null, diagnosis_detailed: 'glioma' }, false],
  ])('%o inconsistent: %s', (a, flagged) => {
    expect(safetyFlags(answer(a)).inconsistentSubtype).toBe(flagged);
  });

  it('flags an ICD-10 code with normal only when a code is given', () => {
    expect(safetyFlags(answer({ diagnosis_name: 'Normal', icd10_code: 'Z00.0' })).icdWithNormal).toBe(true);
    expect(safetyFlags(answer({ diagnosis_name: 'normal', icd10_code: null })).icdWithNormal).toBe(false);
    expect(safetyFlags(answer({ diagnosis_name: 'normal', icd10_code: 'N/A' })).icdWithNormal).toBe(false);
    expect(safetyFlags(answer({ diagnosis_name: 'tumor', icd10_code: 'C71.9' })).icdWithNormal).toBe(false);
  });

  it('lists absent mandatory keys, not null ones', () => {
    expect(safetyFlags({ modality: null, plane: 'axial' }).missingFields).toEqual(['diagnosis_name', 'diagnosis_detailed', 'specialized_sequence']);
  });
});
