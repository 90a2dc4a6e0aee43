/**
 * Several samples per question: intervals and paired tests count questions,
 * not samples, and the per-sample view stays beside them.
 *
 * Reference figures, computed independently of this code:
 * - Wilson 95 % for 5/10 (statsmodels `proportion_confint(5, 10,
 *   method="wilson")`): 0.236593–0.763407, the per-sample view.
 * - Cluster bootstrap over two equal-sized questions: a resample draws two
 *   questions with replacement, so its mean is q1's, q2's, or their average
 *   (probabilities ¼, ¼, ½). With 1,000 resamples the 2.5th and 97.5th
 *   percentiles are the two questions' own means (each appears ~250 times,
 *   far above the 25 a percentile needs); NumPy's generator gave the same
 *   bounds on 200 seeds out of 200.
 * - McNemar (statsmodels `mcnemar`): six questions × five samples, A right on
 *   samples 0–2, B on samples 3–4. Per sample, b = 18, c = 12, χ² with
 *   continuity correction 0.8333, p = 0.361310; per question by majority,
 *   b = 6, c = 0, exact p = 0.03125.
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
import { scoreRun } from '../../../../../src/core/scoring/run/score-run.ts';
import type { MetricSummary } from '../../../../../src/core/scoring/run/types.ts';
import { bootstrapCi, bootstrapClusterMeanCi } from '../../../../../src/core/scoring/stats/bootstrap.ts';
import { itemKeyOf } from '../../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../../src/core/model/answer.ts';

const WILSON_5_OF_10 = { lower: 0.23659309051256394, upper: 0.7634069094874361 };

const cases: BenchCase[] = Array.from({ length: 6 }, (_, i) => ({
  id: `c${i}`, taskFamily: 'differential-diagnosis', split: 'direct',
  images: [{ path: 'a.png' }],
  questions: [{ id: 'q', text: 'Diagnosis?', reference: { diagnosis: i % 2 ? 'Ischemic stroke' : 'Glioblastoma' } }],
}));

/** One sampled answer: the reference diagnosis when `right`, a wrong one otherwise. */
function answer(runId: string, modelId: string, c: BenchCase, sample: number, right: boolean): ResponseRecord {
  const itemKey = itemKeyOf({ caseId: c.id, questionId: 'q', modelId, variant: 'none', sample });
  const dx = right ? c.questions[0]!.reference!.diagnosis! : 'Migraine';
  return {
    id: `${runId}/${itemKey}`, runId, itemKey, caseId: c.id, questionId: 'q', cacheKey: '', modelId, variant: 'none', sample, rawText: dx,
    parsed: { hypotheses: [{ rank: 1, diagnosis: dx, confidence: 0.8, evidence: null }] }, parseError: null,
    usage: { promptTokens: 10, completionTokens: 5, ttftMs: 1, prefillTps: 100, decodeTps: 20 }, latencyMs: 100, finishReason: 'stop', createdAt: 1,
  };
}

/** Answers of `modelId` from a table: pattern[q][s] = is sample s of question q right. */
const answers = (runId: string, modelId: string, pattern: readonly (readonly boolean[])[]): ResponseRecord[] =>
  pattern.flatMap((samples, q) => samples.map((right, s) => answer(runId, modelId, cases[q]!, s, right)));

async function scoredRun(responses: ResponseRecord[], used: BenchCase[] = cases): Promise<ScoredRun> {
  const r = await scoreRun({ protocolId: 'auto', cases: used, responses });
  const setId = 'r1/v1';
  return {
    run: { id: 'r1', name: 'Sampled run', benchmarkId: 'b', status: 'done', createdAt: 1 },
    set: { id: setId, runId: 'r1', version: 1, createdAt: 1, durationMs: 1, config: r.config, summary: r.summary },
    items: r.items.map((it): ScoreRecord => ({ ...it, id: `${setId}|${it.responseId}`, scoreSetId: setId, runId: 'r1' })),
  };
}

const pass1 = (run: ScoredRun, model = 'm'): MetricSummary => run.set.summary.arms.find((a) => a.modelId === model)!.metrics.find((m) => m.metric === 'pass@1')!;
const all = (k: number, right: boolean): boolean[] => Array.from({ length: k }, () => right);

/** Six questions × five samples: A right on samples 0–2 of every question, B on samples 3–4. */
const A = Array.from({ length: 6 }, () => [true, true, true, false, false]);
const B = Array.from({ length: 6 }, () => [false, false, false, true, true]);

