/**
 * Results core: leaderboard rows and sorting, model-vs-model tests on shared
 * items, breakdowns with intervals, agreement statistics, formula-safe CSV,
 * the self-contained HTML report, and importing / merging exported runs.
 * Expected values are counted by hand from the fixtures.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import { createRepositories, openDatabase } from '../../../../src/core/db/index.ts';
import type { ReviewRecord } from '../../../../src/core/model/review.ts';
import type { RunRecord } from '../../../../src/core/runner/records.ts';
import type { ScoreRecord } from '../../../../src/core/scoring/run/records.ts';
import { agreementReport, machineVerdict } from '../../../../src/core/results/agreement.ts';
import { queryAnswers, answerTableRow } from '../../../../src/core/results/answers.ts';
import { csvCell, toCsv } from '../../../../src/core/results/csv.ts';
import { importRunExport, mergeCandidates } from '../../../../src/core/stored/import-run.ts';
import { breakdown } from '../../../../src/core/results/breakdowns.ts';
import { buildLeaderboard, sortRows, type ScoredRun } from '../../../../src/core/results/leaderboard.ts';
import { compareRows, comparisonOf } from '../../../../src/core/results/comparisons.ts';
import { buildHtmlReport } from '../../../../src/core/results/report-html.ts';
import { overviewOf } from '../../../../src/core/results/overview.ts';
import { loadResults, resultsSignature } from '../../../../src/core/stored/overview.ts';
import { toSvgString, el, txt } from '../../../../src/core/results/svg.ts';
import { toRunExport } from '../../../../src/core/scoring/io/run-export.ts';
import { scoreRun } from '../../../../src/core/scoring/run/score-run.ts';
import { mcnemar } from '../../../../src/core/scoring/stats/mcnemar.ts';
import { cohenKappa } from '../../../../src/core/scoring/stats/kappa.ts';
import { itemKeyOf } from '../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import type { Variant } from '../../../../src/core/runner/types.ts';
import { testProvenance, testRun, testRunConfig } from '../../../support/run-record.ts';

const cases: BenchCase[] = Array.from({ length: 12 }, (_, i) => ({
  id: `c${i}`, taskFamily: 'differential-diagnosis', split: i < 6 ? 'direct' : 'complex', diseaseGroup: i % 2 ? 'stroke' : 'tumour', modality: 'MRI',
  images: [{ path: 'a.png', sequence: 'FLAIR', plane: 'axial' }],
  questions: [{ id: 'q', text: 'Dx?', reference: { diagnosis: i % 2 ? 'Ischemic stroke' : 'Glioblastoma' } }],
}));

function response(runId: string, modelId: string, c: BenchCase, right: boolean, variant: Variant = 'none'): ResponseRecord {
  const itemKey = itemKeyOf({ caseId: c.id, questionId: 'q', modelId, variant, sample: 0 });
  const dx = right ? c.questions[0]!.reference!.diagnosis! : 'Migraine';
  return {
    id: `${runId}/${itemKey}`, runId, itemKey, caseId: c.id, questionId: 'q', cacheKey: '', modelId, variant, sample: 0, rawText: dx,
    parsed: { hypotheses: [{ rank: 1, diagnosis: dx, confidence: right ? 0.9 : 0.6, evidence: null }] }, parseError: null,
    usage: { promptTokens: 10, completionTokens: 5, ttftMs: 1, prefillTps: 100, decodeTps: modelId === 'fast' ? 50 : 10 }, latencyMs: 100, finishReason: 'stop', createdAt: 1,
  };
}

/** Model "good" is right on 11 of 12, "weak" on 3 of 12 (the first three). */
const responses = [...cases.map((c, i) => response('r1', 'good', c, i !== 5)), ...cases.map((c, i) => response('r1', 'weak', c, i < 3))];

async function scored(): Promise<ScoredRun> {
  const r = await scoreRun({ protocolId: 'auto', cases, responses }, { resamples: 200 });
  const setId = 'r1/v1';
  return {
    run: { id: 'r1', name: 'Run one', benchmarkId: 'b', status: 'done', createdAt: 1 },
    set: { id: setId, runId: 'r1', version: 1, createdAt: 1, durationMs: 1, config: r.config, summary: r.summary },
    items: r.items.map((it): ScoreRecord => ({ ...it, id: `${setId}|${it.responseId}`, scoreSetId: setId, runId: 'r1' })),
  };
}

