/**
 * A benchmark's results page without a page: the first overview picks the
 * default metric and chart rows and starts the drawing in steps; what is
 * asked later waits for the page to settle; an answer for a choice the user
 * has since changed is dropped; a choice the newer overview no longer offers
 * falls back; exports hold their button while they are written. The worker
 * calls are answered by the same core code the results worker runs, over a
 * database holding one scored two-model run.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import { createRepositories, openDatabase, type Repositories } from '../../../../src/core/db/index.ts';
import { agreementReport } from '../../../../src/core/results/agreement.ts';
import { breakdown } from '../../../../src/core/results/breakdowns.ts';
import { compareRows } from '../../../../src/core/results/comparisons.ts';
import { scoresCsv } from '../../../../src/core/results/scores-csv.ts';
import { itemKeyOf } from '../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import { scoreRun } from '../../../../src/core/scoring/run/score-run.ts';
import { loadResults } from '../../../../src/core/stored/overview.ts';
import { loadStoredDetail, loadStoredResults, storedOverview } from '../../../../src/core/stored/results.ts';
import { BenchmarkResultsManager, CHART_STAGE, type ResultsWorkers } from '../../../../src/features/results/benchmark-results-manager.svelte.ts';
import { testRun } from '../../../support/run-record.ts';

const DX = ['Glioblastoma', 'Ischemic stroke', 'Multiple sclerosis', 'Meningioma'];
const cases: BenchCase[] = DX.map((dx, i) => ({
  id: `case-${i + 1}`,
  taskFamily: 'differential-diagnosis',
  diseaseGroup: i < 2 ? 'vascular-neoplastic' : 'other',
  images: [{ path: `case-${i + 1}.png`, sequence: 'FLAIR', plane: 'axial' }],
  questions: [{ id: 'q', text: `Differential for case ${i + 1}?`, reference: { diagnosis: dx } }],
}));

/** alpha gets every case right, beta only the first. */
function answers(runId: string, modelId: string, right: (i: number) => boolean): ResponseRecord[] {
  return cases.map((c, i) => {
    const dx = right(i) ? DX[i]! : 'Abscess';
    const itemKey = itemKeyOf({ caseId: c.id, questionId: 'q', modelId, variant: 'none', sample: 0 });
    return {
      id: `${runId}/${itemKey}`, runId, itemKey, caseId: c.id, questionId: 'q', cacheKey: '', modelId, variant: 'none', sample: 0, rawText: dx,
      parsed: { hypotheses: [{ rank: 1, diagnosis: dx, confidence: 0.7, evidence: null }] }, parseError: null,
      usage: { promptTokens: 10, completionTokens: 5, ttftMs: 1, prefillTps: 100, decodeTps: 10 }, latencyMs: 100, finishReason: 'stop', createdAt: 1,
    };
  });
}

let repos: Repositories;
/** Calls made, in order, by method. */
const calls: string[] = [];
/** The core code the results worker runs for each call this page makes. */
const workers: ResultsWorkers = {
  front: {
    overview: async (i) => (calls.push('overview'), storedOverview(repos, await loadStoredResults(repos, i.benchmarkId))),
    agreement: async (i) => {
      calls.push('agreement');
      const data = await loadStoredResults(repos, i.benchmarkId);
      return agreementReport(data.reviews, data.reviewed.flatMap((s) => s.items));
    },
  },
  background: {
    compare: async (i) => {
      calls.push(`compare:${i.metric}:${i.unit}`);
      const detail = await loadStoredDetail(repos, await loadStoredResults(repos, i.benchmarkId));
      return compareRows(detail.itemsFor(i.metric), i.metric, { unit: i.unit ?? 'question', cases: detail.cases });
    },
    breakdown: async (i) => {
      calls.push(`breakdown:${i.dimension}:${i.metric}`);
      const detail = await loadStoredDetail(repos, await loadStoredResults(repos, i.benchmarkId));
      return breakdown(detail.itemsFor(i.metric), detail.cases, i.dimension, i.metric, { resamples: 50 });
    },
    exportCsv: async (i) => scoresCsv(await loadResults(repos, i.benchmarkId)),
    exportHtml: async () => ({ fileName: 'report.html', text: '<html></html>' }),
  },
};