describe('two questions × five samples: the interval counts questions', () => {
  it('a model right on every sample of one question and wrong on every sample of the other: n = 2 questions, interval 0–100 %', async () => {
    const run = await scoredRun(answers('r1', 'm', [all(5, true), all(5, false)]));
    const m = pass1(run);
    expect(m).toMatchObject({ mean: 0.5, n: 2, samples: 10, ciMethod: 'question-bootstrap' });
    // Before: ten independent answers, Wilson 5/10 = 23.7 %–76.3 %. Two questions cannot say more than "somewhere in 0–100 %".
    expect(m.ci.lower).toBe(0);
    expect(m.ci.upper).toBe(1);
    // The per-sample view keeps the old figures, labelled as such.
    expect(m.perSample!.n).toBe(10);
    expect(m.perSample!.ciMethod).toBe('wilson');
    expect(m.perSample!.ci.lower).toBeCloseTo(WILSON_5_OF_10.lower, 12);
    expect(m.perSample!.ci.upper).toBeCloseTo(WILSON_5_OF_10.upper, 12);
    expect(metricView(m)).toEqual({ interval: '0.0%–100.0%', count: 'n=2 questions (10 samples)' });
    expect(metricView(m, 'sample')).toEqual({ interval: '23.7%–76.3%', count: 'n=10 samples' });
  });

  it('samples that disagree within a question: the interval is the spread between questions (40 %–60 % for 3/5 and 2/5)', async () => {
    const m = pass1(await scoredRun(answers('r1', 'm', [[true, true, true, false, false], [true, true, false, false, false]])));
    expect(m).toMatchObject({ mean: 0.5, n: 2, samples: 10, ciMethod: 'question-bootstrap' });
    expect(m.ci.lower).toBeCloseTo(0.4, 12);
    expect(m.ci.upper).toBeCloseTo(0.6, 12);
    expect(m.perSample!.ci.lower).toBeCloseTo(WILSON_5_OF_10.lower, 12);
  });

  it('is seeded: the same seed gives the same interval, and it agrees with the generic clustered bootstrap', async () => {
    const pattern = [[true, false, true], [false, false], [true, true, true, true], [false], [true, false], [true, true, false, true, false]];
    const a = pass1(await scoredRun(answers('r1', 'm', pattern)));
    const b = pass1(await scoredRun(answers('r1', 'm', pattern)));
    expect(a.ci).toEqual(b.ci);
    expect(a).toMatchObject({ n: 6, samples: 17 });
    const values = pattern.flat().map((x) => (x ? 1 : 0));
    const clusters = pattern.flatMap((s, q) => s.map(() => q));
    const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const generic = bootstrapCi(values, mean, { seed: 0, resamples: 1000, clusters });
    expect(a.ci).toEqual({ lower: generic.lower, upper: generic.upper });
    expect(bootstrapClusterMeanCi(values, clusters, { seed: 3 })).toEqual(bootstrapCi(values, mean, { seed: 3, clusters }));
    expect(() => bootstrapClusterMeanCi([1, 0], ['a'])).toThrow(/differ in length/);
  });

  it('one sample per question: the summary is exactly the per-sample one (Wilson, n = answers, no per-sample copy)', async () => {
    const m = pass1(await scoredRun(answers('r1', 'm', [[true], [false], [true], [true], [false], [false]])));
    expect(m).toMatchObject({ mean: 0.5, n: 6, ciMethod: 'wilson' });
    expect(m.samples).toBeUndefined();
    expect(m.perSample).toBeUndefined();
    expect(metricView(m)).toEqual(metricView(m, 'sample'));
    expect(metricView(m).count).toBe('n=6');
  });
});

