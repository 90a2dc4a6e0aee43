/**
 * Deleting stored records with everything that hangs off them, so nothing is
 * left orphaned: a benchmark (its cases, the images no other benchmark uses,
 * its runs and all under them), a run (answers, scores, score sets, reviews),
 * one answer (its scores and reviews) and one review.
 *
 * Each kind has a `plan…` that counts what would go (shown to the user
 * before they confirm) and a `delete…` that removes it in ONE transaction over
 * every table, counting again inside it: after a failure nothing is deleted,
 * and the returned counts are what actually went.
 *
 * Tables added to the schema later are covered without editing this file when
 * they index `runId`, `responseId` or `benchmarkId`: their rows go with the run,
 * answer or benchmark they belong to, and are counted under `other`. Rows of
 * such a table indexed by `scoreSetId` are figures derived from a score set
 * (results digests): when the set is marked outdated they are deleted too, so
 * they are rebuilt from the scores that remain instead of showing a deleted answer.
 */
import type { Table } from 'dexie';
import { guardFor, notFound } from '../storage-errors.ts';
import type { NeuroEvalDB } from '../schema.ts';
import type { ScoreSetRecord } from '../../scoring/run/records.ts';
import type { Timestamp } from '../../model/answer.ts';
import type { RepoContext } from './context.ts';

/** What a deletion removes (a plan) or removed (a result), per kind of record. */
export interface DeletionCounts {
  readonly benchmarks: number;
  readonly cases: number;
  /** Images and bundle files no remaining benchmark uses. */
  readonly images: number;
  readonly imageBytes: number;
  /** Images of the benchmark that another benchmark also uses: kept. */
  readonly sharedImages: number;
  readonly runs: number;
  readonly answers: number;
  readonly scores: number;
  readonly scoreSets: number;
  readonly reviews: number;
  /** Score sets kept but marked outdated (an answer or review they counted is gone): re-score the run. */
  readonly outdatedScoreSets: number;
  /** Rows of other tables that belong to what is deleted, per table. */
  readonly other: Readonly<Record<string, number>>;
}

export type DeletionKind = 'benchmark' | 'run' | 'answer' | 'review';

export interface DeletionPlan {
  readonly kind: DeletionKind;
  readonly id: string;
  /** How the record is named to the user (benchmark or run name, answer's item, reviewer). */
  readonly label: string;
  readonly counts: DeletionCounts;
}

export interface DeletionsRepo {
  planBenchmark(id: string): Promise<DeletionPlan>;
  deleteBenchmark(id: string): Promise<DeletionPlan>;
  planRun(id: string): Promise<DeletionPlan>;
  deleteRun(id: string): Promise<DeletionPlan>;
  planAnswer(id: string): Promise<DeletionPlan>;
  deleteAnswer(id: string): Promise<DeletionPlan>;
  planReview(id: string): Promise<DeletionPlan>;
  deleteReview(id: string): Promise<DeletionPlan>;
}

/** The tables this module knows by name; any other table is cascaded through its indexes. */
const KNOWN = new Set(['benchmarks', 'cases', 'assets', 'models', 'runs', 'responses', 'scores', 'scoreSets', 'reviews', 'settings']);
type OwnerIndex = 'runId' | 'responseId' | 'benchmarkId' | 'scoreSetId';

const ZERO: DeletionCounts = {
  benchmarks: 0, cases: 0, images: 0, imageBytes: 0, sharedImages: 0, runs: 0, answers: 0, scores: 0, scoreSets: 0, reviews: 0, outdatedScoreSets: 0, other: {},
};

/** Mutable tally used while a plan or a deletion walks the tables. */
type Tally = { -readonly [K in keyof DeletionCounts]: K extends 'other' ? Record<string, number> : number };
const tally = (): Tally => ({ ...ZERO, other: {} });

/** Reads (and, when `write`, deletes) what belongs to one record; the same walk plans and executes. */
interface Walk {
  readonly db: NeuroEvalDB;
  readonly write: boolean;
  readonly now: Timestamp;
  readonly t: Tally;
}

