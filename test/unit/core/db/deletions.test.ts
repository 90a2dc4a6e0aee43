/**
 * Deleting a benchmark, run, answer or review: the plan counts what goes, the
 * deletion removes exactly that in one transaction, and no row is left that
 * points at something deleted (images shared with another benchmark stay).
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { NeuroEvalDB, SCHEMA, SCHEMA_VERSION, createRepositories, openDatabase, type Repositories } from '../../../../src/core/db/index.ts';
import { type AssetRecord, type BenchmarkRecord, type CaseRecord } from '../../../../src/core/bundle/records.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import type { ScoreSetRecord } from '../../../../src/core/scoring/run/records.ts';
import type { ItemScore } from '../../../../src/core/scoring/run/types.ts';
import { testProvenance, testRun } from '../../../support/run-record.ts';

let counter = 0;
const opened: NeuroEvalDB[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

async function setup(): Promise<{ db: NeuroEvalDB; repos: Repositories }> {
  const db = await openDatabase({ name: `deletions-${Date.now()}-${++counter}`, indexedDB, IDBKeyRange });
  opened.push(db);
  return { db, repos: createRepositories(db, {}, { now: () => 9000 }) };
}

const benchmark = (id: string, files: { path: string; sha256: string }[] = []): BenchmarkRecord => ({
  id, name: `Bench ${id}`, version: '1', license: 'MIT', description: '', contentHash: `h-${id}`, source: 'jsonl', synthetic: true, caseCount: 0, createdAt: 1, files,
  manifest: { format: 'neuroeval-bundle', formatVersion: 1, id, name: `Bench ${id}`, version: '1', license: 'MIT', contentHash: 'a'.repeat(64), caseCount: 0, imageCount: 0 },
});
const kase = (id: string, images: string[]): Omit<CaseRecord, 'benchmarkId'> => ({
  id, taskFamily: 'classification', images: images.map((sha256, i) => ({ path: `images/${id}-${i}.png`, sha256, mime: 'image/png' })), questions: [{ id: 'q1', text: `case ${id}` }],
});
const asset = (sha256: string, bytes: number): AssetRecord => ({ sha256, blob: new Blob([new Uint8Array(bytes)]), mime: 'image/png', bytes, createdAt: 1 });
const answer = (runId: string, caseId: string, modelId = 'm'): ResponseRecord => ({
  id: `${runId}/${caseId}#q1|${modelId}|none|s0`, runId, itemKey: `${caseId}#q1|${modelId}|none|s0`, caseId, questionId: 'q1', cacheKey: `k-${runId}-${caseId}-${modelId}`,
  modelId, variant: 'none', sample: 0, rawText: 'glioma', parsed: null, parseError: null,
  usage: { promptTokens: 1, completionTokens: 1, ttftMs: null, prefillTps: null, decodeTps: null }, latencyMs: 1, finishReason: 'stop', createdAt: 1,
});
const itemScore = (r: ResponseRecord): ItemScore => ({
  responseId: r.id, itemKey: r.itemKey, caseId: r.caseId, questionId: r.questionId, modelId: r.modelId, variant: r.variant, sample: r.sample,
  protocolId: 'auto', primary: 'correct', metrics: { correct: { value: 1, source: 'rule', sourceId: 'exact' } }, confidence: null, verdicts: [], taxonomy: null, notes: [],
});
const draft = (reviewsUpTo: number | null): Omit<ScoreSetRecord, 'id' | 'runId' | 'version' | 'createdAt'> => ({
  durationMs: 1,
  config: { scorerVersion: 't', seed: 0, resamples: 0, judge: null, judgeRubricVersion: null, encoder: null, taxonomy: false, taxonomyVersion: '', reviewsUpTo },
  summary: { arms: [], calibrationShift: [], items: 0, failed: 0, judgeCalls: 0, judgeReused: 0 },
});

/** Stores a run on `benchmarkId` with one answer per case and model, scored twice, and one review per answer. */
async function storeRun(repos: Repositories, runId: string, benchmarkId: string, caseIds: string[], models = ['m']): Promise<ResponseRecord[]> {
  await repos.runs.put(testRun({ id: runId, benchmarkId, name: `Run ${runId}`, status: 'done', provenance: testProvenance({ benchmark: { id: benchmarkId, contentHash: 'a'.repeat(64) } }) }));
  const rows = caseIds.flatMap((c) => models.map((m) => answer(runId, c, m)));
  await repos.responses.putBatch(rows);
  for (const r of rows) await repos.reviews.record({ responseId: r.id, runId, reviewerId: 'ann', verdict: 'correct', errorClasses: [], rationaleRating: null, reason: '' });
  await repos.scores.saveVersion(runId, draft(null), rows.map(itemScore));
  await repos.scores.saveVersion(runId, draft(9000), rows.map(itemScore));
  return rows;
}