const tasks = (n = 12) => new Promise<void>((resolve) => {
  const step = (k: number) => (k ? setTimeout(() => step(k - 1), 0) : resolve());
  step(n);
});
const savedFrame = globalThis.requestAnimationFrame;

beforeAll(async () => {
  globalThis.requestAnimationFrame = (cb: FrameRequestCallback) => setTimeout(() => cb(0), 0) as unknown as number;
  repos = createRepositories(await openDatabase({ name: `benchmark-results-${Date.now()}`, indexedDB, IDBKeyRange }));
  await repos.benchmarks.putWithContent({
    id: 'b', name: 'Bench', version: '1', license: 'MIT', description: '', contentHash: 'h'.repeat(64), source: 'x', synthetic: true, caseCount: cases.length, createdAt: 1, files: [],
    manifest: { format: 'neuroeval-bundle', formatVersion: 1, id: 'b', name: 'Bench', version: '1', license: 'MIT', contentHash: 'h'.repeat(64), caseCount: cases.length, imageCount: 0 },
  }, cases);
  await repos.runs.put(testRun({ id: 'r1', benchmarkId: 'b', name: 'Scored run', plan: { cases: 4, models: 2, variants: 1, samples: 1, items: 8 } }));
  const responses = [...answers('r1', 'alpha', () => true), ...answers('r1', 'beta', (i) => i === 0)];
  await repos.responses.putBatch(responses);
  const r = await scoreRun({ protocolId: 'auto', cases, responses, reviews: [] }, { resamples: 50 });
  await repos.scores.saveVersion('r1', { durationMs: 1, config: r.config, summary: r.summary }, r.items, cases);
  // A second run with answers and no score yet.
  await repos.runs.put(testRun({ id: 'r2', benchmarkId: 'b', name: 'Unscored run', plan: { cases: 4, models: 1, variants: 1, samples: 1, items: 4 } }));
  await repos.responses.putBatch(answers('r2', 'gamma', () => false));
});
afterAll(() => {
  globalThis.requestAnimationFrame = savedFrame;
});