describe('leaderboard and model-vs-model tests', () => {
  it('lists each model with its metrics and sorts by a metric', async () => {
    const board = buildLeaderboard([await scored()]);
    expect(board.rows.map((r) => r.label)).toEqual(['good', 'weak']);
    expect(board.defaultMetric).toBe('pass@1');
    expect(board.rows[0]!.metrics['pass@1']).toMatchObject({ n: 12, mean: 11 / 12 });
    expect(sortRows(board.rows, 'pass@1', false).map((r) => r.label)).toEqual(['weak', 'good']);
    // Less is better for invalid multiple-choice answers: the default order puts the lowest first.
    const invalid = (label: string, mean: number) => ({ ...board.rows[0]!, id: label, label, metrics: { 'mcq.invalid': { ...board.rows[0]!.metrics['pass@1']!, metric: 'mcq.invalid', mean } } });
    expect(sortRows([invalid('often', 0.3), invalid('rarely', 0.01)], 'mcq.invalid').map((r) => r.label)).toEqual(['rarely', 'often']);
  });

  it('tests two models on the same items with McNemar (8 discordant pairs, all one way)', async () => {
    const run = await scored();
    const [c] = compareRows([run], 'pass@1');
    // good right & weak wrong on c3, c4, c6…c11 (8); the reverse never.
    const expected = mcnemar(cases.map((_, i) => i !== 5), cases.map((_, i) => i < 3));
    expect(c).toMatchObject({ a: 'r1|good', b: 'r1|weak', n: 12, method: 'mcnemar-exact', pValue: expected.pValue });
    expect(c!.difference).toBeCloseTo(8 / 12);
    expect(c!.pValue).toBeCloseTo(2 / 256, 12); // exact two-sided binomial, 8 of 8
    expect(comparisonOf([c!], 'r1|weak', 'r1|good')!.difference).toBeCloseTo(-8 / 12);
  });

  it('breaks a metric down by a case attribute with Wilson intervals', async () => {
    const run = await scored();
    const b = breakdown([run], new Map(cases.map((c) => [c.id, c])), 'split', 'pass@1');
    expect(b.groups).toEqual(['complex', 'direct']);
    expect(b.series.map((s) => s.label)).toEqual(['good', 'weak']);
    // weak: right on c0..c2, all in "direct" (6 cases) → 3/6; none in "complex".
    expect(b.cells[1]![1]).toMatchObject({ value: 0.5, n: 6 });
    expect(b.cells[0]![1]).toMatchObject({ value: 0, n: 6 });
    expect(b.cells[1]![0]).toMatchObject({ value: 5 / 6, n: 6 });
  });

  it("breaks a metric down by the benchmark's own sub-task, cases without one apart", async () => {
    const run = await scored();
    const withTasks = new Map(cases.map((c, i) => [c.id, i < 8 ? { ...c, subtask: i % 2 ? 'Multi_View' : 'Registered_Diff' } : c]));
    const b = breakdown([run], withTasks, 'subtask', 'pass@1');
    expect(b.groups).toEqual(['(none)', 'Multi_View', 'Registered_Diff']);
    // weak is right on c0..c2: c0 and c2 are Registered_Diff (of 4), c1 Multi_View (of 4).
    expect(b.cells[2]![1]).toMatchObject({ value: 2 / 4, n: 4 });
    expect(b.cells[1]![1]).toMatchObject({ value: 1 / 4, n: 4 });
    expect(b.cells[0]![1]).toMatchObject({ value: 0, n: 4 });
  });

  it("names its series as people read them: the run's name for each model, a variant in words", async () => {
    const run = await scored();
    const named = { ...run, run: { ...run.run, modelNames: { good: 'Good model (4B, q4)', weak: 'Weak model' } } };
    const b = breakdown([named], new Map(cases.map((c) => [c.id, c])), 'split', 'pass@1');
    expect(b.series.map((s) => s.label)).toEqual(['Good model (4B, q4)', 'Weak model']);
    const noisy = { ...named, items: named.items.map((it) => ({ ...it, variant: 'degrade:noise:2' })) };
    const byVariant = breakdown([noisy], new Map(cases.map((c) => [c.id, c])), 'split', 'pass@1');
    expect(byVariant.series[0]!.label).toMatch(/^Good model \(4B, q4\) \[.*noise.*\]$/i);
    expect(byVariant.series[0]!.label).not.toContain('degrade:');
  });
});

