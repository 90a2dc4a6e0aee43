/**
 * The results page opens from digests stored with each score set: what it
 * shows from them (overview and leaderboard with their intervals, reliability
 * and degradation series, facets, the answers table page by page, paired
 * tests, breakdowns, agreement) must equal what the full recomputation from
 * every score row gives, and a re-score, a new review or changed rows must
 * never leave an old digest in use.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import { createRepositories, openDatabase, type NeuroEvalDB, type Repositories } from '../../../../src/core/db/index.ts';
import { agreementReport } from '../../../../src/core/results/agreement.ts';
import { queryAnswers, sameAnswerQuery, TABLE_FIRST_PAGE, TABLE_PAGE, type AnswerQuery, type AnswerSortKey } from '../../../../src/core/results/answers.ts';
import { breakdown } from '../../../../src/core/results/breakdowns.ts';
import { compareRows } from '../../../../src/core/results/comparisons.ts';
import { loadResults, resultsSignature } from '../../../../src/core/stored/overview.ts';
import { overviewOf } from '../../../../src/core/results/overview.ts';
import { loadStoredDetail, loadStoredResults, storedAnswers, storedOverview } from '../../../../src/core/stored/results.ts';
import { itemKeyOf } from '../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import type { Variant } from '../../../../src/core/runner/types.ts';
import { scoreRun } from '../../../../src/core/scoring/run/score-run.ts';
import { testRun } from '../../../support/run-record.ts';

const DX = ['Glioblastoma', 'Ischemic stroke', 'Multiple sclerosis', 'Meningioma'];
/** 30 cases, two to a patient for the first 20 (patient-clustered intervals), the rest without a key; case ids that sort differently by number and by text. */
const cases: BenchCase[] = Array.from({ length: 30 }, (_, i) => ({
  id: `case-${i + 1}`, taskFamily: 'differential-diagnosis', split: i % 3 ? 'direct' : 'complex', diseaseGroup: ['tumour', 'stroke', 'ms', 'tumour'][i % 4]!, modality: i % 5 ? 'MRI' : 'CT',
  ...(i < 24 ? { subtask: i % 2 ? 'Multi_View' : 'Registered_Diff' } : {}),
  images: [{ path: 'a.png', sequence: i % 2 ? 'FLAIR' : 'T1', plane: 'axial' }],
  questions: [{ id: 'q', text: 'Dx?', reference: { diagnosis: DX[i % 4]! } }],
  ...(i < 20 ? { meta: { 'dicom.patientKey': `p${i >> 1}`, 'dicom.fieldStrength': i % 2 ? '3' : '1.5' } } : {}),
}));

const VARIANTS: Variant[] = ['none', 'degrade:blur:1', 'degrade:blur:2'];

/** Deterministic, uneven answers: each model right on a different share, two samples on some questions, confidences spread. */
function answers(runId: string, models: readonly string[], seed: number, idOf: (itemKey: string, n: number) => string = (itemKey) => `${runId}/${itemKey}`): ResponseRecord[] {
  const out: ResponseRecord[] = [];
  models.forEach((modelId, m) => {
    for (const variant of VARIANTS) {
      cases.forEach((c, i) => {
        for (let sample = 0; sample < (i % 7 === 0 ? 2 : 1); sample++) {
          const h = (i * 31 + m * 17 + sample * 7 + seed + variant.length * 5) % 10;
          const right = h < 7 - m * 2;
          const dx = right ? c.questions[0]!.reference!.diagnosis! : DX[(i + 1) % 4]!;
          const itemKey = itemKeyOf({ caseId: c.id, questionId: 'q', modelId, variant, sample });
          out.push({
            id: idOf(itemKey, out.length), runId, itemKey, caseId: c.id, questionId: 'q', cacheKey: '', modelId, variant, sample, rawText: dx,
            parsed: { hypotheses: [{ rank: 1, diagnosis: dx, confidence: ((h * 13) % 10) / 10, evidence: null }] }, parseError: null,
            usage: { promptTokens: 10, completionTokens: 5, ttftMs: 1, prefillTps: 100, decodeTps: 10 + m }, latencyMs: 100 + h, finishReason: 'stop', createdAt: 1,
          });
        }
      });
    }
  });
  return out;
}

let counter = 0;