/** Two benchmarks sharing image `shared`; `a` has its own image, a prompt file and two runs, `b` one run. */
async function seed(repos: Repositories): Promise<void> {
  await repos.benchmarks.putWithContent(benchmark('a', [{ path: 'prompt.txt', sha256: 'file-a' }]), [kase('c1', ['only-a', 'shared']), kase('c2', ['only-a'])],
    [asset('only-a', 100), asset('shared', 50), asset('file-a', 7)]);
  await repos.benchmarks.putWithContent(benchmark('b'), [kase('c1', ['shared']), kase('c9', ['only-b'])], [asset('only-b', 30)]);
  await storeRun(repos, 'ra1', 'a', ['c1', 'c2'], ['m', 'n']);
  await storeRun(repos, 'ra2', 'a', ['c1']);
  await storeRun(repos, 'rb1', 'b', ['c1', 'c9']);
}

async function counts(db: NeuroEvalDB) {
  return {
    benchmarks: await db.benchmarks.count(), cases: await db.cases.count(), assets: await db.assets.count(), runs: await db.runs.count(),
    responses: await db.responses.count(), scores: await db.scores.count(), scoreSets: await db.scoreSets.count(), reviews: await db.reviews.count(),
  };
}

/** Every row that refers to something no longer stored, described; empty when the database is whole. */
async function orphans(db: NeuroEvalDB): Promise<string[]> {
  const found: string[] = [];
  const benchmarks = new Set(await db.benchmarks.toCollection().primaryKeys());
  const runs = new Set(await db.runs.toCollection().primaryKeys());
  const responses = new Set(await db.responses.toCollection().primaryKeys());
  const sets = new Set(await db.scoreSets.toCollection().primaryKeys());
  const used = new Set<string>();
  for (const c of await db.cases.toArray()) {
    if (!benchmarks.has(c.benchmarkId)) found.push(`case ${c.id} of missing benchmark ${c.benchmarkId}`);
    for (const img of c.images) used.add(img.sha256!);
  }
  for (const b of await db.benchmarks.toArray()) for (const f of b.files) used.add(f.sha256);
  for (const h of await db.assets.toCollection().primaryKeys()) if (!used.has(h)) found.push(`image ${h} used by no case`);
  for (const r of await db.runs.toArray()) if (!benchmarks.has(r.benchmarkId)) found.push(`run ${r.id} of missing benchmark`);
  for (const r of await db.responses.toArray()) if (!runs.has(r.runId)) found.push(`answer ${r.id} of missing run`);
  for (const s of await db.scoreSets.toArray()) if (!runs.has(s.runId)) found.push(`score set ${s.id} of missing run`);
  for (const s of await db.scores.toArray()) if (!responses.has(s.responseId) || !sets.has(s.scoreSetId)) found.push(`score ${s.id} of missing answer or set`);
  for (const r of await db.reviews.toArray()) if (!responses.has(r.responseId)) found.push(`review ${r.id} of missing answer`);
  // Tables added by later schema versions (results digests…): every row's run and score set still stored.
  for (const table of db.tables.filter((t) => t.schema.indexes.some((i) => i.keyPath === 'runId') && !['responses', 'scores', 'scoreSets', 'reviews', 'runs'].includes(t.name))) {
    for (const row of (await table.toArray()) as { runId: string; scoreSetId?: string }[]) {
      if (!runs.has(row.runId) || (row.scoreSetId !== undefined && !sets.has(row.scoreSetId))) found.push(`${table.name} row of missing run or score set`);
    }
  }
  return found;
}

