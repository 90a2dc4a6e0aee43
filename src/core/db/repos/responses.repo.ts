/** Model responses of runs: written in batches while a run progresses. */
import Dexie from 'dexie';
import { guardFor, notFound } from '../storage-errors.ts';
import type { ResponseRecord } from '../../model/answer.ts';
import { paged, type Page, type RepoContext } from './context.ts';

export interface ResponsesRepo {
  get(id: string): Promise<ResponseRecord | undefined>;
  /** All rows in the table, across runs. */
  count(): Promise<number>;
  /** Like {@link get}, but throws NOT_FOUND when missing. */
  require(id: string): Promise<ResponseRecord>;
  /** A run's responses in id order. */
  listByRun(runId: string, page?: Page): Promise<ResponseRecord[]>;
  /** All responses stored for one planned item of a run. */
  listByItem(runId: string, itemKey: string): Promise<ResponseRecord[]>;
  /** A run's answers to one case (every question, model, variant and sample). */
  listByRunAndCase(runId: string, caseId: string): Promise<ResponseRecord[]>;
  countByRun(runId: string): Promise<number>;
  /** Item keys that already have a response, for resuming a run; reads only the index. */
  itemKeysByRun(runId: string): Promise<Set<string>>;
  /** Ids of the cases a run has responses for; reads only the index. */
  caseIdsByRun(runId: string): Promise<Set<string>>;
  /** The newest response with this cache key, from any run, for reusing an identical generation. */
  getByCacheKey(cacheKey: string): Promise<ResponseRecord | undefined>;
  put(row: ResponseRecord): Promise<void>;
  /** Stores all rows at once: if any row fails, none is stored (a lone row is a plain put, which reports a full disk as such). */
  putBatch(rows: readonly ResponseRecord[]): Promise<void>;
  /** Deletes a run's responses; returns how many. Prefer `runs.deleteWithResults`. */
  deleteByRun(runId: string): Promise<number>;
}

/** Builds the responses repository. */
export function createResponsesRepo({ db, meter }: RepoContext): ResponsesRepo {
  const guard = guardFor(db);
  const t = db.responses;
  const get = (id: string) => guard('read the response', () => t.get(id));
  /** The distinct second parts of a `[runId+…]` index for one run, read from the index alone. */
  const secondKeys = async (index: '[runId+itemKey]' | '[runId+caseId]', runId: string): Promise<Set<string>> => {
    const keys = await t.where(index).between([runId, Dexie.minKey], [runId, Dexie.maxKey], true, true).uniqueKeys();
    return new Set(keys.map((k) => String((k as unknown[])[1])));
  };
  return {
    get,
    async require(id) {
      const found = await get(id);
      if (!found) throw notFound('response', id);
      return found;
    },
    count: () => guard('count responses', () => t.count()),
    listByRun: (runId, page) => guard('list responses', () => paged(t.where('runId').equals(runId), page).toArray()),
    listByItem: (runId, itemKey) =>
      guard('list responses', () => t.where('[runId+itemKey]').equals([runId, itemKey]).toArray()),
    countByRun: (runId) => guard('count responses', () => t.where('runId').equals(runId).count()),
    itemKeysByRun: (runId) => guard('list answered items', () => secondKeys('[runId+itemKey]', runId)),
    caseIdsByRun: (runId) => guard('list answered cases', () => secondKeys('[runId+caseId]', runId)),
    getByCacheKey: (cacheKey) =>
      guard('look up a cached response', async () => {
        const hits = await t.where('cacheKey').equals(cacheKey).sortBy('createdAt');
        return hits.at(-1);
      }),
    put: (row) =>
      guard('save the response', async () => {
        await t.put(row);
        meter.recordWrite(row);
      }),
    listByRunAndCase: (runId, caseId) =>
      guard('list responses', () => t.where('[runId+caseId]').equals([runId, caseId]).toArray()),
    putBatch: (rows) =>
      guard('save responses', async () => {
        if (rows.length === 0) return;
        if (rows.length === 1) {
          // One row is atomic by itself, and a plain put reports a full disk as the quota error itself (storage-stop.ts),
          // where a failed explicit transaction more often leaves only the browser's closing of the connection
          // (STORAGE_CLOSED, test/browser/disk-full.spec.ts). The runner saves its answers one at a time.
          await t.put(rows[0]!);
        } else {
          // An explicit transaction makes the batch atomic: an uncaught BulkError aborts it.
          await db.transaction('rw', t, () => t.bulkPut([...rows]));
        }
        meter.recordWrite(rows);
      }),
    deleteByRun: (runId) => guard('delete responses', () => t.where('runId').equals(runId).delete()),
  };
}