/** A benchmark with two runs (one model in both, so labels carry run names), reviews, both scored. */
/** Two scored runs, or with `oneRun` the first only (a benchmark whose table is one set's columns as stored). */
async function seeded(oneRun = false): Promise<{ db: NeuroEvalDB; repos: Repositories; responses: { r1: ResponseRecord[]; r2: ResponseRecord[] } }> {
  const db = await openDatabase({ name: `stored-results-${Date.now()}-${++counter}`, indexedDB, IDBKeyRange });
  const repos = createRepositories(db);
  await repos.benchmarks.putWithContent({
    id: 'b', name: 'Bench', version: '1', license: 'MIT', description: '', contentHash: 'h'.repeat(64), source: 'x', synthetic: true, caseCount: cases.length, createdAt: 1, files: [],
    manifest: { format: 'neuroeval-bundle', formatVersion: 1, id: 'b', name: 'Bench', version: '1', license: 'MIT', contentHash: 'h'.repeat(64), caseCount: cases.length, imageCount: 0 },
  }, cases);
  const responses = { r1: answers('r1', ['alpha', 'beta', 'gamma'], 0), r2: answers('r2', ['alpha', 'delta'], 3) };
  for (const [runId, rows] of Object.entries(responses)) {
    if (oneRun && runId !== 'r1') continue;
    await repos.runs.put(testRun({ id: runId, name: `Run ${runId}`, plan: { cases: cases.length, models: 3, variants: 3, samples: 2, items: rows.length } }));
    await repos.responses.putBatch(rows);
  }
  await repos.reviews.record({ responseId: responses.r1[0]!.id, runId: 'r1', reviewerId: 'dr-a', verdict: 'wrong', errorClasses: ['hallucinated-finding'], rationaleRating: 2, reason: '' });
  await repos.reviews.record({ responseId: responses.r1[0]!.id, runId: 'r1', reviewerId: 'dr-b', verdict: 'correct', errorClasses: [], rationaleRating: 4, reason: '' });
  if (!oneRun) await repos.reviews.record({ responseId: responses.r2[5]!.id, runId: 'r2', reviewerId: 'dr-a', verdict: 'wrong', errorClasses: ['laterality'], rationaleRating: null, reason: '' });
  await score(repos, 'r1', responses.r1, true);
  if (!oneRun) await score(repos, 'r2', responses.r2, false);
  return { db, repos, responses };
}

/** Scores a run as the scoring worker does; `passCases` hands the cases over (else saveVersion reads them). */
async function score(repos: Repositories, runId: string, responses: ResponseRecord[], passCases: boolean): Promise<void> {
  const reviews = await repos.reviews.listByRun(runId);
  const r = await scoreRun({ protocolId: 'auto', cases, responses, reviews }, { resamples: 200 });
  await repos.scores.saveVersion(runId, { durationMs: 1, config: r.config, summary: r.summary }, r.items, passCases ? cases : undefined);
}

const QUERIES: AnswerQuery[] = [
  {},
  { sort: { key: 'caseId' } },
  ...(['caseId', 'modelId', 'variant', 'protocolId', 'value', 'confidence'] as AnswerSortKey[]).flatMap((key) => [
    { sort: { key }, offset: 0, limit: 50 }, { sort: { key, descending: true }, offset: 40, limit: 30 },
  ]),
  { outcome: 'wrong', sort: { key: 'confidence', descending: true }, limit: 500 },
  { outcome: 'right', modelId: 'alpha', variant: 'degrade:blur:2', limit: 500 },
  { search: 'CASE-1', sort: { key: 'caseId', descending: true }, limit: 500 },
  { modelId: 'no-such-model' },
  { outcome: 'unscored' },
];

/** Everything the page and the report show, from the stored digests and from every row. */
async function bothWays(repos: Repositories) {
  const full = await loadResults(repos, 'b');
  const stored = await loadStoredResults(repos, 'b');
  const detail = await loadStoredDetail(repos, stored);
  return { full, stored, detail, overview: { full: overviewOf(full), stored: await storedOverview(repos, stored) } };
}

