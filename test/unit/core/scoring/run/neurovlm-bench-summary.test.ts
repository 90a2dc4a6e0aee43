/**
 * A scored local run carries NeuroVLM-Bench's own figures beside NeuroEval's
 * own analysis, and the two are told apart where they differ by design: a
 * British spelling is right by NeuroEval's normalisation and wrong by the
 * benchmark's; balanced accuracy is the benchmark's "accuracy".
 */
import { describe, expect, it } from 'vitest';
import { scoreRun } from '../../../../../src/core/scoring/run/score-run.ts';
import type { BenchCase } from '../../../../../src/core/bundle/types.ts';
import { neuroVlmBenchForRun } from '../../../../../src/core/scoring/neurovlm/evaluator/index.ts';
import { answer, nvbCase, nvbResponse } from '../neurovlm/fixtures.ts';

describe("a scored run's NeuroVLM-Bench figures", () => {
  const cases = [
    nvbCase('c1', { diagnosis_name: 'tumor', plane: 'axial' }, { dataset: 'figshare' }),
    nvbCase('c2', { diagnosis_name: 'tumor', plane: 'axial' }, { dataset: 'figshare' }),
    nvbCase('c3', { diagnosis_name: 'normal', plane: 'sagittal' }, { dataset: 'Br35H' }),
    nvbCase('c4', { diagnosis_name: 'normal', plane: 'axial' }, { dataset: 'Br35H' }),
  ];
  const responses = [
    nvbResponse('r', { caseId: 'c1', parsed: answer({ diagnosis_name: 'Tumor', plane: 'axial' }) }, 0),
    nvbResponse('r', { caseId: 'c2', parsed: answer({ diagnosis_name: 'tumour', plane: 'axial' }) }, 1),
    nvbResponse('r', { caseId: 'c3', parsed: answer({ diagnosis_name: 'normal', plane: 'coronal' }) }, 2),
    nvbResponse('r', { caseId: 'c4', callError: 'engine stopped' }, 3),
  ];

  it('puts the benchmark evaluator’s figures per arm and per source dataset in the summary', async () => {
    const { summary } = await scoreRun({ protocolId: 'neurovlm-structured', responses, cases }, { resamples: 10 });
    const bench = summary.neurovlmBench!;
    const m = bench.all['model-a']!;
    // Gold [tumor, tumor, normal], answers [tumor, tumour, normal]: recall 1/2 for tumor, 1 for normal.
    expect(m.accuracy).toBe(0.75);
    // Three successful calls of four.
    expect(m.json_valid_pct).toBe(75);
    // Gold planes [axial, axial, sagittal], answers [axial, axial, coronal]: F1 with abstention over gold labels (1 + 0) / 2.
    expect(m.overall_pl_f1_abstention).toBe(0.5);
    expect(Object.keys(bench.datasets)).toEqual(['Br35H', 'figshare']);
    expect(bench.datasets.figshare!['model-a']!.accuracy).toBe(0.5);
    // NeuroEval's own analysis reads "tumour" as tumor: every class answer right.
    const own = summary.arms[0]!.metrics.find((x) => x.metric === 'neurovlm.diagnosis_name')!;
    expect(own.mean).toBe(1);
  });

  it('of a run mixing benchmarks are the evaluator on the answers given under the NeuroVLM-Bench protocol, as its harness file holds them', async () => {
    // A differential-diagnosis case (Neural-MedBench style) has no class ground truth: in the harness file the evaluator would stop (np.column_stack).
    const dx: BenchCase = { id: 'd1', taskFamily: 'differential-diagnosis', images: [], questions: [{ id: 'q1', text: 'Differential?', reference: { diagnosis: 'Glioblastoma' } }] };
    const ranked = { hypotheses: [{ rank: 1, diagnosis: 'Glioblastoma', confidence: 0.6, evidence: null }] };
    const mixed = [...responses, nvbResponse('r', { caseId: 'd1', parsed: ranked }, 4)];
    const { summary } = await scoreRun({ protocolId: 'auto', responses: mixed, cases: [...cases, dx] }, { resamples: 10 });
    expect(summary.arms[0]!.protocols).toEqual(['neurovlm-structured', 'nmb-differential']);
    const bench = summary.neurovlmBench!;
    expect(bench.failure).toBeUndefined();
    expect(bench).toEqual(neuroVlmBenchForRun('', responses, cases));
    expect(bench.all['model-a']!.accuracy).toBe(0.75);
    // The whole run in one file, as before: the evaluator's own failure, which the tool no longer meets.
    expect(neuroVlmBenchForRun('', mixed, [...cases, dx]).failure?.message).toMatch(/column_stack/);
  });
});
