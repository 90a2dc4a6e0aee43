/**
 * A run export carries the run's clinician reviews (verdict, reasons, the
 * reviewer's pseudonym, the audit trail), and importing it on another
 * machine restores them against the imported answers: once, however often
 * the file is imported. A review of an answer the file lacks is refused,
 * naming the review, and nothing is stored.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import { createRepositories, openDatabase, type NeuroEvalDB, type Repositories } from '../../../../src/core/db/index.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import { importRunExport, previewRunImport } from '../../../../src/core/stored/import-run.ts';
import { parseRunExport, serializeRunExport, toRunExport } from '../../../../src/core/scoring/io/run-export.ts';
import { testProvenance, testRun } from '../../../support/run-record.ts';

const HASH = 'h'.repeat(64);
const cases: BenchCase[] = ['c1', 'c2', 'c3'].map((id) => ({ id, taskFamily: 'classification', images: [], questions: [{ id: 'q1', text: 'Dx?' }] }));
const opened: NeuroEvalDB[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

/** A browser holding the benchmark; `clock` stamps reviews recorded there. */
async function browser(clock: { t: number }): Promise<Repositories> {
  const db = await openDatabase({ name: `reviews-export-${Date.now()}-${Math.random()}`, indexedDB, IDBKeyRange });
  opened.push(db);
  const repos = createRepositories(db, {}, { now: () => clock.t });
  await repos.benchmarks.putWithContent({
    id: 'b', name: 'Bench', version: '1', license: 'MIT', description: '', contentHash: HASH, source: 'x', synthetic: true, caseCount: 3, createdAt: 1, files: [],
    manifest: { format: 'neuroeval-bundle', formatVersion: 1, id: 'b', name: 'Bench', version: '1', license: 'MIT', contentHash: HASH, caseCount: 3, imageCount: 0 },
  }, cases);
  return repos;
}

const answer = (runId: string, caseId: string): ResponseRecord => ({
  id: `${runId}/${caseId}#q1|m|none|s0`, runId, itemKey: `${caseId}#q1|m|none|s0`, caseId, questionId: 'q1', cacheKey: `k-${caseId}`, modelId: 'm', variant: 'none', sample: 0,
  rawText: `{"diagnosis":"glioma ${caseId}"}`, parsed: null, parseError: null,
  usage: { promptTokens: 1, completionTokens: 1, ttftMs: null, prefillTps: null, decodeTps: null }, latencyMs: 5, finishReason: 'stop', createdAt: 1,
});

/** On the first laptop: a finished run of three answers, two reviewed, one of them twice (an audit trail). */
async function reviewedRun(repos: Repositories, clock: { t: number }) {
  const run = testRun({ id: 'lap', name: 'Laptop run', benchmarkId: 'b', provenance: testProvenance({ benchmark: { id: 'b', contentHash: HASH } }), plan: { cases: 3, models: 1, variants: 1, samples: 1, items: 3 } });
  await repos.runs.put(run);
  await repos.responses.putBatch(cases.map((c) => answer('lap', c.id)));
  clock.t = 100;
  await repos.reviews.record({ responseId: 'lap/c1#q1|m|none|s0', runId: 'lap', reviewerId: 'rev-7f3a', verdict: 'correct', errorClasses: [], rationaleRating: 4, reason: 'matches the key' });
  clock.t = 200;
  await repos.reviews.record({ responseId: 'lap/c2#q1|m|none|s0', runId: 'lap', reviewerId: 'rev-7f3a', verdict: 'correct', errorClasses: [], rationaleRating: null, reason: '' });
  clock.t = 300;
  await repos.reviews.record({ responseId: 'lap/c2#q1|m|none|s0', runId: 'lap', reviewerId: 'rev-7f3a', verdict: 'wrong', errorClasses: ['hallucinated-finding'], rationaleRating: 2, reason: 'second look' });
  return run;
}

async function exportText(repos: Repositories, runId: string): Promise<string> {
  const run = await repos.runs.require(runId);
  return serializeRunExport(toRunExport(run, await repos.responses.listByRun(runId), cases, { exportedAt: 1, reviews: await repos.reviews.listByRun(runId) }));
}