async function expectAgreement(repos: Repositories): Promise<void> {
  const { full, stored, detail, overview } = await bothWays(repos);
  expect(stored.signature).toBe(full.signature);
  expect(overview.stored).toEqual(overview.full);

  for (const q of QUERIES) expect(await storedAnswers(repos, stored, q), JSON.stringify(q)).toEqual(queryAnswers(full.answers, q));
  // Every page of the default order, as the table pages through it.
  for (let offset = 0; offset < full.answers.length; offset += 100) {
    const q: AnswerQuery = { outcome: 'any', sort: { key: 'caseId' }, offset, limit: 100 };
    expect(await storedAnswers(repos, stored, q)).toEqual(queryAnswers(full.answers, q));
  }

  for (const { key } of overview.full.leaderboard.metrics) {
    for (const unit of ['question', 'sample'] as const) {
      expect(compareRows(detail.itemsFor(key), key, { unit, cases: detail.cases }), `${key} ${unit}`).toEqual(compareRows(full.scored, key, { unit, cases: full.cases }));
    }
    for (const dim of overview.full.dimensions) {
      expect(breakdown(detail.itemsFor(key), detail.cases, dim, key), `${key} by ${dim}`).toEqual(breakdown(full.scored, full.cases, dim, key));
    }
  }
  expect(agreementReport(stored.reviews, stored.reviewed.flatMap((s) => s.items))).toEqual(agreementReport(full.reviews, full.scored.flatMap((s) => s.items)));
}

