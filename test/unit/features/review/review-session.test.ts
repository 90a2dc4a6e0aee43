/**
 * A reviewer's session without a page: the queue of a scored run, each answer
 * shown with its own case, the verdict form reset per answer, the machine's
 * verdict hidden until the reviewer gives theirs, an override refused
 * without a reason, and a saved review stored and moved past.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import { createRepositories, openDatabase, type Repositories } from '../../../../src/core/db/index.ts';
import { itemKeyOf } from '../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import { scoreRun } from '../../../../src/core/scoring/run/score-run.ts';
import { ReviewSession } from '../../../../src/features/review/review-session.svelte.ts';
import { testRun } from '../../../support/run-record.ts';

const cases: BenchCase[] = ['Glioblastoma', 'Ischemic stroke', 'Multiple sclerosis'].map((dx, i) => ({
  id: `case-${i + 1}`,
  taskFamily: 'differential-diagnosis',
  images: [{ path: `case-${i + 1}.png`, sequence: 'FLAIR', plane: 'axial' }],
  questions: [{ id: 'q', text: `Differential for case ${i + 1}?`, reference: { diagnosis: dx } }],
}));

/** case-1 answered right, the others wrong. */
const responses: ResponseRecord[] = cases.map((c, i) => {
  const dx = i === 0 ? c.questions[0]!.reference!.diagnosis! : 'Meningioma';
  const itemKey = itemKeyOf({ caseId: c.id, questionId: 'q', modelId: 'alpha', variant: 'none', sample: 0 });
  return {
    id: `r1/${itemKey}`, runId: 'r1', itemKey, caseId: c.id, questionId: 'q', cacheKey: '', modelId: 'alpha', variant: 'none', sample: 0, rawText: dx,
    parsed: { hypotheses: [{ rank: 1, diagnosis: dx, confidence: 0.6, evidence: null }] }, parseError: null,
    usage: { promptTokens: 10, completionTokens: 5, ttftMs: 1, prefillTps: 100, decodeTps: 10 }, latencyMs: 100, finishReason: 'stop', createdAt: 1,
  };
});

let repos: Repositories;
beforeAll(async () => {
  repos = createRepositories(await openDatabase({ name: `review-session-${Date.now()}`, indexedDB, IDBKeyRange }));
  await repos.benchmarks.putWithContent({
    id: 'b', name: 'Bench', version: '1', license: 'MIT', description: '', contentHash: 'h'.repeat(64), source: 'x', synthetic: true, caseCount: cases.length, createdAt: 1, files: [],
    manifest: { format: 'neuroeval-bundle', formatVersion: 1, id: 'b', name: 'Bench', version: '1', license: 'MIT', contentHash: 'h'.repeat(64), caseCount: cases.length, imageCount: 0 },
  }, cases);
  await repos.runs.put(testRun({ id: 'r1', benchmarkId: 'b', name: 'Run one', plan: { cases: 3, models: 1, variants: 1, samples: 1, items: 3 } }));
  await repos.responses.putBatch(responses);
  const r = await scoreRun({ protocolId: 'auto', cases, responses, reviews: [] }, { resamples: 50 });
  await repos.scores.saveVersion('r1', { durationMs: 1, config: r.config, summary: r.summary }, r.items, cases);
});

async function opened(reviewerId: string): Promise<ReviewSession> {
  const stored = await repos.reviews.listByRun('r1');
  const s = new ReviewSession('r1', reviewerId, async () => repos, () => stored);
  await s.load();
  s.rebuildQueue(stored);
  await s.open();
  return s;
}

describe('a review session', () => {
  it('walks the run\'s answers, each with its own case, the form empty and the machine hidden until a verdict', async () => {
    const s = await opened('dr-a');
    expect(s.base?.run.name).toBe('Run one');
    expect(s.queue).toHaveLength(3);
    const seen: string[] = [];
    for (let i = 0; i < s.queue.length; i++) {
      expect(s.current?.response.id).toBe(s.item!.responseId);
      expect(s.current?.kase?.id).toBe(s.item!.caseId);
      expect(s.current?.kase?.images[0]?.path).toBe(`${s.item!.caseId}.png`);
      expect(s.verdict).toBeNull();
      expect(s.revealed).toBe(false);
      seen.push(s.item!.caseId);
      s.go(1);
      // Until the next answer is read, nothing of the last one is shown under its name.
      if (i < s.queue.length - 1) expect(s.current).toBeNull();
      await s.open();
    }
    expect(seen.sort()).toEqual(['case-1', 'case-2', 'case-3']);
    // The model is named by its blind label unless the reviewer asks.
    expect(s.label('alpha')).not.toBe('alpha');
    expect(s.key('m')).toBe(true);
    expect(s.label('alpha')).toBe('alpha');
  });

  it('asks for a verdict first, refuses an override without a reason, then stores the review and moves on', async () => {
    const s = await opened('dr-b');
    while (s.item?.caseId !== 'case-1') {
      s.go(1);
      await s.open();
    }
    expect(s.machine?.correct).toBe(true);
    expect(await s.save()).toBe('needs-verdict');
    expect(s.problem).toContain('Give your verdict first');
    s.choose('incorrect');
    expect(s.revealed).toBe(true);
    expect(s.isOverride).toBe(true);
    expect(await s.save()).toBe('needs-reason');
    expect(s.problem).toContain('An override needs a reason');
    s.reason = '  The lesion is a meningioma.  ';
    s.key('1');
    const at = s.index;
    expect(await s.save()).toBe('saved');
    expect(s.problem).toBeNull();
    const stored = (await repos.reviews.listByRun('r1')).find((r) => r.reviewerId === 'dr-b');
    expect(stored).toMatchObject({ verdict: 'incorrect', reason: 'The lesion is a meningioma.', errorClasses: [expect.any(String)] });
    expect(s.lastSaved?.text).toBe('Stored your verdict on case case-1, question q: incorrect (override).');
    if (at < s.queue.length - 1) expect(s.index).toBe(at + 1);
  });

  it('opens an answer this reviewer already reviewed with their verdict, reason and classes', async () => {
    const s = await opened('dr-b');
    // The default queue holds what dr-b has not reviewed: case-1 is reviewed now.
    expect(s.queue.map((q) => q.caseId)).not.toContain('case-1');
    s.filter = 'all';
    s.rebuildQueue(s.reviews()!);
    while (s.item?.caseId !== 'case-1') {
      s.go(1);
      await s.open();
    }
    await s.open();
    expect(s.mine?.verdict).toBe('incorrect');
    expect(s.verdict).toBe('incorrect');
    expect(s.reason).toBe('The lesion is a meningioma.');
    expect(s.classes).toHaveLength(1);
    expect(s.revealed).toBe(true);
  });
});
