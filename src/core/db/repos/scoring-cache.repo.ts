/** Judge replies and encoder vectors kept for re-scoring: the app's store behind scoring/run/scoring-cache.ts. */
import type { ScoringCacheStore } from '../../scoring/run/scoring-cache.ts';
import { guardFor } from '../storage-errors.ts';
import type { RepoContext } from './context.ts';

export interface ScoringCacheRepo extends ScoringCacheStore {
  /** How many replies and vectors are kept. */
  count(): Promise<number>;
  /** Forgets them all (the settings' "clear"). */
  clear(): Promise<void>;
}

export function createScoringCacheRepo({ db, now }: RepoContext): ScoringCacheRepo {
  const guard = guardFor(db);
  const t = db.scoringCache;
  return {
    get: (key) => guard('read the scoring cache', async () => (await t.get(key))?.value),
    put: (key, value) => guard('save to the scoring cache', async () => void (await t.put({ key, value, createdAt: now() }))),
    count: () => guard('count the scoring cache', () => t.count()),
    clear: () => guard('clear the scoring cache', () => t.clear()),
  };
}
