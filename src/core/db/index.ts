/**
 * Storage layer: the NeuroEval IndexedDB database and one repository per
 * table. Features use the repositories, never Dexie tables directly, so error
 * mapping, transactions and large-write accounting stay in one place.
 *
 *   const db = await openDatabase();
 *   const repos = createRepositories(db, { onLargeWrite: requestPersistentStorage });
 *
 * where `requestPersistentStorage` is browser code (outside src/core) that
 * calls the Storage API's `persist()`.
 */
import type { NeuroEvalDB } from './schema.ts';
import { WriteMeter, type StorageHooks } from './write-meter.ts';
import type { RepoContext } from './repos/context.ts';
import { createBenchmarksRepo, type BenchmarksRepo } from './repos/benchmarks.repo.ts';
import { createCasesRepo, type CasesRepo } from './repos/cases.repo.ts';
import { createAssetsRepo, type AssetsRepo } from './repos/assets.repo.ts';
import { createModelsRepo, type ModelsRepo } from './repos/models.repo.ts';
import { createRunsRepo, type RunsRepo } from './repos/runs.repo.ts';
import { createResponsesRepo, type ResponsesRepo } from './repos/responses.repo.ts';
import { createScoresRepo, type ScoresRepo } from './repos/scores.repo.ts';
import { createReviewsRepo, type ReviewsRepo } from './repos/reviews.repo.ts';
import { createSettingsRepo, type SettingsRepo } from './repos/settings.repo.ts';
import { createScoringCacheRepo, type ScoringCacheRepo } from './repos/scoring-cache.repo.ts';
import { createDeletionsRepo, type DeletionsRepo } from './repos/deletions.repo.ts';
import { createUsageRepo, type UsageRepo } from './repos/usage.repo.ts';

export * from './tables.ts';
export { DB_NAME, SCHEMA, SCHEMA_VERSION, UPGRADES, NeuroEvalDB, openDatabase } from './schema.ts';
export type { OpenOptions, StoreDefinitions } from './schema.ts';
export { LARGE_WRITE_BYTES, approxBytes } from './write-meter.ts';
export type { StorageHooks } from './write-meter.ts';
export { QUOTA_MESSAGE, toStorageError } from './storage-errors.ts';
export { isQuotaError } from '../errors.ts';
export type { Page } from './repos/context.ts';
export type { BenchmarksRepo, CasesRepo, AssetsRepo, ModelsRepo, RunsRepo, ResponsesRepo, ScoresRepo, ReviewsRepo, SettingsRepo };
export type { CaseFacet } from './repos/cases.repo.ts';
export type { DeletedRunResults, ImportedRunRows } from './repos/runs.repo.ts';
export type { ReviewChange } from './repos/reviews.repo.ts';
export type { DeletionCounts, DeletionKind, DeletionPlan, DeletionsRepo } from './repos/deletions.repo.ts';
export type { BenchmarkUsage, StorageUse, UsageRepo } from './repos/usage.repo.ts';

export interface Repositories {
  benchmarks: BenchmarksRepo;
  cases: CasesRepo;
  assets: AssetsRepo;
  models: ModelsRepo;
  runs: RunsRepo;
  responses: ResponsesRepo;
  scores: ScoresRepo;
  reviews: ReviewsRepo;
  settings: SettingsRepo;
  scoringCache: ScoringCacheRepo;
  /** Deleting a benchmark, run, answer or review with everything that belongs to it. */
  deletions: DeletionsRepo;
  /** What each benchmark takes in storage. */
  usage: UsageRepo;
}

interface RepositoryOptions {
  /** Clock for `updatedAt` stamps; defaults to `Date.now`. */
  now?: () => number;
}

/**
 * Builds the repositories over an opened database. `hooks.onLargeWrite` fires
 * once for this repository set, when bulk writes reach `LARGE_WRITE_BYTES`.
 */
export function createRepositories(db: NeuroEvalDB, hooks: StorageHooks = {}, options: RepositoryOptions = {}): Repositories {
  const ctx: RepoContext = { db, meter: new WriteMeter(hooks), now: options.now ?? Date.now };
  return {
    benchmarks: createBenchmarksRepo(ctx),
    cases: createCasesRepo(ctx),
    assets: createAssetsRepo(ctx),
    models: createModelsRepo(ctx),
    runs: createRunsRepo(ctx),
    responses: createResponsesRepo(ctx),
    scores: createScoresRepo(ctx),
    reviews: createReviewsRepo(ctx),
    settings: createSettingsRepo(ctx),
    scoringCache: createScoringCacheRepo(ctx),
    deletions: createDeletionsRepo(ctx),
    usage: createUsageRepo(ctx),
  };
}
