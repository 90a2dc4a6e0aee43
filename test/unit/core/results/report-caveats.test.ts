/**
 * What the exports tell a reader beyond the numbers: the HTML report warns
 * when a model has random weights and when a local judge scored answers, and
 * the answers CSV lists cases in the order a person would (c2 before c10).
 */
import { describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import type { ScoreRecord } from '../../../../src/core/scoring/run/records.ts';
import { agreementReport } from '../../../../src/core/results/agreement.ts';
import type { ScoredRun } from '../../../../src/core/results/leaderboard.ts';
import { overviewOf, type LoadedResults } from '../../../../src/core/results/overview.ts';
import { buildHtmlReport } from '../../../../src/core/results/report-html.ts';
import { scoresCsv } from '../../../../src/core/results/scores-csv.ts';
import { itemKeyOf } from '../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import { scoreRun } from '../../../../src/core/scoring/run/score-run.ts';

// Ids whose text order (c1, c10, c2) differs from their natural order (c1, c2, c10).
const cases: BenchCase[] = ['c10', 'c2', 'c1'].map((id) => ({ id, taskFamily: 'differential-diagnosis', questions: [{ id: 'q', text: 'Dx?', reference: { diagnosis: 'Glioblastoma' } }], images: [] }));

function response(modelId: string, c: BenchCase): ResponseRecord {
  const itemKey = itemKeyOf({ caseId: c.id, questionId: 'q', modelId, variant: 'none', sample: 0 });
  return {
    id: `r1/${itemKey}`, runId: 'r1', itemKey, caseId: c.id, questionId: 'q', cacheKey: '', modelId, variant: 'none', sample: 0, rawText: 'Glioblastoma',
    parsed: { hypotheses: [{ rank: 1, diagnosis: 'Glioblastoma', confidence: 0.9, evidence: null }] }, parseError: null,
    usage: { promptTokens: 10, completionTokens: 5, ttftMs: 1, prefillTps: 100, decodeTps: 10 }, latencyMs: 100, finishReason: 'stop', createdAt: 1,
  };
}

async function loaded(modelIds: readonly string[], judge: string | null): Promise<LoadedResults> {
  const r = await scoreRun({ protocolId: 'auto', cases, responses: modelIds.flatMap((m) => cases.map((c) => response(m, c))) }, { resamples: 50 });
  const setId = 'r1/v1';
  const run: ScoredRun = {
    run: { id: 'r1', name: 'Run one', benchmarkId: 'b', status: 'done', createdAt: 1 },
    set: { id: setId, runId: 'r1', version: 1, createdAt: 1, durationMs: 1, config: { ...r.config, judge }, summary: r.summary },
    items: r.items.map((it): ScoreRecord => ({ ...it, id: `${setId}|${it.responseId}`, scoreSetId: setId, runId: 'r1' })),
  };
  return {
    benchmark: { id: 'b', name: 'Bench', version: '1', caseCount: 3, contentHash: 'f'.repeat(64) } as never,
    runs: [{ id: 'r1', name: 'Run one', status: 'done', createdAt: 1, answers: run.items.length, scoreVersion: 1, scoredAt: 1, judge, encoder: null, newReviews: 0, reader: null }],
    scored: [run], cases: new Map(cases.map((c) => [c.id, c])), reviews: [], answers: [], signature: '',
  };
}

const report = (data: LoadedResults) => buildHtmlReport({ overview: overviewOf(data), metric: 'pass@1', comparisons: [], breakdowns: [], agreement: agreementReport([], []), generatedAt: new Date(0), appVersion: 'test' });
const caveat = (html: string, note: string) => html.match(new RegExp(`<p class="caveat" data-note="${note}">(.*?)</p>`))?.[1] ?? null;

describe('the HTML report', () => {
  it('says the self-test model has random weights, naming it, and says nothing of the kind for other models', async () => {
    const html = report(await loaded(['self-test', 'my-imported-model'], null));
    const text = caveat(html, 'random-weights');
    expect(text).toContain('Self-test (random weights): its weights are random numbers');
    expect(text).toContain('meaningless as medical performance');
    expect(text).not.toContain('my-imported-model');
    expect(caveat(report(await loaded(['my-imported-model'], null)), 'random-weights')).toBeNull();
  });

  it('names models in the leaderboard by their display names, with the id beside', async () => {
    const html = report(await loaded(['self-test'], null));
    expect(html).toContain('<th scope="row">Self-test (random weights)<br><span class="muted">self-test · Run one · v1</span></th>');
  });

  it('carries the local-judge caveat whenever a judge scored the answers, even if every verdict came from the rules', async () => {
    // Every answer here matches the reference exactly, so no figure depends on the judge.
    const data = await loaded(['my-imported-model'], 'self-test-text');
    expect(overviewOf(data).judgeUsed).toBe(false);
    const text = caveat(report(data), 'local-judge');
    expect(text).toContain('NOT equivalent to the GPT-4o rubric grader');
    expect(text).toContain('Judge used: Self-test text model (random weights)');
    expect(text).toContain('Self-test text model (random weights) has random weights: its verdicts are meaningless');
    expect(caveat(report(await loaded(['my-imported-model'], null)), 'local-judge')).toBeNull();
  });
});

describe('the answers CSV', () => {
  it('lists cases in natural order (c1, c2, c10), not as text sorts them', async () => {
    const csv = scoresCsv(await loaded(['m'], null));
    const ids = csv.trim().split('\r\n').slice(1).map((line) => line.split(',')[1]);
    expect(ids).toEqual(['c1', 'c2', 'c10']);
  });
});
