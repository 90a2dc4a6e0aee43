/**
 * The benchmark's own rules on the minimal inputs, small enough to
 * check by hand (the parity test covers the evaluator's output on files).
 */
import { describe, expect, it } from 'vitest';
import { evaluateNeuroVlmBench as evaluateRecords, NeuroVlmBenchStop } from '../../../../../src/core/scoring/neurovlm/evaluator/evaluate.ts';
import { pyFromJs, pyJsonLoads } from '../../../../../src/core/python/json.ts';
import { normalizeClassLabel, normalizeModalitySubtypeLabel, normalizePlaneLabel, normalizeSubclassLabel } from '../../../../../src/core/scoring/neurovlm/evaluator/normalise.ts';
import { pyIntOr0, pyStr, pyStrip } from '../../../../../src/core/scoring/neurovlm/evaluator/python.ts';

/** The evaluator on records given as JavaScript values (each read back as `json.loads` of its JSON). */
const evaluateNeuroVlmBench = (records: readonly unknown[]) => evaluateRecords(records.map((r) => ({ value: pyFromJs(r) })));

type Gold = Partial<Record<'class' | 'subclass' | 'modality' | 'modality_subtype' | 'axial_plane', unknown>>;

function rec(model: string, gold: Gold, answer: Record<string, unknown> | null, status = 'success'): unknown {
  return {
    input: { model_requested: model, metadata: { class: 'tumor', subclass: 'glioma', modality: 'MRI', modality_subtype: 'T1', axial_plane: 'axial', ...gold } },
    output: { status, parsed_response: answer },
    api_response: { prompt_tokens: 10, completion_tokens: 5, latency_ms: 100 },
  };
}

describe("the benchmark's normalisation, as its evaluator has it", () => {
  it('knows no British spellings', () => {
    expect(normalizeClassLabel('tumour')).toBe('tumour');
    expect(normalizeClassLabel('Tumor')).toBe('tumor');
    expect(normalizeClassLabel('ischaemic stroke')).toBe('ischaemic stroke');
    expect(normalizeSubclassLabel('haemorrhagic')).toBe('haemorrhagic');
    expect(normalizeSubclassLabel('intracerebral hemorrhage')).toBe('hemorrhagic');
  });

  it('reads "none" and "n/a" as an abstention on the sequence field only', () => {
    expect(normalizeModalitySubtypeLabel('none')).toBe('undetermined');
    expect(normalizeModalitySubtypeLabel('N/A')).toBe('undetermined');
    expect(normalizePlaneLabel('none')).toBe('none');
    expect(normalizeClassLabel('n/a')).toBe('n/a');
    expect(normalizeClassLabel(null)).toBe('undetermined');
    expect(normalizeClassLabel('None')).toBe('none');
  });

  it("strips and prints as Python does", () => {
    expect(pyStrip('\u00a0Tumor\u2003\x1c')).toBe('Tumor');
    expect(pyStrip('\ufefftumor')).toBe('\ufefftumor');
    expect(pyStr(true)).toBe('True');
    expect(pyStr(0.5)).toBe('0.5');
    expect(pyStr(1e-5)).toBe('1e-05');
    expect(pyStr(pyJsonLoads('["a", "it\'s"]'))).toBe(`['a', "it's"]`);
    expect(pyStr(pyJsonLoads('{"k": null}'))).toBe("{'k': None}");
    expect(pyIntOr0('1_500')).toBe(1500n);
    expect(pyIntOr0(null)).toBe(0n);
  });
});