describe('deleting a benchmark', () => {
  it('removes its cases, runs and everything under them, and only the images no other benchmark uses', async () => {
    const { db, repos } = await setup();
    await seed(repos);
    const before = await counts(db);
    const plan = await repos.deletions.planBenchmark('a');
    expect(plan).toMatchObject({ kind: 'benchmark', label: 'Bench a' });
    // Run ra1: 4 answers, 8 scores (2 sets), 4 reviews; ra2: 1 answer, 2 scores, 1 review.
    expect(plan.counts).toMatchObject({ benchmarks: 1, cases: 2, images: 2, imageBytes: 107, sharedImages: 1, runs: 2, answers: 5, scores: 10, scoreSets: 4, reviews: 5 });
    expect(await counts(db)).toEqual(before);

    const done = await repos.deletions.deleteBenchmark('a');
    expect(done.counts).toEqual(plan.counts);
    expect(await counts(db)).toEqual({
      benchmarks: before.benchmarks - 1, cases: before.cases - 2, assets: before.assets - 2, runs: before.runs - 2,
      responses: before.responses - 5, scores: before.scores - 10, scoreSets: before.scoreSets - 4, reviews: before.reviews - 5,
    });
    expect(await db.assets.toCollection().primaryKeys()).toEqual(['only-b', 'shared']);
    expect(await orphans(db)).toEqual([]);
    // The other benchmark still opens with every image it needs.
    expect((await repos.runs.listByBenchmark('b')).map((r) => r.id)).toEqual(['rb1']);
  });

  it('deletes the shared image with the last benchmark that uses it', async () => {
    const { db, repos } = await setup();
    await seed(repos);
    await repos.deletions.deleteBenchmark('a');
    const plan = await repos.deletions.planBenchmark('b');
    expect(plan.counts).toMatchObject({ images: 2, imageBytes: 80, sharedImages: 0 });
    await repos.deletions.deleteBenchmark('b');
    expect(await counts(db)).toEqual({ benchmarks: 0, cases: 0, assets: 0, runs: 0, responses: 0, scores: 0, scoreSets: 0, reviews: 0 });
  });

  it('refuses an unknown benchmark and deletes nothing', async () => {
    const { db, repos } = await setup();
    await seed(repos);
    const before = await counts(db);
    await expect(repos.deletions.deleteBenchmark('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await counts(db)).toEqual(before);
  });
});

describe('deleting a run', () => {
  it('removes its answers, scores, score sets and reviews, and leaves other runs and the cached answers of other runs', async () => {
    const { db, repos } = await setup();
    await seed(repos);
    const before = await counts(db);
    const plan = await repos.deletions.planRun('ra1');
    expect(plan).toMatchObject({ kind: 'run', label: 'Run ra1', counts: { runs: 1, answers: 4, scores: 8, scoreSets: 2, reviews: 4, benchmarks: 0, cases: 0, images: 0 } });
    // Saving a score set also stores its results digest (two parts per set): they go with the run.
    expect(plan.counts.other).toEqual({ resultDigests: 4 });
    const done = await repos.deletions.deleteRun('ra1');
    expect(done.counts).toEqual(plan.counts);
    expect(await counts(db)).toEqual({ ...before, runs: before.runs - 1, responses: before.responses - 4, scores: before.scores - 8, scoreSets: before.scoreSets - 2, reviews: before.reviews - 4 });
    expect(await orphans(db)).toEqual([]);
    // No cached answer of the deleted run can be reused by a later run; the other run's still can.
    expect(await repos.responses.getByCacheKey('k-ra1-c1-m')).toBeUndefined();
    expect(await repos.responses.getByCacheKey('k-ra2-c1-m')).toBeDefined();
  });
});

describe('deleting an answer', () => {
  it('removes its scores and reviews and marks the run\'s score sets outdated', async () => {
    const { db, repos } = await setup();
    await seed(repos);
    const [target] = await repos.responses.listByRunAndCase('ra1', 'c1');
    const before = await counts(db);
    const plan = await repos.deletions.planAnswer(target!.id);
    expect(plan.counts).toMatchObject({ answers: 1, scores: 2, reviews: 1, outdatedScoreSets: 2, runs: 0, scoreSets: 0 });
    await repos.deletions.deleteAnswer(target!.id);
    expect(await counts(db)).toEqual({ ...before, responses: before.responses - 1, scores: before.scores - 2, reviews: before.reviews - 1 });
    expect(await orphans(db)).toEqual([]);
    const sets = await repos.scores.listSets('ra1');
    expect(sets.map((s) => s.outdated?.reason)).toEqual([`the answer to ${target!.itemKey} was deleted`, `the answer to ${target!.itemKey} was deleted`]);
    expect((await repos.scores.listSets('ra2')).every((s) => !s.outdated)).toBe(true);
    // The finished run now lacks an answer: it can be resumed to ask again.
    expect(await repos.runs.require('ra1')).toMatchObject({ status: 'paused', updatedAt: 9000 });
  });
});

describe('deleting a review', () => {
  it('removes the review with its audit trail and outdates only the score sets that counted it', async () => {
    const { db, repos } = await setup();
    await seed(repos);
    const [review] = await repos.reviews.listByRun('rb1');
    await repos.reviews.record({ responseId: review!.responseId, runId: 'rb1', reviewerId: 'ann', verdict: 'wrong', errorClasses: [], rationaleRating: null, reason: 'second look' });
    const before = await counts(db);
    const plan = await repos.deletions.planReview(review!.id);
    // Set v2 was scored with reviews up to 9000 (the review's time), v1 before any.
    expect(plan.counts).toMatchObject({ reviews: 1, outdatedScoreSets: 1, answers: 0, scores: 0 });
    await repos.deletions.deleteReview(review!.id);
    expect(await counts(db)).toEqual({ ...before, reviews: before.reviews - 1 });
    expect(await repos.reviews.get(review!.id)).toBeUndefined();
    expect((await repos.scores.listSets('rb1')).map((s) => s.outdated?.reason ?? null)).toEqual(["a review by ann was deleted", null]);
    expect(await orphans(db)).toEqual([]);
  });
});

describe('a table added to the schema later', () => {
  /** Today's schema plus a table of per-run, per-set summaries, as a later version might add one. */
  class WithSummaries extends NeuroEvalDB {
    constructor(name: string) {
      super(name, { indexedDB, IDBKeyRange });
      this.version(SCHEMA_VERSION + 1).stores({ ...SCHEMA[SCHEMA_VERSION], summaries: 'id, scoreSetId, runId' });
    }
  }

  it('loses its rows with their run, and a deleted answer drops the summaries of the sets it outdates', async () => {
    const db = new WithSummaries(`deletions-extra-${Date.now()}-${++counter}`);
    await db.open();
    opened.push(db);
    const repos = createRepositories(db);
    await seed(repos);
    const summaries = db.table('summaries');
    await summaries.bulkPut(['ra1', 'ra2', 'rb1'].flatMap((r) => [1, 2].map((v) => ({ id: `${r}/v${v}`, scoreSetId: `${r}/v${v}`, runId: r }))));

    const [target] = await repos.responses.listByRunAndCase('ra2', 'c1');
    expect((await repos.deletions.planAnswer(target!.id)).counts.other.summaries).toBe(2);
    await repos.deletions.deleteAnswer(target!.id);
    expect(await summaries.where('runId').equals('ra2').count()).toBe(0);

    const plan = await repos.deletions.planRun('ra1');
    expect(plan.counts.other.summaries).toBe(2);
    await repos.deletions.deleteRun('ra1');
    expect((await summaries.toCollection().primaryKeys()).sort()).toEqual(['rb1/v1', 'rb1/v2']);
  });
});

describe('storage use per benchmark', () => {
  it('counts each benchmark\'s cases, image bytes (shared ones apart), runs and answers, and follows a deletion', async () => {
    const { repos } = await setup();
    await seed(repos);
    const use = await repos.usage.storageUse();
    expect(use.benchmarks).toEqual([
      { benchmarkId: 'a', name: 'Bench a', cases: 2, images: 3, imageBytes: 157, sharedImageBytes: 50, runs: 2, answers: 5 },
      { benchmarkId: 'b', name: 'Bench b', cases: 2, images: 2, imageBytes: 80, sharedImageBytes: 50, runs: 1, answers: 2 },
    ]);
    // The shared image is stored, and counted in the total, once.
    expect(use).toMatchObject({ images: 4, imageBytes: 187, cases: 4, runs: 3, answers: 7 });

    await repos.deletions.deleteBenchmark('a');
    const after = await repos.usage.storageUse();
    expect(after.benchmarks).toEqual([{ benchmarkId: 'b', name: 'Bench b', cases: 2, images: 2, imageBytes: 80, sharedImageBytes: 0, runs: 1, answers: 2 }]);
    expect(after).toMatchObject({ images: 2, imageBytes: 80 });
  });

  it('stops reading cases part-way once its signal aborts (the Settings page was left)', async () => {
    const { db, repos } = await setup();
    await seed(repos);
    const gone = new AbortController();
    let read = 0;
    // Each case read by the scan; the page goes away after the first.
    const leaveAfterFirst = (c: CaseRecord) => {
      if (++read === 1) gone.abort();
      return c;
    };
    db.cases.hook('reading', leaveAfterFirst);
    await expect(repos.usage.storageUse(gone.signal)).rejects.toMatchObject({ message: expect.stringContaining('AbortError') });
    expect(read).toBe(1);
    db.cases.hook('reading').unsubscribe(leaveAfterFirst);
    // With a signal that is not aborted, it reads everything.
    expect((await repos.usage.storageUse(new AbortController().signal)).cases).toBe(4);
  });
});