/** Tables added later that index `field`: their rows owned through that field. */
function extraTables(db: NeuroEvalDB, field: OwnerIndex): Table[] {
  return db.tables.filter((t) => !KNOWN.has(t.name) && t.schema.indexes.some((i) => i.keyPath === field));
}

async function cascadeExtra(w: Walk, field: OwnerIndex, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  for (const table of extraTables(w.db, field)) {
    const rows = table.where(field).anyOf([...keys]);
    const n = w.write ? await rows.delete() : await rows.count();
    if (n > 0) w.t.other[table.name] = (w.t.other[table.name] ?? 0) + n;
  }
}

/** A run's answers, scores, score sets, reviews and the run itself. */
async function walkRun(w: Walk, runId: string): Promise<void> {
  const { db } = w;
  const responseIds = (await db.responses.where('runId').equals(runId).primaryKeys()) as string[];
  await cascadeExtra(w, 'responseId', responseIds);
  await cascadeExtra(w, 'runId', [runId]);
  const sets = db.scoreSets.where('runId').equals(runId);
  const scores = db.scores.where('runId').equals(runId);
  const reviews = db.reviews.where('runId').equals(runId);
  const answers = db.responses.where('runId').equals(runId);
  if (w.write) {
    w.t.scores += await scores.delete();
    w.t.scoreSets += await sets.delete();
    w.t.reviews += await reviews.delete();
    w.t.answers += await answers.delete();
    await db.runs.delete(runId);
  } else {
    w.t.scores += await scores.count();
    w.t.scoreSets += await sets.count();
    w.t.reviews += await reviews.count();
    w.t.answers += responseIds.length;
  }
  w.t.runs += 1;
}

/** Every image and bundle file a case or benchmark other than `benchmarkId` refers to. */
async function hashesUsedOutside(db: NeuroEvalDB, benchmarkId: string): Promise<Set<string>> {
  const used = new Set<string>();
  await db.cases.where('benchmarkId').notEqual(benchmarkId).each((c) => {
    for (const img of c.images) if (img.sha256) used.add(img.sha256);
  });
  await db.benchmarks.each((b) => {
    if (b.id !== benchmarkId) for (const f of b.files) used.add(f.sha256);
  });
  return used;
}

async function walkBenchmark(w: Walk, id: string): Promise<string> {
  const { db } = w;
  const benchmark = await db.benchmarks.get(id);
  if (!benchmark) throw notFound('benchmark', id);
  const own = new Set<string>(benchmark.files.map((f) => f.sha256));
  await db.cases.where('benchmarkId').equals(id).each((c) => {
    for (const img of c.images) if (img.sha256) own.add(img.sha256);
  });
  const elsewhere = await hashesUsedOutside(db, id);
  const unused = [...own].filter((h) => !elsewhere.has(h));
  const stored = await db.assets.bulkGet(unused);
  const gone = unused.filter((_, i) => stored[i] !== undefined);
  w.t.images += gone.length;
  w.t.imageBytes += stored.reduce((n, a) => n + (a?.bytes ?? 0), 0);
  w.t.sharedImages += [...own].filter((h) => elsewhere.has(h)).length;

  for (const runId of (await db.runs.where('benchmarkId').equals(id).primaryKeys()) as string[]) await walkRun(w, runId);
  await cascadeExtra(w, 'benchmarkId', [id]);
  const cases = db.cases.where('benchmarkId').equals(id);
  if (w.write) {
    w.t.cases += await cases.delete();
    await db.assets.bulkDelete(gone);
    await db.benchmarks.delete(id);
  } else {
    w.t.cases += await cases.count();
  }
  w.t.benchmarks += 1;
  return benchmark.name;
}

