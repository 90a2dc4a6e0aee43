/**
 * How much each benchmark takes in this browser: its cases, the bytes of its
 * images and bundle files, its runs and their answers. Images are stored once
 * however many benchmarks use them, so a benchmark's bytes count each of its
 * images once, and the bytes it shares with another benchmark are given
 * apart (deleting it would not free those).
 */
import { guardFor } from '../storage-errors.ts';
import type { RepoContext } from './context.ts';

export interface BenchmarkUsage {
  readonly benchmarkId: string;
  /** `null` for runs whose benchmark is no longer stored (deleted before deletions took the runs along). */
  readonly name: string | null;
  readonly cases: number;
  readonly images: number;
  readonly imageBytes: number;
  /** Part of `imageBytes` in images another benchmark also uses. */
  readonly sharedImageBytes: number;
  readonly runs: number;
  readonly answers: number;
}

export interface StorageUse {
  /** Per benchmark, largest first. */
  readonly benchmarks: readonly BenchmarkUsage[];
  /** Every stored image and bundle file once, whoever uses it. */
  readonly images: number;
  readonly imageBytes: number;
  readonly cases: number;
  readonly runs: number;
  readonly answers: number;
}

export interface UsageRepo {
  /**
   * Storage use per benchmark and in total, read in one transaction. It reads
   * every case, so `signal` stops it part-way (rejecting with the abort) when
   * nobody waits for it any more.
   */
  storageUse(signal?: AbortSignal): Promise<StorageUse>;
}

/** Builds the usage repository. */
export function createUsageRepo({ db }: RepoContext): UsageRepo {
  const guard = guardFor(db);
  return {
    storageUse: (signal) =>
      guard('measure stored data', () =>
        db.transaction('r', [db.benchmarks, db.cases, db.assets, db.runs, db.responses], async (): Promise<StorageUse> => {
          const bytes = new Map<string, number>();
          // Dexie swallows a throw inside each(): `until` is what stops a cursor.
          const stopped = () => signal?.aborted === true;
          await db.assets.toCollection().until(stopped).each((a) => void bytes.set(a.sha256, a.bytes));
          signal?.throwIfAborted();
          const entries = new Map<string, { name: string | null; hashes: Set<string>; cases: number; runs: number; answers: number }>();
          const entry = (id: string) => {
            let e = entries.get(id);
            if (!e) entries.set(id, (e = { name: null, hashes: new Set(), cases: 0, runs: 0, answers: 0 }));
            return e;
          };
          await db.benchmarks.each((b) => {
            const e = entry(b.id);
            e.name = b.name;
            for (const f of b.files) e.hashes.add(f.sha256);
          });
          await db.cases.toCollection().until(stopped).each((c) => {
            const e = entry(c.benchmarkId);
            e.cases++;
            for (const img of c.images) if (img.sha256) e.hashes.add(img.sha256);
          });
          signal?.throwIfAborted();
          let answers = 0;
          for (const run of await db.runs.toArray()) {
            const e = entry(run.benchmarkId);
            e.runs++;
            const n = await db.responses.where('runId').equals(run.id).count();
            e.answers += n;
            answers += n;
          }
          const users = new Map<string, number>();
          for (const e of entries.values()) for (const h of e.hashes) users.set(h, (users.get(h) ?? 0) + 1);
          const benchmarks = [...entries].map(([benchmarkId, e]): BenchmarkUsage => {
            const stored = [...e.hashes].filter((h) => bytes.has(h));
            const sum = (hs: string[]) => hs.reduce((n, h) => n + bytes.get(h)!, 0);
            return {
              benchmarkId, name: e.name, cases: e.cases, images: stored.length, imageBytes: sum(stored),
              sharedImageBytes: sum(stored.filter((h) => users.get(h)! > 1)), runs: e.runs, answers: e.answers,
            };
          });
          benchmarks.sort((a, b) => b.imageBytes - a.imageBytes || b.answers - a.answers || a.benchmarkId.localeCompare(b.benchmarkId));
          return {
            benchmarks,
            images: bytes.size,
            imageBytes: [...bytes.values()].reduce((n, b) => n + b, 0),
            cases: benchmarks.reduce((n, b) => n + b.cases, 0),
            runs: benchmarks.reduce((n, b) => n + b.runs, 0),
            answers,
          };
        }),
      ),
  };
}
