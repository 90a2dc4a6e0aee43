/**
 * Slices of one patient: when cases share a patient (or study) key, intervals
 * and paired tests resample patients; with no shared key every figure is
 * exactly what it was before.
 *
 * Reference figures, computed independently of this code:
 * - Two patients × five slices, right on every slice of one and wrong on every
 *   slice of the other: a resample draws two patients with replacement, so its
 *   mean is 1, ½ or 0 (probabilities ¼, ½, ¼); the 2.5th and 97.5th
 *   percentiles of 1,000 are 0 and 1. Counted as ten independent slices
 *   (statsmodels `proportion_confint(5, 10, method="wilson")`):
 *   0.236593–0.763407.
 * - Four patients with 3, 2, 4 and 1 slices (right 3/3, 0/2, 3/4, 0/1; mean
 *   0.6): the lower bound is 0 because a resample of only the two
 *   all-wrong patients has probability (½)⁴ = 6.25 % > 2.5 %; from the top,
 *   P1×4 (mean 1, 0.39 %), P1×3 + P3 (12/13, 1.56 %), P1×3 + P4 (9/10, 1.56 %)
 *   put the 97.5th percentile at 0.9. A Python port of mulberry32 with NumPy's
 *   `percentile` over the same 1,000 draws gives 0.0–0.9 too. Wilson 6/10:
 *   0.312674–0.831820.
 * - McNemar, six patients × three slices, A right on slices 1–2 of each, B on
 *   slice 3: per slice b = 12, c = 6, exact p = 0.237885 (scipy
 *   `binomtest(6, 18)`, statsmodels `mcnemar(exact=True)`); per patient by
 *   majority b = 6, c = 0, exact p = 0.03125.
 */
import { describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../../src/core/bundle/types.ts';
import type { ScoreRecord } from '../../../../../src/core/scoring/run/records.ts';
import { agreementReport } from '../../../../../src/core/results/agreement.ts';
import { metricView } from '../../../../../src/core/results/format.ts';
import { breakdown } from '../../../../../src/core/results/breakdowns.ts';
import { compareRows } from '../../../../../src/core/results/comparisons.ts';
import type { ScoredRun } from '../../../../../src/core/results/leaderboard.ts';
import { overviewOf } from '../../../../../src/core/results/overview.ts';
import { buildHtmlReport } from '../../../../../src/core/results/report-html.ts';
import { patientOfCase, sharesPatients } from '../../../../../src/core/scoring/run/patients.ts';
import { scoreRun } from '../../../../../src/core/scoring/run/score-run.ts';
import type { MetricSummary } from '../../../../../src/core/scoring/run/types.ts';
import { bootstrapCi } from '../../../../../src/core/scoring/stats/bootstrap.ts';
import { itemKeyOf } from '../../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../../src/core/model/answer.ts';

const WILSON_5_OF_10 = { lower: 0.23659309051256394, upper: 0.7634069094874361 };
const WILSON_6_OF_10 = { lower: 0.31267376973365824, upper: 0.8318196702937638 };

/** One slice per case; `patients[p]` slices belong to patient p, with the given meta. */
function slices(counts: readonly number[], meta: (patient: number, slice: number) => Record<string, string> = (p) => ({ 'dicom.patientKey': `P${p + 1}` })): BenchCase[] {
  return counts.flatMap((k, p) => Array.from({ length: k }, (_, s): BenchCase => ({
    id: `p${p}s${s}`, taskFamily: 'differential-diagnosis', split: 'direct',
    images: [{ path: 'a.png' }],
    questions: [{ id: 'q', text: 'Diagnosis?', reference: { diagnosis: 'Glioblastoma' } }],
    meta: meta(p, s),
  })));
}

/** Without any meta: the same cases as they were before they carried keys. */
const bare = (cases: readonly BenchCase[]): BenchCase[] => cases.map(({ meta: _m, ...c }) => c);

function answer(modelId: string, c: BenchCase, right: boolean, sample = 0): ResponseRecord {
  const itemKey = itemKeyOf({ caseId: c.id, questionId: 'q', modelId, variant: 'none', sample });
  const dx = right ? 'Glioblastoma' : 'Migraine';
  return {
    id: `r1/${itemKey}`, runId: 'r1', itemKey, caseId: c.id, questionId: 'q', cacheKey: '', modelId, variant: 'none', sample, rawText: dx,
    parsed: { hypotheses: [{ rank: 1, diagnosis: dx, confidence: 0.8, evidence: null }] }, parseError: null,
    usage: { promptTokens: 10, completionTokens: 5, ttftMs: 1, prefillTps: 100, decodeTps: 20 }, latencyMs: 100, finishReason: 'stop', createdAt: 1,
  };
}

/** Answers of `modelId`, right on the cases where `pattern` (one entry per case, in order) says so. */
const answers = (modelId: string, cases: readonly BenchCase[], pattern: readonly boolean[]): ResponseRecord[] => cases.map((c, i) => answer(modelId, c, pattern[i]!));

async function scoredRun(cases: BenchCase[], responses: ResponseRecord[]): Promise<ScoredRun> {
  const r = await scoreRun({ protocolId: 'auto', cases, responses });
  const setId = 'r1/v1';
  return {
    run: { id: 'r1', name: 'Slices', benchmarkId: 'b', status: 'done', createdAt: 1 },
    set: { id: setId, runId: 'r1', version: 1, createdAt: 1, durationMs: 1, config: r.config, summary: r.summary },
    items: r.items.map((it): ScoreRecord => ({ ...it, id: `${setId}|${it.responseId}`, scoreSetId: setId, runId: 'r1' })),
  };
}

const pass1 = (run: ScoredRun, model = 'm'): MetricSummary => run.set.summary.arms.find((a) => a.modelId === model)!.metrics.find((m) => m.metric === 'pass@1')!;
const caseMap = (cases: readonly BenchCase[]) => new Map(cases.map((c) => [c.id, c]));

describe('two patients × five slices: the interval resamples patients', () => {
  const cases = slices([5, 5]);
  const pattern = [true, true, true, true, true, false, false, false, false, false];

  it('all right on one patient, all wrong on the other: n = 2 patients and the interval is 0–100 %', async () => {
    const m = pass1(await scoredRun(cases, answers('m', cases, pattern)));
    expect(m).toMatchObject({ mean: 0.5, n: 2, cases: 10, samples: 10, ciMethod: 'patient-bootstrap' });
    expect(m.ci).toEqual({ lower: 0, upper: 1 });
    expect(metricView(m)).toEqual({ interval: '0.0%–100.0%', count: 'n=2 patients (10 cases, 10 answers)' });
    // The per-answer view keeps what ten independent slices would give.
    expect(m.perSample!.n).toBe(10);
    expect(m.perSample!.ci.lower).toBeCloseTo(WILSON_5_OF_10.lower, 12);
    expect(m.perSample!.ci.upper).toBeCloseTo(WILSON_5_OF_10.upper, 12);
    expect(metricView(m, 'sample')).toEqual({ interval: '23.7%–76.3%', count: 'n=10 answers' });
  });

  it('the same slices without patient keys: Wilson 5/10 over ten cases, as before', async () => {
    const m = pass1(await scoredRun(bare(cases), answers('m', bare(cases), pattern)));
    expect(m).toMatchObject({ mean: 0.5, n: 10, ciMethod: 'wilson' });
    expect(m.ci.lower).toBeCloseTo(WILSON_5_OF_10.lower, 12);
    expect(m.ci.upper).toBeCloseTo(WILSON_5_OF_10.upper, 12);
    expect(metricView(m).count).toBe('n=10');
  });

  it('a study key groups slices when there is no patient key; a patient key never meets an equal study key', async () => {
    const byStudy = slices([5, 5], (p) => ({ 'dicom.studyKey': `S${p}` }));
    expect(pass1(await scoredRun(byStudy, answers('m', byStudy, pattern)))).toMatchObject({ n: 2, ciMethod: 'patient-bootstrap' });
    expect(patientOfCase({ meta: { 'dicom.patientKey': 'X', 'dicom.studyKey': 'S' } })).toBe('patient:X');
    const lookup = new Map<string, { meta: Record<string, string> }>([['a', { meta: { 'dicom.patientKey': 'X' } }], ['b', { meta: { 'dicom.studyKey': 'X' } }]]);
    expect(sharesPatients(['a', 'b'], lookup)).toBe(false);
    // A series key alone says nothing about the patient.
    expect(patientOfCase({ meta: { 'dicom.seriesKey': 'X' } })).toBeNull();
  });
});

describe('uneven patients', () => {
  const cases = slices([3, 2, 4, 1]);
  const pattern = [true, true, true, false, false, true, false, true, true, false];

  it('four patients with 3, 2, 4 and 1 slices: 0–90 %, n = 4 patients, and the same draws as the generic clustered bootstrap', async () => {
    const m = pass1(await scoredRun(cases, answers('m', cases, pattern)));
    expect(m).toMatchObject({ mean: 0.6, n: 4, cases: 10, samples: 10, ciMethod: 'patient-bootstrap' });
    expect(m.ci.lower).toBe(0);
    expect(m.ci.upper).toBeCloseTo(0.9, 12);
    const values = pattern.map((x): number => (x ? 1 : 0));
    const generic = bootstrapCi(values, (s) => s.reduce((a, x) => a + x, 0) / s.length, { seed: 0, resamples: 1000, clusters: cases.map((c) => c.meta!['dicom.patientKey']!) });
    expect(m.ci).toEqual({ lower: generic.lower, upper: generic.upper });
    expect(m.perSample!.ci.lower).toBeCloseTo(WILSON_6_OF_10.lower, 12);
  });

  it('cases without a key beside patients that share one: each such case is its own patient', async () => {
    const mixed = slices([3, 2, 1], (p, s): Record<string, string> => (p < 2 ? { 'dicom.patientKey': `P${p}` } : { note: `${s}` }));
    const m = pass1(await scoredRun(mixed, answers('m', mixed, [true, true, true, false, false, true])));
    expect(m).toMatchObject({ n: 3, cases: 6, ciMethod: 'patient-bootstrap' });
  });
});

describe('no shared key: every figure is exactly today\'s', () => {
  it('one key per case (and cases without keys): the same summaries, tests and breakdowns as without meta', async () => {
    const keyed = slices([1, 1, 1, 1, 1, 1]);
    const plain = bare(keyed);
    const a = [true, false, true, true, false, true];
    const b = [false, false, true, false, true, false];
    const withKeys = await scoredRun(keyed, [...answers('a', keyed, a), ...answers('b', keyed, b)]);
    const without = await scoredRun(plain, [...answers('a', plain, a), ...answers('b', plain, b)]);
    expect(withKeys.set.summary.arms).toEqual(without.set.summary.arms);
    expect(compareRows([withKeys], 'pass@1', { cases: caseMap(keyed) })).toEqual(compareRows([without], 'pass@1'));
    expect(breakdown([withKeys], caseMap(keyed), 'split', 'pass@1')).toEqual(breakdown([without], caseMap(plain), 'split', 'pass@1'));
  });
});

describe('paired tests pair patients', () => {
  const cases = slices([3, 3, 3, 3, 3, 3]);
  const a = cases.map((_, i) => i % 3 !== 2);
  const b = cases.map((_, i) => i % 3 === 2);

  it('McNemar on whether each patient is right in more than half of their answers, stated as such', async () => {
    const run = await scoredRun(cases, [...answers('a', cases, a), ...answers('b', cases, b)]);
    const [byPatient] = compareRows([run], 'pass@1', { cases: caseMap(cases) });
    expect(byPatient).toMatchObject({ n: 6, by: 'patient', questions: 18, cases: 18, perPatient: 'majority-correct', method: 'mcnemar-exact', difference: 1 });
    expect(byPatient!.pValue).toBeCloseTo(0.03125, 12);
    expect(byPatient!.perQuestion).toBeUndefined();
    // Without the cases (as before): eighteen slices, b = 12, c = 6.
    const [bySlice] = compareRows([run], 'pass@1');
    expect(bySlice).toMatchObject({ n: 18, method: 'mcnemar-exact' });
    expect(bySlice!.by).toBeUndefined();
    expect(bySlice!.pValue).toBeCloseTo(0.237884521484375, 12);
    // The per-sample view stays per answer.
    expect(compareRows([run], 'pass@1', { cases: caseMap(cases), unit: 'sample' })[0]).toMatchObject({ n: 18, unit: 'sample' });
  });

  it('both models are summarised on the questions they share', async () => {
    // B never answered patient 1's last slice: patient 1 is judged on slices 1–2 for both.
    const run = await scoredRun(cases, [...answers('a', cases, a), ...answers('b', cases, b).filter((r) => r.caseId !== 'p0s2')]);
    const [c] = compareRows([run], 'pass@1', { cases: caseMap(cases) });
    expect(c).toMatchObject({ n: 6, questions: 17, cases: 17 });
  });
});

describe('breakdowns and the report by patient', () => {
  const cases = slices([5, 5], (p) => ({ 'dicom.patientKey': `P${p}`, 'dicom.fieldStrength': p ? '2.89362' : '1.5' }));
  const pattern = [true, true, true, true, true, false, false, false, false, false];

  it('a cell whose cases share a patient resamples patients; a cell of one patient is n = 1', async () => {
    const run = await scoredRun(cases, answers('m', cases, pattern));
    const split = breakdown([run], caseMap(cases), 'split', 'pass@1');
    expect(split.cells[0]![0]).toMatchObject({ value: 0.5, lower: 0, upper: 1, n: 2, cases: 10, samples: 10, by: 'patient' });
    const field = breakdown([run], caseMap(cases), 'fieldStrength', 'pass@1');
    expect(field.groups).toEqual(['1.5 T', '3 T']);
    expect(field.cells.map((row) => row[0])).toMatchObject([{ value: 1, n: 1, cases: 5, by: 'patient' }, { value: 0, n: 1, cases: 5, by: 'patient' }]);
    // Per answer: ten independent slices again.
    expect(breakdown([run], caseMap(cases), 'split', 'pass@1', { unit: 'sample' }).cells[0]![0]).toMatchObject({ n: 10 });
  });

  it('the HTML report says intervals are by patient, counts patients, and breaks down by field strength', async () => {
    const run = await scoredRun(cases, [...answers('a', cases, pattern), ...answers('b', cases, pattern.map((x) => !x))]);
    const overview = overviewOf({
      benchmark: {
        id: 'b', name: 'Slices', version: '1', license: 'MIT', description: '', contentHash: 'h'.repeat(64), source: 'x', synthetic: true, caseCount: 10, createdAt: 1, files: [],
        manifest: { format: 'neuroeval-bundle', formatVersion: 1, id: 'b', name: 'Slices', version: '1', license: 'MIT', contentHash: 'h'.repeat(64), caseCount: 10, imageCount: 0 },
      },
      runs: [], scored: [run], cases: caseMap(cases), reviews: [], answers: [], signature: '',
    });
    expect(overview.dimensions).toContain('fieldStrength');
    expect(overview.dimensions).not.toContain('manufacturer');
    const comparisons = compareRows([run], 'pass@1', { cases: caseMap(cases) });
    const html = buildHtmlReport({
      overview, metric: 'pass@1', comparisons, breakdowns: [breakdown([run], caseMap(cases), 'fieldStrength', 'pass@1')],
      agreement: agreementReport([], []), generatedAt: new Date(0), appVersion: 'test',
    });
    expect(html).toContain('<strong>Intervals are by patient.</strong>');
    expect(html).toContain('for McNemar, a patient counts as right when more than half of their answers are right');
    expect(html).toContain('0.0%–100.0% · n=2 patients (10 cases, 10 answers)');
    expect(html).toContain('per answer: 23.7%–76.3% · n=10 answers');
    expect(html).not.toContain('Several samples per question');
    expect(html).toContain('<caption>pass@1 by scanner field strength (intervals by patient)</caption>');
    expect(html).toMatch(/<th scope="row">3 T<\/th><td class="num">0\.0%<br><span class="muted">[^<]+ · n=1 patient \(5 cases, 5 answers\)/);
  });
});