describe("the benchmark's figures on the issue's minimal inputs", () => {
  it('averages F1 with abstention over the ground-truth labels: gold [axial, sagittal], answers [axial, coronal] gives 0.5', () => {
    const data = [
      rec('m', { axial_plane: 'axial' }, { plane: 'axial', diagnosis_name: 'tumor' }),
      rec('m', { axial_plane: 'sagittal' }, { plane: 'coronal', diagnosis_name: 'tumor' }),
    ];
    const m = evaluateNeuroVlmBench(data).perModel.m!;
    expect(m.overall_pl_f1_abstention).toBe(0.5);
    expect(m.plane_labels).toEqual(['axial', 'coronal', 'sagittal']);
    // The per-label list runs over every label seen; "coronal" gets an F1 of 0.
    expect(m.per_plane_f1_abstention).toEqual([1, 0, 0]);
  });

  it('keeps a ground truth that normalises to "undetermined" as gold "undetermined"', () => {
    const data = [
      rec('m', { class: 'other abnormalities', subclass: 'other abnormalities' }, { diagnosis_name: 'other abnormalities', diagnosis_detailed: null }),
      rec('m', { subclass: 'glioma' }, { diagnosis_name: 'tumor', diagnosis_detailed: 'glioma' }),
    ];
    const m = evaluateNeuroVlmBench(data).perModel.m!;
    expect(m.subclass_labels).toEqual(['glioma', 'undetermined']);
    expect(m.per_subclass_support).toEqual([1, 1]);
    // An abstention matching gold "undetermined" is right for balanced accuracy.
    expect(m.overall_sub_accuracy).toBe(1);
  });

  it('counts JSON validity as successful calls over all calls, parse failures valid', () => {
    const data = [
      rec('m', {}, { diagnosis_name: 'tumor' }),
      rec('m', {}, { error: 'JSON parsing failed: …', raw_response: 'tumour' }),
      rec('m', {}, null, 'error'),
      rec('m', {}, null, 'error'),
    ];
    const m = evaluateNeuroVlmBench(data).perModel.m!;
    expect(m.json_valid_pct).toBe(50);
  });

  it('calls balanced accuracy "accuracy"', () => {
    const data = [
      ...Array.from({ length: 8 }, () => rec('m', { class: 'tumor' }, { diagnosis_name: 'tumor' })),
      rec('m', { class: 'normal' }, { diagnosis_name: 'tumor' }),
      rec('m', { class: 'normal' }, { diagnosis_name: 'normal' }),
    ];
    const m = evaluateNeuroVlmBench(data).perModel.m!;
    // Plain accuracy would be 0.9; the mean of the recalls (1 and 0.5) is 0.75.
    expect(m.accuracy).toBe(0.75);
  });

  it('reads confidences with float(): true is 1, "inf" clips to 1, "90%" is 0, "nan" makes calibration NaN', () => {
    const conf = (c: unknown): unknown => rec('m', {}, { diagnosis_name: 'tumor', diagnosis_confidence: c });
    const ok = evaluateNeuroVlmBench([conf(true), conf('inf'), conf('90%')]).perModel.m!;
    // Three right answers with confidences 1, 1, 0: bins [0, 0.1] and (0.9, 1].
    expect(ok.ece).toBeCloseTo(1 / 3, 12);
    expect(ok.brier).toBeCloseTo(1 / 3, 12);
    const nan = evaluateNeuroVlmBench([conf(0.5), conf('nan')]).perModel.m!;
    expect([nan.ece, nan.brier, nan.auc].every(Number.isNaN)).toBe(true);
  });

  it('an abstention never counts as right, whatever the gold label is called (no internal marker can collide with data)', () => {
    // The gold label "\u0000dummy" once equalled the marker that stood for abstentions, so abstentions on it counted as right.
    const data = [
      rec('m', { axial_plane: '\u0000dummy' }, { plane: null, diagnosis_name: 'tumor' }),
      rec('m', { axial_plane: 'axial' }, { plane: 'axial', diagnosis_name: 'tumor' }),
    ];
    const m = evaluateNeuroVlmBench(data).perModel.m!;
    expect(m.plane_labels).toEqual(['\u0000dummy', 'axial', 'undetermined']);
    expect(m.per_plane_recall).toEqual([0, 1]);
    expect(m.overall_pl_f1_abstention).toBe(0.5);
  });

  it('stops, as the evaluator does, where a model has calls without class ground truth (np.column_stack)', () => {
    const data = [rec('m', {}, { diagnosis_name: 'tumor' }), rec('m', { class: '' }, { diagnosis_name: 'tumor' })];
    expect(() => evaluateNeuroVlmBench(data)).toThrow(NeuroVlmBenchStop);
    expect(() => evaluateNeuroVlmBench(data)).toThrow(/column_stack/);
  });
});