describe('answers table', () => {
  it('filters, sorts with missing values last, and pages', async () => {
    const rows = (await scored()).items.map(answerTableRow);
    const wrong = queryAnswers(rows, { outcome: 'wrong', sort: { key: 'caseId' }, limit: 3 });
    expect(wrong.total).toBe(10);
    expect(wrong.rows.map((r) => `${r.modelId}:${r.caseId}`)).toEqual(['weak:c3', 'weak:c4', 'good:c5']);
    expect(queryAnswers(rows, { modelId: 'good', search: 'C1', sort: { key: 'caseId', descending: true } }).rows.map((r) => r.caseId)).toEqual(['c11', 'c10', 'c1']);
  });
});

describe('agreement', () => {
  const review = (responseId: string, reviewerId: string, verdict: string, rationaleRating: number | null = null): ReviewRecord => ({
    id: `${responseId}::${reviewerId}`, responseId, runId: 'r1', reviewerId, verdict, errorClasses: [], rationaleRating, reason: '', createdAt: 1, previous: [],
  });

  it('computes κ between reviewers and between the machine and each reviewer', async () => {
    const run = await scored();
    const ids = run.items.filter((it) => it.modelId === 'weak').map((it) => it.responseId).slice(0, 6); // machine: right, right, right, wrong, wrong, wrong
    const a = ['correct', 'correct', 'incorrect', 'incorrect', 'incorrect', 'correct'];
    const b = ['correct', 'incorrect', 'incorrect', 'incorrect', 'incorrect', 'correct'];
    const reviews = [...ids.map((id, i) => review(id, 'dr-a', a[i]!, i + 1)), ...ids.map((id, i) => review(id, 'dr-b', b[i]!, Math.min(5, i + 2)))];
    const report = agreementReport(reviews, run.items);
    expect(report.reviewers).toEqual(['dr-a', 'dr-b']);
    expect(report.verdicts.pairs[0]).toMatchObject({ a: 'dr-a', b: 'dr-b', n: 6, agreement: 5 / 6, kappa: cohenKappa(a, b) });
    const machine = ['correct', 'correct', 'correct', 'incorrect', 'incorrect', 'incorrect'];
    expect(report.machine.find((m) => m.b === 'dr-a')).toMatchObject({ n: 6, kappa: cohenKappa(machine, a) });
    expect(report.overrides).toBe(2 + 3); // dr-a differs from the machine on 2 answers, dr-b on 3
    expect(report.verdicts.alphaUnits).toBe(6);
    expect(report.ratings.pairs[0]!.n).toBe(6);
    expect(report.ratingVsSimilarity.n).toBe(0); // differentials have no similarity metric
  });

  it('says "undefined" for κ and α when every reviewer gave every answer the same verdict, in the report too', async () => {
    const run = await scored();
    const ids = run.items.filter((it) => it.modelId === 'weak').map((it) => it.responseId).slice(0, 4);
    const reviews = [...ids.map((id) => review(id, 'dr-a', 'correct')), ...ids.map((id) => review(id, 'dr-b', 'correct'))];
    const report = agreementReport(reviews, run.items);
    expect(report.verdicts.pairs[0]).toMatchObject({ n: 4, agreement: 1 });
    expect(report.verdicts.pairs[0]!.kappa).toBeNaN();
    expect(report.verdicts.alpha).toBeNaN();
    const html = buildHtmlReport({ overview: overviewOf({ benchmark: { id: 'b', name: 'Bench', version: '1', caseCount: 4, contentHash: 'f'.repeat(64) } as never, runs: [], scored: [], cases: new Map(), reviews: [], answers: [], signature: '' }), metric: 'pass@1', comparisons: [], breakdowns: [], agreement: report, generatedAt: new Date(0), appVersion: 'test' });
    expect(html).toMatch(/dr-a – dr-b \(verdicts\)<\/td><td class="num">4<\/td><td class="num">undefined<\/td><td class="num">100.0%<\/td>/);
    expect(html).toContain("Krippendorff's α: verdicts undefined (4 answers with ≥ 2 reviews)");
    expect(html).toContain('κ, α and r are undefined (not 0, not 1)');
  });

  it('keeps the machine verdict visible after a reviewer override', async () => {
    const target = responses.find((r) => r.modelId === 'weak' && r.caseId === 'c0')!;
    const r = await scoreRun({ protocolId: 'auto', cases, responses: [target], reviews: [review(target.id, 'dr-a', 'incorrect')] });
    expect(r.items[0]!.metrics['pass@1']).toMatchObject({ value: 0, source: 'reviewer' });
    expect(machineVerdict({ ...r.items[0]!, id: 'x', scoreSetId: 's', runId: 'r1' })).toEqual({ correct: true, source: 'rule' });
  });
});

