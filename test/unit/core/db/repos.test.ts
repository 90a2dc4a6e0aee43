/** Behaviour of the storage repositories, on fake-indexeddb with a fresh database per test. */
import { IDBKeyRange, forceCloseDatabase, indexedDB } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLOSED_BY_BROWSER_MESSAGE } from '../../../../src/core/db/storage-errors.ts';
import { WriteMeter } from '../../../../src/core/db/write-meter.ts';
import { NeuroEvalError } from '../../../../src/core/errors.ts';
import { LARGE_WRITE_BYTES, QUOTA_MESSAGE, createRepositories, isQuotaError, openDatabase, type NeuroEvalDB, type Repositories, type StorageHooks } from '../../../../src/core/db/index.ts';
import { type AssetRecord, type BenchmarkRecord, type CaseRecord } from '../../../../src/core/bundle/records.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import type { ReviewRecord } from '../../../../src/core/model/review.ts';
import type { RunRecord } from '../../../../src/core/runner/records.ts';
import { testProvenance, testRun } from '../../../support/run-record.ts';

let counter = 0;
const opened: NeuroEvalDB[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

async function setup(hooks: StorageHooks = {}, now = () => 5000): Promise<{ db: NeuroEvalDB; repos: Repositories }> {
  const db = await openDatabase({ name: `repos-${Date.now()}-${++counter}`, indexedDB, IDBKeyRange });
  opened.push(db);
  return { db, repos: createRepositories(db, hooks, { now }) };
}

const benchmark = (id: string, createdAt = 1): BenchmarkRecord => ({
  id, name: `Bench ${id}`, version: '1', license: 'MIT', description: '', contentHash: `h-${id}`,
  source: 'jsonl', synthetic: true, caseCount: 0, createdAt, files: [],
  manifest: { format: 'neuroeval-bundle', formatVersion: 1, id, name: `Bench ${id}`, version: '1', license: 'MIT', contentHash: 'a'.repeat(64), caseCount: 0, imageCount: 0 },
});
const kase = (benchmarkId: string, id: string, split = 'test', diseaseGroup = 'tumour'): CaseRecord => ({
  benchmarkId, id, split, taskFamily: 'classification', diseaseGroup, modality: 'MRI', images: [], questions: [{ id: 'q1', text: `case ${id}` }],
});
const run = (id: string, benchmarkId = 'b1', createdAt = 1): RunRecord =>
  testRun({ id, benchmarkId, name: id, status: 'planned', createdAt, updatedAt: createdAt, provenance: testProvenance({ benchmark: { id: benchmarkId, contentHash: 'a'.repeat(64) } }) });
const response = (runId: string, itemKey: string, extra: Partial<ResponseRecord> = {}): ResponseRecord => ({
  id: `${runId}:${itemKey}`, runId, itemKey, caseId: 'c1', questionId: 'q1', cacheKey: `cache-${itemKey}`, modelId: 'm', variant: 'base', sample: 0,
  rawText: 'answer', parsed: null, parseError: null,
  usage: { promptTokens: 1, completionTokens: 1, ttftMs: null, prefillTps: null, decodeTps: null },
  latencyMs: 1, finishReason: 'stop', createdAt: 1, ...extra,
});
const asset = (sha256: string, bytes: number): AssetRecord => ({
  sha256, blob: new Blob([new Uint8Array(bytes)], { type: 'image/png' }), mime: 'image/png', bytes, createdAt: 1,
});
const review = (id: string, runId: string, responseId: string): ReviewRecord => ({
  id, runId, responseId, verdict: 'correct', errorClasses: [], rationaleRating: 4, reason: 'ok', reviewerId: 'ann',
  createdAt: 10, previous: [],
});
const quotaError = () => new DOMException('Quota exceeded', 'QuotaExceededError');
const caught = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

describe('benchmarks', () => {
  it('puts, gets, lists newest first and reports NOT_FOUND', async () => {
    const { repos } = await setup();
    await repos.benchmarks.put(benchmark('a', 1));
    await repos.benchmarks.put(benchmark('b', 2));
    expect((await repos.benchmarks.list()).map((b) => b.id)).toEqual(['b', 'a']);
    expect(await repos.benchmarks.findByName('Bench a')).toEqual([benchmark('a', 1)]);
    expect(await repos.benchmarks.count()).toBe(2);
    await expect(repos.benchmarks.require('zzz')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('putWithContent stores nothing when one case is invalid', async () => {
    const { repos } = await setup();
    const bad = { ...kase('a', '2'), id: {} as unknown as string }; // an object is not a valid key
    const err = await caught(repos.benchmarks.putWithContent(benchmark('a'), [kase('a', '1'), bad], [asset('s1', 10)]));
    expect(err).toMatchObject({ code: 'STORAGE_FAILED', message: expect.stringContaining('Could not import the benchmark') });
    expect(await repos.benchmarks.count()).toBe(0);
    expect(await repos.cases.countByBenchmark('a')).toBe(0);
    expect(await repos.assets.count()).toBe(0);
  });
});

describe('cases', () => {
  it('queries by benchmark, facet and page', async () => {
    const { repos } = await setup();
    await repos.cases.bulkPut([kase('b', '3', 'dev', 'stroke'), kase('b', '1'), kase('b', '2', 'dev'), kase('x', '1')]);
    expect((await repos.cases.listByBenchmark('b')).map((c) => c.id)).toEqual(['1', '2', '3']);
    expect((await repos.cases.listByBenchmark('b', { offset: 1, limit: 1 })).map((c) => c.id)).toEqual(['2']);
    expect((await repos.cases.listBy('b', 'split', 'dev')).map((c) => c.id)).toEqual(['2', '3']);
    expect(await repos.cases.facetValues('b', 'diseaseGroup')).toEqual(['stroke', 'tumour']);
    expect(await repos.cases.require('b', '3')).toEqual(kase('b', '3', 'dev', 'stroke'));
    await expect(repos.cases.require('x', '9')).rejects.toBeInstanceOf(NeuroEvalError);
    expect(await repos.cases.deleteByBenchmark('b')).toBe(3);
    expect(await repos.cases.countByBenchmark('x')).toBe(1);
  });
});

describe('assets', () => {
  it('round-trips blobs and reports which hashes are missing', async () => {
    const { repos } = await setup();
    await repos.assets.bulkPut([asset('aa', 3), asset('bb', 5)]);
    const stored = await repos.assets.require('aa');
    expect(stored.blob.size).toBe(3);
    expect(stored.blob.type).toBe('image/png');
    expect(await repos.assets.missing(['aa', 'cc', 'cc', 'bb'])).toEqual(['cc']);
    expect(await repos.assets.totalBytes()).toBe(8);
    await repos.assets.bulkDelete(['aa']);
    expect(await repos.assets.keys()).toEqual(['bb']);
  });
});

describe('runs', () => {
  it('updateStatus stamps updatedAt and records errors', async () => {
    const { repos } = await setup({}, () => 777);
    await repos.runs.put(run('r1'));
    const failed = await repos.runs.updateStatus('r1', 'failed', { error: 'worker crashed' });
    expect(failed).toMatchObject({ status: 'failed', error: 'worker crashed', updatedAt: 777 });
    expect(await repos.runs.updateStatus('r1', 'running')).toMatchObject({ status: 'running', error: null });
    expect((await repos.runs.listByStatus('running')).map((r) => r.id)).toEqual(['r1']);
    await expect(repos.runs.updateStatus('nope', 'done')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('deleteWithResults removes the run with its responses, scores and reviews only', async () => {
    const { repos } = await setup();
    await repos.runs.put(run('r1', 'b1', 1));
    await repos.runs.put(run('r2', 'b1', 2));
    await repos.responses.putBatch([response('r1', 'a'), response('r1', 'b'), response('r2', 'a')]);
    await repos.scores.saveVersion('r1', scoreDraft, [itemScore('r1:a')]);
    await repos.scores.saveVersion('r2', scoreDraft, [itemScore('r2:a')]);
    await repos.reviews.put(review('v1', 'r1', 'r1:a'));
    expect((await repos.runs.listByBenchmark('b1')).map((r) => r.id)).toEqual(['r2', 'r1']);
    expect(await repos.runs.deleteWithResults('r1')).toEqual({ responses: 2, scores: 1, scoreSets: 1, reviews: 1 });
    expect((await repos.runs.list()).map((r) => r.id)).toEqual(['r2']);
    expect(await repos.responses.countByRun('r2')).toBe(1);
    expect(await repos.scores.listBySet('r2/v1')).toHaveLength(1);
    expect(await repos.scores.latestSet('r1')).toBeUndefined();
  });
});

const scoreDraft = {
  durationMs: 5,
  config: { scorerVersion: '1', seed: 0, resamples: 10, judge: null, judgeRubricVersion: null, encoder: null, taxonomy: false, taxonomyVersion: '1.0.0', reviewsUpTo: null },
  summary: { arms: [], calibrationShift: [], items: 1, failed: 0, judgeCalls: 0, judgeReused: 0 },
};

function itemScore(responseId: string, value = 1) {
  return {
    responseId, itemKey: 'c1#q1|m|none|s0', caseId: 'c1', questionId: 'q1', modelId: 'm', variant: 'none', sample: 0, protocolId: 'mcq',
    primary: 'correct', metrics: { correct: { value, source: 'rule' as const, sourceId: 'rule:boxed' } }, confidence: null, verdicts: [], taxonomy: null, notes: [],
  };
}

describe('scores', () => {
  it('keeps every version: a re-score adds the next one and the newest is current', async () => {
    const { repos } = await setup({}, () => 42);
    const v1 = await repos.scores.saveVersion('r1', scoreDraft, [itemScore('r1:a', 1), itemScore('r1:b', 0)]);
    expect(v1).toMatchObject({ id: 'r1/v1', version: 1, createdAt: 42 });
    const v2 = await repos.scores.saveVersion('r1', { ...scoreDraft, config: { ...scoreDraft.config, judge: 'j' } }, [itemScore('r1:a', 0)]);
    expect(v2.version).toBe(2);
    expect((await repos.scores.listSets('r1')).map((s) => s.version)).toEqual([2, 1]);
    expect((await repos.scores.latestSet('r1'))?.config.judge).toBe('j');
    // Version 1 is kept as it was.
    expect((await repos.scores.listBySet('r1/v1')).find((i) => i.responseId === 'r1:a')?.metrics.correct?.value).toBe(1);
    expect((await repos.scores.listBySet('r1/v2')).map((i) => i.metrics.correct?.value)).toEqual([0]);
    expect(await repos.scores.listBySetAndCase('r1/v1', 'c1')).toHaveLength(2);
  });

  it('saves a version all or nothing', async () => {
    const { repos } = await setup();
    await repos.scores.saveVersion('r1', scoreDraft, [itemScore('r1:a')]);
    const bad = { ...itemScore('r1:b'), metrics: { correct: { value: 1, source: 'rule' as const, sourceId: 'x', fn: () => 1 } } };
    await expect(repos.scores.saveVersion('r1', scoreDraft, [itemScore('r1:a'), bad as never])).rejects.toMatchObject({ code: 'STORAGE_FAILED' });
    expect((await repos.scores.listSets('r1')).map((s) => s.version)).toEqual([1]);
    expect(await repos.scores.count()).toBe(1);
  });
});

describe('responses', () => {
  it('lists, counts, finds answered items and the newest cache hit', async () => {
    const { repos } = await setup();
    await repos.responses.putBatch([
      response('r1', 'a', { cacheKey: 'k', createdAt: 1 }),
      response('r1', 'b'),
      response('r2', 'a', { cacheKey: 'k', createdAt: 9 }),
    ]);
    expect(await repos.responses.countByRun('r1')).toBe(2);
    expect(await repos.responses.itemKeysByRun('r1')).toEqual(new Set(['a', 'b']));
    expect((await repos.responses.getByCacheKey('k'))?.id).toBe('r2:a');
    expect(await repos.responses.getByCacheKey('none')).toBeUndefined();
    expect(await repos.responses.listByItem('r1', 'b')).toEqual([response('r1', 'b')]);
  });

  it("lists a run's answers to one case by its case id, not by item key prefix", async () => {
    const { repos } = await setup();
    await repos.responses.putBatch([
      response('r1', 'k2', { caseId: 'c1', questionId: 'q2' }),
      response('r1', 'k1', { caseId: 'c1', questionId: 'q1' }),
      // A case id that extends another, and one holding the key's separators: neither is c1's.
      response('r1', 'k3', { caseId: 'c10', questionId: 'q1' }),
      response('r1', 'k4', { caseId: 'c1#q1|x', questionId: 'q1' }),
      response('r2', 'k1', { caseId: 'c1', questionId: 'q1' }),
    ]);
    expect((await repos.responses.listByRunAndCase('r1', 'c1')).map((r) => [r.itemKey, r.questionId])).toEqual([['k1', 'q1'], ['k2', 'q2']]);
    expect((await repos.responses.listByRunAndCase('r1', 'c1#q1|x')).map((r) => r.itemKey)).toEqual(['k4']);
    expect(await repos.responses.listByRunAndCase('r1', 'c2')).toEqual([]);
    expect(await repos.responses.caseIdsByRun('r1')).toEqual(new Set(['c1', 'c10', 'c1#q1|x']));
    expect(await repos.responses.caseIdsByRun('r3')).toEqual(new Set());
  });

  it('putBatch is all-or-nothing when a row has an invalid key', async () => {
    const { repos } = await setup();
    await repos.responses.put(response('r1', 'a', { rawText: 'original' }));
    const bad = { ...response('r1', 'x'), id: null as unknown as string };
    const err = await caught(repos.responses.putBatch([response('r1', 'a', { rawText: 'overwritten' }), response('r1', 'b'), bad]));
    expect(err).toMatchObject({ code: 'STORAGE_FAILED', message: expect.stringContaining('Could not save responses') });
    expect(await repos.responses.countByRun('r1')).toBe(1);
    expect((await repos.responses.get('r1:a'))?.rawText).toBe('original');
  });

  it('putBatch is all-or-nothing when a write throws inside the transaction', async () => {
    const { db, repos } = await setup();
    db.responses.hook('creating', (_key, row) => {
      if (row.itemKey === 'boom') throw new Error('rejected row');
    });
    const err = await caught(repos.responses.putBatch([response('r1', 'a'), response('r1', 'boom'), response('r1', 'c')]));
    expect(err).toBeInstanceOf(NeuroEvalError);
    expect(await repos.responses.countByRun('r1')).toBe(0);
  });
});

describe('scores and reviews', () => {
  it('amending a review keeps the earlier state in the audit trail', async () => {
    const { repos } = await setup({}, () => 99);
    await repos.reviews.put(review('v1', 'r1', 'r1:a'));
    const amended = await repos.reviews.amend('v1', { verdict: 'incorrect', errorClasses: ['laterality'], reviewerId: 'bob' });
    expect(amended).toMatchObject({ verdict: 'incorrect', reviewerId: 'bob', createdAt: 99, reason: 'ok' });
    expect(amended.previous).toEqual([
      { verdict: 'correct', errorClasses: [], rationaleRating: 4, reason: 'ok', reviewerId: 'ann', createdAt: 10 },
    ]);
    const again = await repos.reviews.amend('v1', { verdict: 'partial', reviewerId: 'ann' });
    expect(again.previous.map((p) => p.verdict)).toEqual(['correct', 'incorrect']);
    expect(await repos.reviews.listByReviewer('ann')).toHaveLength(1);
    await expect(repos.reviews.amend('missing', { reviewerId: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('settings', () => {
  it('returns the fallback until a value is set', async () => {
    const { repos } = await setup({}, () => 42);
    expect(await repos.settings.get('theme', 'light')).toBe('light');
    await repos.settings.set('theme', 'dark');
    await repos.settings.set('limits', { maxTokens: 512 });
    expect(await repos.settings.get('theme', 'light')).toBe('dark');
    expect(await repos.settings.get('limits', { maxTokens: 0 })).toEqual({ maxTokens: 512 });
    expect(await repos.settings.list()).toContainEqual({ key: 'theme', value: 'dark', updatedAt: 42 });
    await repos.settings.delete('theme');
    expect(await repos.settings.get('theme', 'light')).toBe('light');
  });
});

describe('onLargeWrite', () => {
  it('is not called for small writes', async () => {
    const onLargeWrite = vi.fn();
    const { repos } = await setup({ onLargeWrite });
    await repos.assets.put(asset('a', 1000));
    await repos.responses.putBatch([response('r', 'a')]);
    await repos.cases.bulkPut([kase('b', '1')]);
    expect(onLargeWrite).not.toHaveBeenCalled();
  });

  it('is called exactly once when the bytes written cross 1 MiB', async () => {
    const onLargeWrite = vi.fn();
    const { repos } = await setup({ onLargeWrite });
    await repos.assets.put(asset('a', LARGE_WRITE_BYTES / 2));
    expect(onLargeWrite).not.toHaveBeenCalled();
    await repos.assets.bulkPut([asset('b', LARGE_WRITE_BYTES / 2)]); // the total crosses the threshold here
    expect(onLargeWrite).toHaveBeenCalledTimes(1);
    expect(onLargeWrite.mock.calls[0]?.[0]).toBeGreaterThanOrEqual(LARGE_WRITE_BYTES);
    await repos.assets.put(asset('c', 2 * LARGE_WRITE_BYTES));
    await repos.responses.putBatch([response('r', 'a', { rawText: 'x'.repeat(LARGE_WRITE_BYTES) })]);
    expect(onLargeWrite).toHaveBeenCalledTimes(1);
  });

  it('stops sizing what is written once it has fired (nothing needs the total after that)', () => {
    const meter = new WriteMeter({ onLargeWrite: vi.fn() });
    let sized = 0;
    const row = { get rawText() { sized++; return 'z'.repeat(LARGE_WRITE_BYTES); } };
    meter.recordWrite(row);
    expect([sized, meter.bytesWritten]).toEqual([1, LARGE_WRITE_BYTES + 'rawText'.length]);
    meter.recordWrite(row, [row, row]);
    expect(sized).toBe(1);
  });

  it('counts text-heavy response batches and never fails the write if the hook throws', async () => {
    const onLargeWrite = vi.fn(() => {
      throw new Error('persist() unavailable');
    });
    const { repos } = await setup({ onLargeWrite });
    const rows = Array.from({ length: 20 }, (_, i) => response('r', `i${i}`, { rawText: 'y'.repeat(60_000) }));
    await repos.responses.putBatch(rows);
    expect(onLargeWrite).toHaveBeenCalledTimes(1);
    expect(await repos.responses.countByRun('r')).toBe(20);
  });
});

describe('quota errors', () => {
  it('maps QuotaExceededError to QUOTA_EXCEEDED and stores nothing', async () => {
    const { db, repos } = await setup();
    db.assets.hook('creating', () => {
      throw quotaError();
    });
    db.responses.hook('creating', () => {
      throw quotaError();
    });
    const single = await caught(repos.assets.put(asset('a', 10)));
    expect(single).toBeInstanceOf(NeuroEvalError);
    expect(single).toMatchObject({ name: 'StorageError', code: 'QUOTA_EXCEEDED', message: QUOTA_MESSAGE });
    const batch = await caught(repos.responses.putBatch([response('r', 'a'), response('r', 'b')]));
    expect(batch).toMatchObject({ code: 'QUOTA_EXCEEDED', message: QUOTA_MESSAGE });
    expect(await repos.assets.count()).toBe(0);
    expect(await repos.responses.countByRun('r')).toBe(0);
  });

  it('explains a closed database instead of failing obscurely', async () => {
    const { db, repos } = await setup();
    db.close();
    await expect(repos.settings.get('x', 1)).rejects.toMatchObject({
      code: 'STORAGE_FAILED',
      message: expect.stringContaining('Reload this page'),
    });
  });

  it('says the browser closed the database, and why it does, once it has', async () => {
    const { db, repos } = await setup();
    await repos.settings.set('theme', 'dark');
    // What Chromium does when a write, or its own compaction, hits a full disk: every connection gets a `close` event.
    // fake-indexeddb's types ask for the class (`typeof FDBDatabase`); the function takes the connection.
    forceCloseDatabase(db.backendDB() as unknown as Parameters<typeof forceCloseDatabase>[0]);
    expect(db.closedByBrowser).toBe(true);
    const error = await caught(repos.settings.get('theme', 'light'));
    expect(error).toMatchObject({ name: 'StorageError', code: 'STORAGE_CLOSED', message: CLOSED_BY_BROWSER_MESSAGE });
    expect(CLOSED_BY_BROWSER_MESSAGE).toContain('most often because the disk is full');
    // Closed by the app itself (as Dexie does for another tab's upgrade): not the browser's doing.
    const other = await setup();
    other.db.close();
    expect(other.db.closedByBrowser).toBe(false);
    expect(await caught(other.repos.settings.get('theme', 'light'))).toMatchObject({ code: 'STORAGE_FAILED' });
  });

  it('recognises quota errors nested the way browsers and Dexie report them', () => {
    expect(isQuotaError(quotaError())).toBe(true);
    expect(isQuotaError({ name: 'AbortError', inner: quotaError() })).toBe(true);
    expect(isQuotaError({ name: 'BulkError', failures: [new Error('x'), quotaError()] })).toBe(true);
    expect(isQuotaError({ name: 'BulkError', failures: { 3: quotaError() } })).toBe(true);
    expect(isQuotaError(new Error('ConstraintError'))).toBe(false);
  });
});