describe('results opened from stored digests', () => {
  it('show what a full recomputation from every score row shows', async () => {
    const { repos } = await seeded();
    const { overview, stored } = await bothWays(repos);
    // The fixture exercises what it should: patient intervals, several samples, confirmed error classes, curves, reliability, two runs' labels.
    const rows = overview.full.leaderboard.rows;
    expect(rows.map((r) => r.label)).toContain('alpha · Run r1');
    expect(rows.some((r) => Object.values(r.metrics).some((m) => m.ciMethod === 'patient-bootstrap'))).toBe(true);
    expect(overview.full.taxonomy.some((t) => Object.keys(t.confirmed).length > 0)).toBe(true);
    expect(overview.full.degradation.length).toBeGreaterThan(0);
    expect(overview.full.reliability.length).toBe(rows.length);
    expect(overview.full.dimensions).toContain('fieldStrength');
    expect(stored.answerIndex().total).toBe(overview.full.runs.reduce((a, r) => a + r.answers, 0));
    await expectAgreement(repos);
  });

  it('show the same with one scored run, whose table columns are read as stored', async () => {
    const { repos } = await seeded(true);
    const { overview, stored } = await bothWays(repos);
    expect(overview.full.runs.map((r) => r.id)).toEqual(['r1']);
    expect(stored.digests).toHaveLength(1);
    await expectAgreement(repos);
    // A filter or search after the table opened by case reads the case ids then: the same rows as from every score row.
    const full = await loadResults(repos, 'b');
    for (const q of [{ search: 'case-1', limit: 500 }, { modelId: 'beta', sort: { key: 'caseId', descending: true }, limit: 500 }] as AnswerQuery[]) {
      expect(await storedAnswers(repos, stored, q)).toEqual(queryAnswers(full.answers, q));
    }
  });

  it('give each answer its own id, those the runner did not name included', async () => {
    const { repos } = await seeded();
    // An answer id is the run's id and the item's key, which the table's columns hold, so only other ids are stored:
    // here every third answer of a third run keeps the id it had elsewhere (non-ASCII included).
    const odd = (n: number) => n % 3 === 0;
    const r3 = answers('r3', ['epsilon', 'zeta'], 5, (itemKey, n) => (odd(n) ? `Übernahme-${n}/${itemKey}` : `r3/${itemKey}`));
    await repos.runs.put(testRun({ id: 'r3', name: 'Run r3', plan: { cases: cases.length, models: 2, variants: 3, samples: 2, items: r3.length } }));
    await repos.responses.putBatch(r3);
    await score(repos, 'r3', r3, true);
    const digest = (await repos.scores.openDigest((await repos.scores.latestSet('r3'))!, 'h'.repeat(64)))!;
    expect(digest.table.otherIds.rows.length).toBe(r3.filter((_, n) => odd(n)).length);
    const first = (await repos.scores.openDigest((await repos.scores.latestSet('r1'))!, 'h'.repeat(64)))!;
    expect(first.table.otherIds.rows.length).toBe(0);
    const stored = await loadStoredResults(repos, 'b');
    const listed = await storedAnswers(repos, stored, { modelId: 'zeta', limit: 1000 });
    expect(listed.rows.map((r) => r.responseId).sort()).toEqual(r3.filter((r) => r.modelId === 'zeta').map((r) => r.id).sort());
    await expectAgreement(repos);
  });

  it('are written with the score set, one digest per set and part', async () => {
    const { repos } = await seeded();
    const sets = await Promise.all(['r1', 'r2'].map(async (r) => (await repos.scores.latestSet(r))!));
    for (const set of sets) {
      expect(await repos.scores.openDigest(set, 'h'.repeat(64))).toMatchObject({ scoreSetId: set.id, scorerVersion: set.config.scorerVersion, items: set.summary.items });
      expect(await repos.scores.detailDigest(set, 'h'.repeat(64))).toMatchObject({ scoreSetId: set.id });
      // Another benchmark content is another set of cases: the digest does not apply.
      expect(await repos.scores.openDigest(set, 'x'.repeat(64))).toBeUndefined();
    }
  });

  it('follow a new review and a re-score, never an old digest', async () => {
    const { repos, responses } = await seeded();
    const before = await loadStoredResults(repos, 'b');
    await repos.reviews.record({ responseId: responses.r1[9]!.id, runId: 'r1', reviewerId: 'dr-c', verdict: 'wrong', errorClasses: ['wrong-location'], rationaleRating: 1, reason: '' });
    expect(await resultsSignature(repos, 'b')).not.toBe(before.signature);
    const reviewed = await bothWays(repos);
    expect(reviewed.overview.stored.taxonomy).toEqual(reviewed.overview.full.taxonomy);
    expect(JSON.stringify(reviewed.overview.stored.taxonomy)).toContain('wrong-location');
    expect(reviewed.overview.stored.runs.find((r) => r.id === 'r1')?.newReviews).toBe(1);
    await expectAgreement(repos);

    // Re-scoring folds the review in: a new set with its own digest, which is what opens.
    await score(repos, 'r1', responses.r1, true);
    const rescored = await loadStoredResults(repos, 'b');
    expect(rescored.digests.map((d) => d.scoreSetId).sort()).toEqual(['r1/v2', 'r2/v1']);
    expect(rescored.runs.find((r) => r.id === 'r1')?.newReviews).toBe(0);
    await expectAgreement(repos);
  });

  it('are rebuilt when missing or when the set\'s rows changed, and stored again', async () => {
    const { db, repos, responses } = await seeded();
    const set = (await repos.scores.latestSet('r2'))!;
    const rows = await repos.scores.listBySet(set.id);
    // Sets stored before digests existed have none: opening builds and stores it.
    await deleteDigests(db, set.id);
    expect(await repos.scores.openDigest(set, 'h'.repeat(64))).toBeUndefined();
    await expectAgreement(repos);
    expect(await repos.scores.openDigest(set, 'h'.repeat(64))).toMatchObject({ items: rows.length });
    // An answer deleted: its score row goes and the set is marked outdated; a digest built before that is never read.
    const before = (await db.resultDigests.get(`${set.id}|open`))!;
    await repos.deletions.deleteAnswer(responses.r2[3]!.id);
    const outdated = (await repos.scores.latestSet('r2'))!;
    expect(outdated.outdated).toBeTruthy();
    await db.resultDigests.put(before); // as if left behind
    expect(await repos.scores.openDigest(outdated, 'h'.repeat(64))).toBeUndefined();
    await expectAgreement(repos);
    expect(await repos.scores.openDigest(outdated, 'h'.repeat(64))).toMatchObject({ items: rows.length - 1 });
  });

  it('read ahead the page the answers table asks first, and only for that ask', () => {
    // The table's first ask as AnswersTable.svelte makes it: its filters empty, its page from the top.
    const opening: AnswerQuery = { outcome: 'any', sort: { key: 'caseId', descending: false }, offset: 0, limit: TABLE_PAGE };
    expect(sameAnswerQuery(opening, TABLE_FIRST_PAGE)).toBe(true);
    expect(sameAnswerQuery({ ...opening, search: '  ' }, TABLE_FIRST_PAGE)).toBe(true);
    for (const other of [{ ...opening, offset: TABLE_PAGE }, { ...opening, outcome: 'wrong' }, { ...opening, search: 'case-1' }, { ...opening, modelId: 'alpha' }, { ...opening, sort: { key: 'caseId', descending: true } }, { ...opening, sort: { key: 'value' } }] as AnswerQuery[]) {
      expect(sameAnswerQuery(other, TABLE_FIRST_PAGE), JSON.stringify(other)).toBe(false);
    }
  });
});

/** Test-only write below the repositories: what an app version before digests leaves. */
async function deleteDigests(db: NeuroEvalDB, scoreSetId: string): Promise<void> {
  await db.resultDigests.where('scoreSetId').equals(scoreSetId).delete();
}