describe('the run export and its reviews', () => {
  it('carries every review with its reviewer and trail, and the import on another machine restores them once', async () => {
    const clockA = { t: 0 };
    const laptop = await browser(clockA);
    await reviewedRun(laptop, clockA);
    const text = await exportText(laptop, 'lap');
    const parsed = parseRunExport(text, 'lap.json');
    expect(parsed.version).toBe(3);
    expect(parsed.reviews).toHaveLength(2);

    const desk = await browser({ t: 0 });
    expect(await previewRunImport(desk, parsed, 'lap.json')).toMatchObject({ answers: 3, reviews: 2 });
    const first = await importRunExport(desk, parsed, 'lap.json');
    expect(first).toMatchObject({ created: true, added: 3, reviews: { added: 2, updated: 0, kept: 0, dropped: 0 } });
    const restored = await desk.reviews.listByRun('lap');
    expect(restored).toEqual(await laptop.reviews.listByRun('lap'));
    const c2 = restored.find((r) => r.responseId === 'lap/c2#q1|m|none|s0')!;
    expect(c2).toMatchObject({ reviewerId: 'rev-7f3a', verdict: 'wrong', errorClasses: ['hallucinated-finding'], reason: 'second look', previous: [{ verdict: 'correct', createdAt: 200 }] });
    // Every restored review points at an answer stored here.
    for (const r of restored) expect(await desk.responses.get(r.responseId)).toBeDefined();

    const again = await importRunExport(desk, parseRunExport(text, 'lap.json'), 'lap.json');
    expect(again).toMatchObject({ created: false, added: 0, kept: 3, reviews: { added: 0, updated: 0, kept: 2 } });
    expect(await desk.reviews.listByRun('lap')).toEqual(restored);
  });

  it('replaces a stored review only with a newer state of it', async () => {
    const clock = { t: 0 };
    const laptop = await browser(clock);
    await reviewedRun(laptop, clock);
    const older = parseRunExport(await exportText(laptop, 'lap'), 'old.json');
    clock.t = 400;
    await laptop.reviews.record({ responseId: 'lap/c1#q1|m|none|s0', runId: 'lap', reviewerId: 'rev-7f3a', verdict: 'wrong', errorClasses: [], rationaleRating: 1, reason: 'missed the lesion' });
    const newer = parseRunExport(await exportText(laptop, 'lap'), 'new.json');

    const desk = await browser({ t: 0 });
    await importRunExport(desk, newer, 'new.json');
    expect(await importRunExport(desk, older, 'old.json')).toMatchObject({ reviews: { added: 0, updated: 0, kept: 2 } });
    expect((await desk.reviews.get('lap/c1#q1|m|none|s0::rev-7f3a'))?.verdict).toBe('wrong');
  });

  it('merged into another run, the reviews follow their answers to that run', async () => {
    const clock = { t: 0 };
    const laptop = await browser(clock);
    const run = await reviewedRun(laptop, clock);
    const desk = await browser({ t: 0 });
    await desk.runs.put({ ...run, id: 'desk', name: 'Desk run' });
    await importRunExport(desk, parseRunExport(await exportText(laptop, 'lap'), 'lap.json'), 'lap.json', { into: 'desk' });
    const merged = await desk.reviews.listByRun('desk');
    expect(merged.map((r) => r.id).sort()).toEqual(['desk/c1#q1|m|none|s0::rev-7f3a', 'desk/c2#q1|m|none|s0::rev-7f3a']);
    expect(await desk.reviews.listByRun('lap')).toEqual([]);
  });

  it('refuses a review of an answer the file does not carry, naming the review, and stores nothing', async () => {
    const clock = { t: 0 };
    const laptop = await browser(clock);
    await reviewedRun(laptop, clock);
    const e = JSON.parse(await exportText(laptop, 'lap')) as { responses: unknown[] };
    e.responses = e.responses.filter((r) => (r as ResponseRecord).caseId !== 'c1');
    const parsed = parseRunExport(JSON.stringify(e), 'cut.json');
    const desk = await browser({ t: 0 });
    const message = 'cut.json: reviews[0].responseId: review "lap/c1#q1|m|none|s0::rev-7f3a" by reviewer "rev-7f3a" is of answer "lap/c1#q1|m|none|s0", which is not among the file\'s answers; nothing was stored.';
    await expect(previewRunImport(desk, parsed, 'cut.json')).rejects.toThrow(message);
    await expect(importRunExport(desk, parsed, 'cut.json')).rejects.toMatchObject({ code: 'INVALID_INPUT', message, location: { file: 'cut.json', field: 'reviews[0].responseId' } });
    expect(await desk.runs.get('lap')).toBeUndefined();
    expect(await desk.reviews.count()).toBe(0);
  });

  it('still reads a version-2 export, which has no reviews', async () => {
    const clock = { t: 0 };
    const laptop = await browser(clock);
    await reviewedRun(laptop, clock);
    const v2: Record<string, unknown> = { ...(JSON.parse(await exportText(laptop, 'lap')) as Record<string, unknown>), version: 2 };
    delete v2.reviews;
    const desk = await browser({ t: 0 });
    const result = await importRunExport(desk, parseRunExport(JSON.stringify(v2), 'v2.json'), 'v2.json');
    expect(result).toMatchObject({ added: 3, reviews: { added: 0, kept: 0 } });
    expect(await desk.reviews.count()).toBe(0);
  });

  it('names the field of a damaged review', () => {
    const bad = { format: 'neuroeval-run', version: 3, run: { id: 'r' }, provenance: null, responses: [], reviews: [{ id: 'x', responseId: 'a', runId: 'r', reviewerId: 'p', verdict: 3 }] };
    expect(() => parseRunExport(JSON.stringify(bad), 'bad.json')).toThrow('bad.json: reviews[0].verdict: expected a string, found 3');
  });
});