/** Marks score sets outdated: their figures still count something that is gone. */
async function outdate(w: Walk, sets: readonly ScoreSetRecord[], reason: string): Promise<void> {
  w.t.outdatedScoreSets += sets.length;
  await cascadeExtra(w, 'scoreSetId', sets.map((s) => s.id));
  if (!w.write) return;
  for (const s of sets) await w.db.scoreSets.put({ ...s, outdated: { reason, at: w.now } });
}

async function walkAnswer(w: Walk, id: string): Promise<string> {
  const { db } = w;
  const answer = await db.responses.get(id);
  if (!answer) throw notFound('answer', id);
  await cascadeExtra(w, 'responseId', [id]);
  const scores = db.scores.where('responseId').equals(id);
  const reviews = db.reviews.where('responseId').equals(id);
  const scored = new Set((await scores.toArray()).map((s) => s.scoreSetId));
  const sets = (await db.scoreSets.where('runId').equals(answer.runId).toArray()).filter((s) => scored.has(s.id));
  await outdate(w, sets, `the answer to ${answer.itemKey} was deleted`);
  if (w.write) {
    w.t.scores += await scores.delete();
    w.t.reviews += await reviews.delete();
    await db.responses.delete(id);
    // The run's results changed: `updatedAt` tells cached results to reload; a finished run now lacks an answer, so Resume can ask again.
    const run = await db.runs.get(answer.runId);
    if (run) await db.runs.put({ ...run, status: run.status === 'done' ? 'paused' : run.status, updatedAt: w.now });
  } else {
    w.t.scores += await scores.count();
    w.t.reviews += await reviews.count();
  }
  w.t.answers += 1;
  return `${answer.modelId} on ${answer.caseId} (${answer.questionId})`;
}

async function walkReview(w: Walk, id: string): Promise<string> {
  const { db } = w;
  const review = await db.reviews.get(id);
  if (!review) throw notFound('review', id);
  // A score set that folded this review in (reviewsUpTo at or after it) no longer matches the reviews kept.
  const sets = (await db.scoreSets.where('runId').equals(review.runId).toArray()).filter((s) => (s.config.reviewsUpTo ?? -Infinity) >= review.createdAt);
  await outdate(w, sets, `a review by ${review.reviewerId} was deleted`);
  if (w.write) {
    await db.reviews.delete(id);
    const run = await db.runs.get(review.runId);
    if (run) await db.runs.put({ ...run, updatedAt: w.now });
  }
  w.t.reviews += 1;
  return `${review.reviewerId}'s review (${review.verdict})`;
}

/** Builds the deletions repository. */
export function createDeletionsRepo({ db, now }: RepoContext): DeletionsRepo {
  const guard = guardFor(db);
  const run = (kind: DeletionKind, id: string, write: boolean, walk: (w: Walk, id: string) => Promise<string>) =>
    guard(write ? `delete the ${kind}` : `count what deleting the ${kind} removes`, () =>
      // Every table in one transaction: a deletion is all or nothing, and a plan reads one consistent state.
      db.transaction(write ? 'rw' : 'r', db.tables, async (): Promise<DeletionPlan> => {
        const w: Walk = { db, write, now: now(), t: tally() };
        const label = await walk(w, id);
        return { kind, id, label, counts: w.t };
      }),
    );
  const runLabel = async (w: Walk, id: string) => {
    const found = await w.db.runs.get(id);
    if (!found) throw notFound('run', id);
    await walkRun(w, id);
    return found.name;
  };
  return {
    planBenchmark: (id) => run('benchmark', id, false, walkBenchmark),
    deleteBenchmark: (id) => run('benchmark', id, true, walkBenchmark),
    planRun: (id) => run('run', id, false, runLabel),
    deleteRun: (id) => run('run', id, true, runLabel),
    planAnswer: (id) => run('answer', id, false, walkAnswer),
    deleteAnswer: (id) => run('answer', id, true, walkAnswer),
    planReview: (id) => run('review', id, false, walkReview),
    deleteReview: (id) => run('review', id, true, walkReview),
  };
}