describe('CSV', () => {
  it('neutralises formulas in text cells but keeps numbers and quotes what needs quoting', () => {
    expect(['=HYPERLINK("http://x")', '+1', '-2+3', '@SUM(A1)', '\tx', 'plain', 'a,b', 'say "hi"'].map(csvCell)).toEqual([
      `"'=HYPERLINK(""http://x"")"`, "'+1", "'-2+3", "'@SUM(A1)", "'\tx", 'plain', '"a,b"', '"say ""hi"""',
    ]);
    expect([-0.5, 3, Number.NaN, null].map(csvCell)).toEqual(['-0.5', '3', '', '']);
    expect(toCsv(['a', 'b'], [['x', 1]])).toBe('\uFEFFa,b\r\nx,1\r\n');
  });
});

describe('SVG and the HTML report', () => {
  it('escapes text and refuses script-like attributes', () => {
    expect(toSvgString(el('svg', {}, [txt('text', '<script>alert(1)</script>')]))).toBe('<svg xmlns="http://www.w3.org/2000/svg"><text>&lt;script&gt;alert(1)&lt;/script&gt;</text></svg>');
    expect(() => toSvgString(el('g', { onclick: 'x' }))).toThrow(/attribute/);
  });

  it('is one offline file: no script, no external URL, its own CSP, escaped names', async () => {
    const db = await openDatabase({ name: `results-${Date.now()}`, indexedDB, IDBKeyRange });
    const repos = createRepositories(db);
    const run = await scored();
    await repos.benchmarks.putWithContent({
      id: 'b', name: 'Bench <b>&', version: '1', license: 'MIT', description: '', contentHash: 'h'.repeat(64), source: 'x', synthetic: true, caseCount: 12, createdAt: 1, files: [],
      manifest: { format: 'neuroeval-bundle', formatVersion: 1, id: 'b', name: 'Bench', version: '1', license: 'MIT', contentHash: 'h'.repeat(64), caseCount: 12, imageCount: 0 },
    }, cases);
    await repos.runs.put(testRun({ id: 'r1', name: 'Run <one>', plan: { cases: 12, models: 2, variants: 1, samples: 1, items: 24 } }));
    await repos.scores.saveVersion('r1', { durationMs: 1, config: run.set.config, summary: run.set.summary }, run.items);
    const loaded = await loadResults(repos, 'b');
    // The page watches resultsSignature and the worker skips its reload when they match: they must agree.
    expect(loaded.signature).toBe(await resultsSignature(repos, 'b'));
    await repos.reviews.record({ responseId: run.items[0]!.responseId, runId: 'r1', reviewerId: 'dr-x', verdict: 'correct', errorClasses: [], rationaleRating: null, reason: '' });
    expect(await resultsSignature(repos, 'b')).not.toBe(loaded.signature);
    const overview = overviewOf(await loadResults(repos, 'b'));
    const html = buildHtmlReport({ overview, metric: 'pass@1', comparisons: compareRows((await loadResults(repos, 'b')).scored, 'pass@1'), breakdowns: [], agreement: agreementReport([], []), generatedAt: new Date(0), appVersion: 'test' });
    db.close();
    expect(html).toContain('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; img-src data:">');
    expect(html).not.toMatch(/<script|<link|<img|src=|href="http|url\(/i);
    expect(html).toContain('Bench &lt;b&gt;&amp;');
    expect(html).toContain('Run &lt;one&gt;');
    expect(html).toContain('<svg xmlns="http://www.w3.org/2000/svg"');
    expect(html).toMatch(/weak[\s\S]*▼ p=0\.0078/);
  });
});

describe('importing exported runs', () => {
  async function setup() {
    const db = await openDatabase({ name: `import-${Date.now()}-${Math.random()}`, indexedDB, IDBKeyRange });
    const repos = createRepositories(db);
    await repos.benchmarks.putWithContent({
      id: 'b', name: 'Bench', version: '1', license: 'MIT', description: '', contentHash: 'h'.repeat(64), source: 'x', synthetic: true, caseCount: 12, createdAt: 1, files: [],
      manifest: { format: 'neuroeval-bundle', formatVersion: 1, id: 'b', name: 'Bench', version: '1', license: 'MIT', contentHash: 'h'.repeat(64), caseCount: 12, imageCount: 0 },
    }, cases);
    return { db, repos };
  }
  const provenance = (hash: string, weights = 'f1') => testProvenance({ benchmark: { id: 'b', contentHash: hash }, models: [{ id: 'good', runtime: 'transformers', files: [{ name: 'model.onnx', sha256: weights }] }] });
  const runRecord = (id: string, hash = 'h'.repeat(64)): RunRecord => testRun({ id, name: `Run ${id}`, config: testRunConfig(), provenance: provenance(hash), plan: { cases: 6, models: 1, variants: 1, samples: 1, items: 6 } });
  const half = (runId: string, from: number) => cases.slice(from, from + 6).map((c) => response(runId, 'good', c, true));

  it('stores a new run, refuses other benchmark content, and merges a compatible half without duplicates', async () => {
    const { db, repos } = await setup();
    const first = await importRunExport(repos, toRunExport(runRecord('laptop-a'), half('laptop-a', 0)), 'a.json');
    expect(first).toMatchObject({ created: true, added: 6, kept: 0, status: 'done' });
    await expect(importRunExport(repos, toRunExport(runRecord('x', 'z'.repeat(64)), half('x', 0)), 'x.json')).rejects.toMatchObject({ code: 'INVALID_INPUT', location: { file: 'x.json', field: 'provenance.benchmark.contentHash' } });

    const other = toRunExport(runRecord('laptop-b'), [...half('laptop-b', 6), ...half('laptop-b', 0).slice(0, 2)]);
    expect((await mergeCandidates(repos, other)).map((r) => r.id)).toEqual(['laptop-a']);
    const merged = await importRunExport(repos, other, 'b.json', { into: 'laptop-a' });
    expect(merged).toMatchObject({ runId: 'laptop-a', created: false, added: 6, kept: 2, status: 'done' });
    expect(await repos.responses.countByRun('laptop-a')).toBe(12);
    const run = await repos.runs.get('laptop-a');
    expect(run!.plan.items).toBe(12);
    expect(run!.plan.cases).toBe(12);
    expect(run!.config).toEqual(testRunConfig());
    expect(run!.provenance.merged).toEqual([{ runId: 'laptop-b', name: 'Run laptop-b', exportedAt: null, answers: 8 }]);
    expect((await repos.responses.listByRunAndCase('laptop-a', 'c7')).map((r) => [r.caseId, r.questionId])).toEqual([['c7', 'q']]);
    expect(await repos.runs.get('laptop-b')).toBeUndefined();
    db.close();
  });

  it('refuses to merge runs that asked differently', async () => {
    const { db, repos } = await setup();
    await importRunExport(repos, toRunExport(runRecord('a'), half('a', 0)));
    const other = runRecord('b');
    const different = toRunExport({ ...other, provenance: provenance('h'.repeat(64), 'f2') }, half('b', 6));
    await expect(importRunExport(repos, different, 'b.json', { into: 'a' })).rejects.toThrow(/cannot be merged into "Run a" \(other model files\)/);
    expect(await repos.responses.countByRun('a')).toBe(6);
    db.close();
  });
});

describe('formatting', () => {
  it('reads proportions as percent, other metrics as decimals, and answers as right / wrong', async () => {
    const { metricInterval, metricNumber, itemValue } = await import('../../../../src/core/results/format.ts');
    expect(metricNumber({ ciMethod: 'wilson' }, 0.4567)).toBe('45.7%');
    expect(metricInterval({ ciMethod: 'bootstrap', ci: { lower: 0.12, upper: 0.3456 } })).toBe('0.120–0.346');
    expect(metricInterval({ ciMethod: 'wilson', ci: { lower: NaN, upper: NaN } })).toBe('–');
    expect([itemValue('pass@1', 1), itemValue('pass@1', 0), itemValue('rubric', 0), itemValue('rougeL', null)]).toEqual(['right', 'wrong', '0.000', 'not scorable']);
  });
});
