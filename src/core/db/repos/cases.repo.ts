/** Benchmark cases, keyed by `[benchmarkId, id]`. */
import Dexie from 'dexie';
import { guardFor, notFound } from '../storage-errors.ts';
import type { CaseRecord } from '../../bundle/records.ts';
import { paged, type Page, type RepoContext } from './context.ts';

/** Case fields that have a `[benchmarkId+field]` index. */
export type CaseFacet = 'split' | 'taskFamily' | 'diseaseGroup';

export interface CasesRepo {
  get(benchmarkId: string, id: string): Promise<CaseRecord | undefined>;
  /** Like {@link get}, but throws NOT_FOUND when missing. */
  require(benchmarkId: string, id: string): Promise<CaseRecord>;
  /** A benchmark's cases in id order. */
  listByBenchmark(benchmarkId: string, page?: Page): Promise<CaseRecord[]>;
  /** A benchmark's cases whose `facet` field equals `value`, e.g. `('b1', 'split', 'test')`. */
  listBy(benchmarkId: string, facet: CaseFacet, value: string): Promise<CaseRecord[]>;
  /** The distinct values of `facet` within a benchmark, sorted; reads only the index. */
  facetValues(benchmarkId: string, facet: CaseFacet): Promise<string[]>;
  /** All rows in the table (every benchmark or run). */
  count(): Promise<number>;
  countByBenchmark(benchmarkId: string): Promise<number>;
  put(record: CaseRecord): Promise<void>;
  /** Stores all rows in one transaction: all or nothing. */
  bulkPut(records: readonly CaseRecord[]): Promise<void>;
  /** Deletes a benchmark's cases; returns how many. */
  deleteByBenchmark(benchmarkId: string): Promise<number>;
}

/** Builds the cases repository. */
export function createCasesRepo({ db, meter }: RepoContext): CasesRepo {
  const guard = guardFor(db);
  const t = db.cases;
  const inBenchmark = (benchmarkId: string, facet: CaseFacet) =>
    t.where(`[benchmarkId+${facet}]`).between([benchmarkId, Dexie.minKey], [benchmarkId, Dexie.maxKey], true, true);
  const get = (benchmarkId: string, id: string) => guard('read the case', () => t.get([benchmarkId, id]));
  return {
    get,
    async require(benchmarkId, id) {
      const found = await get(benchmarkId, id);
      if (!found) throw notFound(`case in benchmark ${JSON.stringify(benchmarkId)}`, id);
      return found;
    },
    listByBenchmark: (benchmarkId, page) =>
      // The index orders equal keys by primary key [benchmarkId, id], i.e. by case id.
      guard('list cases', () => paged(t.where('benchmarkId').equals(benchmarkId), page).toArray()),
    listBy: (benchmarkId, facet, value) =>
      guard('list cases', () => t.where(`[benchmarkId+${facet}]`).equals([benchmarkId, value]).toArray()),
    facetValues: (benchmarkId, facet) =>
      guard('list case categories', async () => {
        const keys = await inBenchmark(benchmarkId, facet).uniqueKeys();
        return keys.map((k) => String((k as unknown[])[1]));
      }),
    count: () => guard('count cases', () => t.count()),
    countByBenchmark: (benchmarkId) => guard('count cases', () => t.where('benchmarkId').equals(benchmarkId).count()),
    put: (record) => guard('save the case', async () => void (await t.put(record))),
    bulkPut: (records) =>
      guard('save cases', async () => {
        if (records.length === 0) return;
        // Without an explicit transaction Dexie commits the rows that succeeded.
        await db.transaction('rw', t, () => t.bulkPut([...records]));
        meter.recordWrite(records);
      }),
    deleteByBenchmark: (benchmarkId) =>
      guard('delete cases', () => t.where('benchmarkId').equals(benchmarkId).delete()),
  };
}
