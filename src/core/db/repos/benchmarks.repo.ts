/**
 * Benchmarks, and the all-or-nothing import of a benchmark with its cases.
 * Deleting one, with its runs and the images no other benchmark uses, is the
 * deletions repository's (deletions.repo.ts).
 */
import { guardFor, notFound } from '../storage-errors.ts';
import type { AssetRecord, BenchmarkRecord, CasePayload, CaseRecord } from '../../bundle/records.ts';
import type { RepoContext } from './context.ts';

export interface BenchmarksRepo {
  get(id: string): Promise<BenchmarkRecord | undefined>;
  /** Like {@link get}, but throws NOT_FOUND when missing. */
  require(id: string): Promise<BenchmarkRecord>;
  /** All benchmarks, newest first. */
  list(): Promise<BenchmarkRecord[]>;
  findByName(name: string): Promise<BenchmarkRecord[]>;
  count(): Promise<number>;
  put(record: BenchmarkRecord): Promise<void>;
  /**
   * Stores a benchmark, its cases (stamped with its id) and their image assets
   * in one transaction: after a failure nothing of the import is stored.
   */
  putWithContent(record: BenchmarkRecord, cases: readonly CasePayload[], assets?: readonly AssetRecord[]): Promise<void>;
}

/** Builds the benchmarks repository. */
export function createBenchmarksRepo({ db, meter }: RepoContext): BenchmarksRepo {
  const guard = guardFor(db);
  const t = db.benchmarks;
  const get = (id: string) => guard('read the benchmark', () => t.get(id));
  return {
    get,
    async require(id) {
      const found = await get(id);
      if (!found) throw notFound('benchmark', id);
      return found;
    },
    list: () => guard('list benchmarks', () => t.orderBy('createdAt').reverse().toArray()),
    findByName: (name) => guard('find benchmarks by name', () => t.where('name').equals(name).toArray()),
    count: () => guard('count benchmarks', () => t.count()),
    put: (record) => guard('save the benchmark', async () => void (await t.put(record))),
    putWithContent: (record, cases, assets = []) =>
      guard('import the benchmark', async () => {
        const rows: CaseRecord[] = cases.map((c) => ({ ...c, benchmarkId: record.id }));
        await db.transaction('rw', [t, db.cases, db.assets], async () => {
          await t.put(record);
          await db.cases.bulkPut(rows);
          if (assets.length > 0) await db.assets.bulkPut([...assets]);
        });
        meter.recordWrite(record, rows, assets);
      }),
  };
}