describe('the benchmark results page', () => {
  it('draws the first overview in steps, with the default metric and the first chart rows chosen', async () => {
    const page = new BenchmarkResultsManager('b', workers);
    await page.loadOverview('rev-1');
    expect(page.error).toBeNull();
    expect(page.overview?.leaderboard.rows.map((r) => r.modelId).sort()).toEqual(['alpha', 'beta']);
    expect(page.metric).toBe(page.overview!.leaderboard.defaultMetric);
    expect(page.breakdownMetric).toBe(page.metric);
    expect(page.confusionRow).toBe(page.overview!.confusion[0]?.rowId ?? '');
    expect(page.unscored.map((r) => r.name)).toEqual(['Unscored run']);
    expect(page.stale).toEqual([]);
    // The header first; the leaderboard, then what lies below it, each in a later task.
    expect([page.board, page.below]).toEqual([false, false]);
    await tasks(1);
    expect([page.board, page.below]).toEqual([true, false]);
    await tasks(1);
    expect([page.board, page.below]).toEqual([true, true]);
    expect(page.chartsStage).toBe(0);
  });

  it('asks for tests, breakdowns and agreement only once the page has settled, then draws the charts one step at a time', async () => {
    calls.length = 0;
    const page = new BenchmarkResultsManager('b', workers);
    await page.loadOverview('rev-1');
    await page.loadComparisons('rev-1');
    await page.loadBreakdown('rev-1');
    await page.loadAgreement('rev-1');
    expect(calls).toEqual(['overview']);
    expect(page.comparisons).toBeNull();
    page.drawCharts();
    page.drawCharts(); // a second call (the fallback timer) changes nothing
    expect(page.settled).toBe(true);
    await Promise.all([page.loadComparisons('rev-1'), page.loadBreakdown('rev-1'), page.loadAgreement('rev-1')]);
    expect(calls.slice(1).sort()).toEqual(['agreement', `breakdown:taskFamily:${page.metric}`, `compare:${page.metric}:question`]);
    expect(page.comparisons?.length).toBeGreaterThan(0);
    expect(page.breakdown?.series.length).toBe(2);
    expect(page.agreement).not.toBeNull();
    const stages: number[] = [];
    for (let i = 0; i < 12 && page.chartsStage < CHART_STAGE.degradation; i++) {
      await tasks(1);
      stages.push(page.chartsStage);
    }
    // One chart more per task, never all at once.
    expect(stages.every((s, i) => i === 0 || s - stages[i - 1]! <= 1 && s >= stages[i - 1]!)).toBe(true);
    expect(page.chartsStage).toBe(CHART_STAGE.degradation);
  });

  it('drops a test that answers after the user changed the metric or the unit', async () => {
    const page = new BenchmarkResultsManager('b', workers);
    await page.loadOverview('rev-1');
    page.drawCharts();
    const first = page.metric;
    const other = page.overview!.leaderboard.metrics.find((m) => m.key !== first)!.key;
    const late = page.loadComparisons('rev-1');
    page.metric = other;
    await late;
    expect(page.comparisons).toBeNull();
    await page.loadComparisons('rev-1');
    expect(page.comparisons?.every((c) => c.metric === other)).toBe(true);
    const lateBreakdown = page.loadBreakdown('rev-1');
    page.dimension = 'diseaseGroup';
    await lateBreakdown;
    expect(page.breakdown).toBeNull();
    await page.loadBreakdown('rev-1');
    expect(page.breakdown?.dimension).toBe('diseaseGroup');
    expect(page.breakdown?.groups).toEqual(['other', 'vascular-neoplastic']);
  });

  it('keeps the user\'s choices a newer overview still offers, and falls back where it does not', async () => {
    const page = new BenchmarkResultsManager('b', workers);
    await page.loadOverview('rev-1');
    const o = page.overview!;
    const other = o.leaderboard.metrics.find((m) => m.key !== o.leaderboard.defaultMetric)!.key;
    page.metric = other;
    page.dimension = 'diseaseGroup';
    page.received(o);
    expect([page.metric, page.dimension]).toEqual([other, 'diseaseGroup']);
    page.received({ ...o, leaderboard: { ...o.leaderboard, metrics: o.leaderboard.metrics.filter((m) => m.key !== other) }, dimensions: ['taskFamily'] });
    expect([page.metric, page.dimension]).toEqual([o.leaderboard.defaultMetric, 'taskFamily']);
  });

  it('says why the overview could not be read', async () => {
    const page = new BenchmarkResultsManager('b', { ...workers, front: { ...workers.front, overview: async () => Promise.reject(new Error('Benchmark "b" no longer exists.')) } });
    await page.loadOverview('rev-1');
    expect(page.error).toBe('Benchmark "b" no longer exists.');
    expect(page.overview).toBeNull();
  });

  it('holds the export buttons while an export is written, and names the file', async () => {
    const page = new BenchmarkResultsManager('b', workers);
    await page.loadOverview('rev-1');
    const csv = page.exportCsv();
    expect(page.exporting).toBe('csv');
    const { fileName, text } = await csv;
    expect(page.exporting).toBeNull();
    expect(fileName).toBe('neuroeval-answers-b.csv');
    expect(text.trim().split('\n')).toHaveLength(1 + 8);
    let asked: unknown;
    const withReport = new BenchmarkResultsManager('b', { ...workers, background: { ...workers.background, exportHtml: async (i) => ((asked = i), { fileName: 'r.html', text: '' }) } });
    await withReport.loadOverview('rev-1');
    withReport.leaveImagesOut = true;
    await withReport.exportHtml('1.2.3');
    expect(asked).toEqual({ benchmarkId: 'b', metric: withReport.metric, appVersion: '1.2.3', images: false });
  });
});