describe('paired tests with several samples per question', () => {
  it('McNemar pairs questions on the majority of their samples, and says so', async () => {
    const run = await scoredRun([...answers('r1', 'a', A), ...answers('r1', 'b', B)]);
    const [q] = compareRows([run], 'pass@1');
    expect(q).toMatchObject({ a: 'r1|a', b: 'r1|b', n: 6, unit: 'question', perQuestion: 'majority-correct', method: 'mcnemar-exact' });
    expect(q!.pValue).toBeCloseTo(0.03125, 12);
    expect(q!.difference).toBe(1);
  });

  it('the per-sample view pairs sample s with sample s, as before', async () => {
    const run = await scoredRun([...answers('r1', 'a', A), ...answers('r1', 'b', B)]);
    const [s] = compareRows([run], 'pass@1', { unit: 'sample' });
    expect(s).toMatchObject({ n: 30, unit: 'sample', method: 'mcnemar-chi2' });
    expect(s!.perQuestion).toBeUndefined();
    expect(s!.pValue).toBeCloseTo(0.3613104285261789, 10);
    expect(s!.difference).toBeCloseTo(0.2, 12);
  });

  it('pairs a five-sample model with a one-sample model per question; a tie is not a majority', async () => {
    // A: 3/5 right on q0–q2, 2/5 on q3–q5 (majority right on the first three); C: one sample, right on q3 only.
    const a = [...A.slice(0, 3), ...B.slice(0, 3)];
    const c = Array.from({ length: 6 }, (_, q) => [q === 3]);
    // D has four samples per question, two right: never a majority.
    const d = Array.from({ length: 6 }, () => [true, true, false, false]);
    const run = await scoredRun([...answers('r1', 'a', a), ...answers('r1', 'c', c), ...answers('r1', 'd', d)]);
    const comparisons = compareRows([run], 'pass@1');
    const ac = comparisons.find((x) => x.a === 'r1|a' && x.b === 'r1|c')!;
    // Majorities A: 1 1 1 0 0 0; C: 0 0 0 1 0 0 → b = 3, c = 1, exact p = 2 · P(X ≤ 1 | 4, ½) = 0.625.
    expect(ac).toMatchObject({ n: 6, perQuestion: 'majority-correct' });
    expect(ac.pValue).toBeCloseTo(0.625, 12);
    const ad = comparisons.find((x) => x.a === 'r1|a' && x.b === 'r1|d')!;
    // D counts as wrong on every question: b = 3, c = 0, p = 0.25.
    expect(ad.pValue).toBeCloseTo(0.25, 12);
    expect(ad.difference).toBeCloseTo(0.5, 12);
  });

  it('one sample per question: the question and sample units give the same test, with no per-question summary stated', async () => {
    const one = (pattern: boolean[][]) => pattern.map((s) => s.slice(0, 1));
    const run = await scoredRun([...answers('r1', 'a', one(A)), ...answers('r1', 'b', one(B))]);
    const [q] = compareRows([run], 'pass@1');
    const [s] = compareRows([run], 'pass@1', { unit: 'sample' });
    expect({ ...q, unit: 'sample' }).toEqual(s);
    expect(q!.perQuestion).toBeUndefined();
    expect(q!.n).toBe(6);
  });
});

describe('breakdowns and the report with several samples per question', () => {
  it('a breakdown cell resamples questions too', async () => {
    const run = await scoredRun(answers('r1', 'm', [all(5, true), all(5, false)]));
    const caseMap = new Map(cases.map((c) => [c.id, c]));
    const cell = breakdown([run], caseMap, 'split', 'pass@1').cells[0]![0]!;
    expect(cell).toMatchObject({ value: 0.5, n: 2, samples: 10, lower: 0, upper: 1 });
    const perSample = breakdown([run], caseMap, 'split', 'pass@1', { unit: 'sample' }).cells[0]![0]!;
    expect(perSample.n).toBe(10);
    expect(perSample.lower).toBeCloseTo(WILSON_5_OF_10.lower, 12);
  });

  it('the HTML report shows the question-level figures, the per-sample view and the per-question summary of the test', async () => {
    const run = await scoredRun([...answers('r1', 'a', A), ...answers('r1', 'b', B)]);
    const overview = overviewOf({
      benchmark: {
        id: 'b', name: 'Sampled bench', version: '1', license: 'MIT', description: '', contentHash: 'h'.repeat(64), source: 'x', synthetic: true, caseCount: 6, createdAt: 1, files: [],
        manifest: { format: 'neuroeval-bundle', formatVersion: 1, id: 'b', name: 'Sampled bench', version: '1', license: 'MIT', contentHash: 'h'.repeat(64), caseCount: 6, imageCount: 0 },
      },
      runs: [], scored: [run], cases: new Map(cases.map((c) => [c.id, c])), reviews: [], answers: [], signature: '',
    });
    const html = buildHtmlReport({ overview, metric: 'pass@1', comparisons: compareRows([run], 'pass@1'), breakdowns: [], agreement: agreementReport([], []), generatedAt: new Date(0), appVersion: 'test' });
    expect(html).toContain('n=6 questions (30 samples)');
    expect(html).toMatch(/per sample: [\d.]+%–[\d.]+% · n=30 samples/);
    expect(html).toContain('for McNemar, a question counts as right when more than half of its samples are right');
    expect(html).toMatch(/<th scope="row">b<br>[^\n]*▼ p=0\.031/);
  });
});
