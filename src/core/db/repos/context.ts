/** Shared plumbing for the repositories built by `createRepositories`. */
import type { Collection } from 'dexie';
import type { NeuroEvalDB } from '../schema.ts';
import type { WriteMeter } from '../write-meter.ts';

export interface RepoContext {
  readonly db: NeuroEvalDB;
  /** Shared by the whole repository set, so the large-write hook fires once. */
  readonly meter: WriteMeter;
  /** Clock for `updatedAt` and similar stamps; injectable for deterministic tests. */
  readonly now: () => number;
}

/** Optional paging for list queries. */
export interface Page {
  offset?: number;
  limit?: number;
}

/** Applies optional offset/limit to a Dexie collection. */
export function paged<T, K>(collection: Collection<T, K>, page: Page = {}): Collection<T, K> {
  let c = collection;
  if (page.offset) c = c.offset(page.offset);
  if (page.limit !== undefined) c = c.limit(page.limit);
  return c;
}
