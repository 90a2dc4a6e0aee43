/** Evaluation runs, their status, and deleting a run with everything it produced. */
import { criteriaSha256 } from '../../criteria/criteria.ts';
import { type CriteriaDeviation, type CriteriaSet } from '../../model/criteria.ts';
import { InvalidInputError } from '../../errors.ts';
import { guardFor, notFound } from '../storage-errors.ts';
import type { ResponseRecord, RunStatus } from '../../model/answer.ts';
import type { ReviewRecord } from '../../model/review.ts';
import type { RunRecord } from '../../runner/records.ts';
import { paged, type Page, type RepoContext } from './context.ts';

/** What {@link RunsRepo.importWithResponses} stored: answers added or already there; reviews added, updated to a newer state, or kept. */
export interface ImportedRunRows {
  added: number;
  kept: number;
  reviews: { added: number; updated: number; kept: number };
}

/** How many rows {@link RunsRepo.deleteWithResults} removed per table. */
export interface DeletedRunResults {
  responses: number;
  scores: number;
  scoreSets: number;
  reviews: number;
}

export interface RunsRepo {
  get(id: string): Promise<RunRecord | undefined>;
  /** Like {@link get}, but throws NOT_FOUND when missing. */
  require(id: string): Promise<RunRecord>;
  /** All runs, newest first. */
  list(page?: Page): Promise<RunRecord[]>;
  /** A benchmark's runs, newest first. */
  listByBenchmark(benchmarkId: string): Promise<RunRecord[]>;
  listByStatus(status: RunStatus): Promise<RunRecord[]>;
  count(): Promise<number>;
  put(record: RunRecord): Promise<void>;
  /**
   * Sets a run's status (and `error`, cleared unless given) and stamps
   * `updatedAt`; returns the updated run. Throws NOT_FOUND if it does not exist.
   */
  updateStatus(id: string, status: RunStatus, details?: { error?: string | null }): Promise<RunRecord>;
  /**
   * Puts another set of acceptance criteria in force for a run, keeping the
   * one it replaces as a deviation with the reason given (never rewriting
   * what was pre-registered). Returns the updated run.
   */
  reviseCriteria(id: string, criteria: CriteriaSet, reason: string): Promise<RunRecord>;
  /**
   * Deletes a run with its responses, scores and reviews in one transaction.
   * Throws NOT_FOUND if the run does not exist.
   */
  deleteWithResults(id: string): Promise<DeletedRunResults>;
  /**
   * Stores a run with answers and reviews in one transaction (importing a run
   * exported elsewhere): the run record is written as given, answers whose id
   * is already stored are left as they are, and a review replaces the stored
   * one of the same id only when it is newer (so importing a file twice
   * changes nothing). Returns how many answers and reviews were added.
   */
  importWithResponses(run: RunRecord, responses: readonly ResponseRecord[], reviews?: readonly ReviewRecord[]): Promise<ImportedRunRows>;
}

/** Builds the runs repository. */
export function createRunsRepo({ db, now, meter }: RepoContext): RunsRepo {
  const guard = guardFor(db);
  const t = db.runs;
  const get = (id: string) => guard('read the run', () => t.get(id));
  return {
    get,
    async require(id) {
      const found = await get(id);
      if (!found) throw notFound('run', id);
      return found;
    },
    list: (page) => guard('list runs', () => paged(t.orderBy('createdAt').reverse(), page).toArray()),
    listByBenchmark: (benchmarkId) =>
      guard('list runs', () => t.where('benchmarkId').equals(benchmarkId).reverse().sortBy('createdAt')),
    listByStatus: (status) => guard('list runs', () => t.where('status').equals(status).sortBy('createdAt')),
    count: () => guard('count runs', () => t.count()),
    put: (record) => guard('save the run', async () => void (await t.put(record))),
    updateStatus: (id, status, details = {}) =>
      guard('update the run', () =>
        // Read-modify-write in one transaction so a concurrent update cannot be lost.
        db.transaction('rw', t, async () => {
          const run = await t.get(id);
          if (!run) throw notFound('run', id);
          const next: RunRecord = { ...run, status, error: details.error ?? null, updatedAt: now() };
          await t.put(next);
          return next;
        }),
      ),
    reviseCriteria: (id, criteria, reason) =>
      guard('change the acceptance criteria', () =>
        db.transaction('rw', t, async () => {
          const run = await t.get(id);
          if (!run) throw notFound('run', id);
          if (!run.config) throw new InvalidInputError(`Run "${run.name}" has no stored configuration to hold criteria.`);
          if (reason.trim() === '') throw new InvalidInputError('Say why the criteria change: the reason is kept with the deviation.', { field: 'reason' });
          const previous = run.config.criteria ?? { version: 1 as const, criteria: [] };
          const at = now();
          const deviation: CriteriaDeviation = { at, fromSha256: run.config.criteria ? criteriaSha256(previous) : '', toSha256: criteriaSha256(criteria), reason: reason.trim(), previous };
          const next: RunRecord = { ...run, config: { ...run.config, criteria }, criteriaDeviations: [...(run.criteriaDeviations ?? []), deviation], updatedAt: at };
          await t.put(next);
          return next;
        }),
      ),
    importWithResponses: (run, responses, reviews = []) =>
      guard('import the run', () =>
        db.transaction('rw', [t, db.responses, db.reviews], async () => {
          const existing = new Set(await db.responses.where('runId').equals(run.id).primaryKeys());
          const fresh = responses.filter((r) => !existing.has(r.id));
          await t.put(run);
          await db.responses.bulkAdd([...fresh]);
          const stored = await db.reviews.bulkGet(reviews.map((r) => r.id));
          const newer = reviews.filter((r, i) => !stored[i] || stored[i]!.createdAt < r.createdAt);
          await db.reviews.bulkPut(newer);
          meter.recordWrite(fresh, newer);
          const added = stored.filter((s) => !s).length;
          return {
            added: fresh.length,
            kept: responses.length - fresh.length,
            reviews: { added, updated: newer.length - added, kept: reviews.length - newer.length },
          };
        }),
      ),
    deleteWithResults: (id) =>
      guard('delete the run', () =>
        db.transaction('rw', [t, db.responses, db.scores, db.scoreSets, db.resultDigests, db.reviews], async () => {
          if (!(await t.get(id))) throw notFound('run', id);
          await db.resultDigests.where('runId').equals(id).delete(); // derived from the score sets, so not counted
          const removed: DeletedRunResults = {
            responses: await db.responses.where('runId').equals(id).delete(),
            scores: await db.scores.where('runId').equals(id).delete(),
            scoreSets: await db.scoreSets.where('runId').equals(id).delete(),
            reviews: await db.reviews.where('runId').equals(id).delete(),
          };
          await t.delete(id);
          return removed;
        }),
      ),
  };
}
