/**
 * The single NeuroEval IndexedDB database: its versioned schema and how to
 * open it.
 *
 * Dexie store syntax: the first entry is the primary key, the rest are
 * indexes; `[a+b]` is a compound key, `&` unique, `*` multi-entry. Only
 * indexed fields are listed; records hold more. Dexie opens version N as
 * IndexedDB version N × 10.
 */
import Dexie, { type Table, type Transaction } from 'dexie';
import { StorageError, isQuotaError } from '../errors.ts';
import { withoutSecrets } from '../runner/secrets.ts';
import { legacyItemKeyParts, splitLegacyProvenance } from '../runner/legacy.ts';
import { isVersionError, newerVersionMessage } from './storage-errors.ts';
import type { ResultDigestRecord } from '../results/digest.ts';
import type { AssetRecord, BenchmarkRecord, CaseKey, CaseRecord } from '../bundle/records.ts';
import type { ModelRecord } from '../models/record.ts';
import type { ResponseRecord } from '../model/answer.ts';
import type { ReviewRecord } from '../model/review.ts';
import type { RunRecord } from '../runner/records.ts';
import type { ScoreRecord, ScoreSetRecord, ScoringCacheRecord } from '../scoring/run/records.ts';
import type { SettingRecord, StoreName } from './tables.ts';

/** Name of the IndexedDB database. */
export const DB_NAME = 'neuroeval';

/** Store definitions of one schema version, in Dexie syntax. */
export type StoreDefinitions = Readonly<Partial<Record<StoreName, string>>>;

/*
 * GUARD: a version's store definitions are frozen once released. To change a
 * primary key, add or drop an index, or add a table, add a NEW version
 * (SCHEMA[n + 1], with an upgrade function in UPGRADES if existing rows must
 * change) and a migration test in test/unit/core/db/migrations.test.ts that builds
 * version n by hand and opens it with the new code. Editing SCHEMA[1] in place
 * breaks every browser that already holds version 1 data, and the migration
 * test fails on purpose.
 */
export const SCHEMA: Readonly<Record<number, StoreDefinitions>> = {
  1: {
    benchmarks: 'id, name, createdAt',
    cases: '[benchmarkId+id], benchmarkId, [benchmarkId+split], [benchmarkId+taskFamily], [benchmarkId+diseaseGroup]',
    assets: 'sha256, createdAt',
    models: 'id, runtime, addedAt',
    runs: 'id, benchmarkId, status, createdAt',
    // [runId+itemKey] is not unique on purpose: retries may keep several rows per item.
    responses: 'id, runId, [runId+itemKey], cacheKey, createdAt',
    scores: 'id, runId, responseId, [runId+metric]',
    reviews: 'id, responseId, reviewerId, runId',
    settings: 'key',
  },
  // v2: scores become one row per answer per score set (version); scoreSets hold each version's config and summary.
  2: {
    benchmarks: 'id, name, createdAt',
    cases: '[benchmarkId+id], benchmarkId, [benchmarkId+split], [benchmarkId+taskFamily], [benchmarkId+diseaseGroup]',
    assets: 'sha256, createdAt',
    models: 'id, runtime, addedAt',
    runs: 'id, benchmarkId, status, createdAt',
    responses: 'id, runId, [runId+itemKey], cacheKey, createdAt',
    scores: 'id, runId, responseId, scoreSetId, [scoreSetId+caseId]',
    scoreSets: 'id, runId, [runId+version], createdAt',
    reviews: 'id, responseId, reviewerId, runId',
    settings: 'key',
  },
  // v3: runs keep `config` as a field of their own (no longer inside provenance, and without secrets);
  // responses carry `caseId` / `questionId`, indexed per run so a case's answers are found without reading item keys.
  3: {
    benchmarks: 'id, name, createdAt',
    cases: '[benchmarkId+id], benchmarkId, [benchmarkId+split], [benchmarkId+taskFamily], [benchmarkId+diseaseGroup]',
    assets: 'sha256, createdAt',
    models: 'id, runtime, addedAt',
    runs: 'id, benchmarkId, status, createdAt',
    responses: 'id, runId, [runId+itemKey], [runId+caseId], cacheKey, createdAt',
    scores: 'id, runId, responseId, scoreSetId, [scoreSetId+caseId]',
    scoreSets: 'id, runId, [runId+version], createdAt',
    reviews: 'id, responseId, reviewerId, runId',
    settings: 'key',
  },
  // v4: resultDigests hold what the results page needs from each score set (results/digest.ts), written with the set.
  // No data migration: a set stored before v4 gets its digest the first time its results are opened.
  4: {
    benchmarks: 'id, name, createdAt',
    cases: '[benchmarkId+id], benchmarkId, [benchmarkId+split], [benchmarkId+taskFamily], [benchmarkId+diseaseGroup]',
    assets: 'sha256, createdAt',
    models: 'id, runtime, addedAt',
    runs: 'id, benchmarkId, status, createdAt',
    responses: 'id, runId, [runId+itemKey], [runId+caseId], cacheKey, createdAt',
    scores: 'id, runId, responseId, scoreSetId, [scoreSetId+caseId]',
    scoreSets: 'id, runId, [runId+version], createdAt',
    reviews: 'id, responseId, reviewerId, runId',
    settings: 'key',
    resultDigests: 'id, scoreSetId, runId',
  },
  // v5: scoringCache keeps judge replies and encoder vectors by model, request and input (scoring/run/scoring-cache.ts),
  // so re-scoring asks a model only what it has not answered before. A new table: no data migration.
  5: {
    benchmarks: 'id, name, createdAt',
    cases: '[benchmarkId+id], benchmarkId, [benchmarkId+split], [benchmarkId+taskFamily], [benchmarkId+diseaseGroup]',
    assets: 'sha256, createdAt',
    models: 'id, runtime, addedAt',
    runs: 'id, benchmarkId, status, createdAt',
    responses: 'id, runId, [runId+itemKey], [runId+caseId], cacheKey, createdAt',
    scores: 'id, runId, responseId, scoreSetId, [scoreSetId+caseId]',
    scoreSets: 'id, runId, [runId+version], createdAt',
    reviews: 'id, responseId, reviewerId, runId',
    settings: 'key',
    resultDigests: 'id, scoreSetId, runId',
    scoringCache: 'key, createdAt',
  },
  // v6: the stores are v5's; a score set's arms name their decode speed `decodeTps`, as answers name theirs
  // (it was `decodeTokensPerS`): one name for one figure. Data migration only.
  6: {
    benchmarks: 'id, name, createdAt',
    cases: '[benchmarkId+id], benchmarkId, [benchmarkId+split], [benchmarkId+taskFamily], [benchmarkId+diseaseGroup]',
    assets: 'sha256, createdAt',
    models: 'id, runtime, addedAt',
    runs: 'id, benchmarkId, status, createdAt',
    responses: 'id, runId, [runId+itemKey], [runId+caseId], cacheKey, createdAt',
    scores: 'id, runId, responseId, scoreSetId, [scoreSetId+caseId]',
    scoreSets: 'id, runId, [runId+version], createdAt',
    reviews: 'id, responseId, reviewerId, runId',
    settings: 'key',
    resultDigests: 'id, scoreSetId, runId',
    scoringCache: 'key, createdAt',
  },
};

/**
 * Data migrations, keyed by the version they upgrade TO. Dexie runs each one
 * inside the upgrade transaction after that version's stores exist.
 */
export const UPGRADES: Readonly<Record<number, (tx: Transaction) => Promise<void>>> = {
  2: upgradeScoresToSets,
  3: upgradeRunsAndResponses,
  6: upgradeArmSpeedName,
};

/** v5 → v6. Each score set's arms: `decodeTokensPerS` becomes `decodeTps`, the name answers' usage gives the same figure. */
async function upgradeArmSpeedName(tx: Transaction): Promise<void> {
  await tx.table('scoreSets').toCollection().modify((set: { summary?: { arms?: unknown } }) => {
    const arms = set.summary?.arms;
    if (!Array.isArray(arms)) return;
    for (const arm of arms) {
      if (!isObject(arm) || !('decodeTokensPerS' in arm)) continue;
      if (typeof arm.decodeTokensPerS === 'number') arm.decodeTps = arm.decodeTokensPerS;
      delete arm.decodeTokensPerS;
    }
  });
}

/**
 * v2 → v3. Runs: the configuration moves out of `provenance.config` into
 * `config` (`null` when there was none), an OpenAI-compatible engine's
 * `apiKey` is dropped and the endpoint is named by `endpointId` instead, and
 * no API key is left anywhere in the record. Responses: `caseId` and
 * `questionId` are derived once from the item key; this migration (through
 * runner/legacy.ts) is the only place allowed to read an old item key apart.
 */
async function upgradeRunsAndResponses(tx: Transaction): Promise<void> {
  await tx.table('runs').toCollection().modify((run: Record<string, unknown>, ref: { value: Record<string, unknown> }) => {
    const { config, provenance } = splitLegacyProvenance(run.provenance);
    const rest = withoutSecrets(run);
    ref.value = { ...rest, config: isObject(rest.config) ? rest.config : config, provenance };
  });
  await tx.table('responses').toCollection().modify((r: Record<string, unknown>) => {
    if (typeof r.caseId === 'string' && typeof r.questionId === 'string') return;
    const { caseId, questionId } = legacyItemKeyParts({
      itemKey: String(r.itemKey ?? ''), modelId: String(r.modelId ?? ''), variant: String(r.variant ?? ''), sample: Number(r.sample ?? 0),
    });
    r.caseId = caseId;
    r.questionId = questionId;
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** v1 score rows (one per metric) of each run become version 1 of that run's score sets. */
async function upgradeScoresToSets(tx: Transaction): Promise<void> {
  const scores = tx.table('scores');
  const old = (await scores.toArray()) as LegacyScoreRow[];
  if (old.length === 0) return;
  const byRun = new Map<string, LegacyScoreRow[]>();
  for (const row of old) byRun.set(row.runId, [...(byRun.get(row.runId) ?? []), row]);
  await scores.clear();
  for (const [runId, rows] of byRun) {
    const set: ScoreSetRecord = {
      id: `${runId}/v1`, runId, version: 1, createdAt: Math.max(...rows.map((r) => r.createdAt)), durationMs: 0,
      config: { scorerVersion: `legacy-${rows[0]!.version}`, seed: 0, resamples: 0, judge: null, judgeRubricVersion: null, encoder: null, taxonomy: false, taxonomyVersion: '', reviewsUpTo: null },
      summary: { arms: [], calibrationShift: [], items: 0, failed: 0, judgeCalls: 0, judgeReused: 0 },
    };
    const items = new Map<string, ScoreRecord>();
    for (const r of rows) {
      const item = items.get(r.responseId) ?? {
        id: `${set.id}|${r.responseId}`, scoreSetId: set.id, runId, responseId: r.responseId, itemKey: '', caseId: '', questionId: '',
        modelId: '', variant: 'none', sample: 0, protocolId: 'unknown', primary: null, metrics: {}, confidence: null, verdicts: [], taxonomy: null,
        notes: ['Scored before score versions existed; re-score the run for summaries.'],
      };
      items.set(r.responseId, { ...item, metrics: { ...item.metrics, [r.metric]: { value: r.value, source: r.source, sourceId: r.sourceId } } });
    }
    await tx.table('scoreSets').add({ ...set, summary: { ...set.summary, items: items.size } });
    await scores.bulkAdd([...items.values()]);
  }
}

/** A score row as schema v1 stored it. */
interface LegacyScoreRow {
  id: string;
  runId: string;
  responseId: string;
  metric: string;
  value: number;
  source: 'rule' | 'judge' | 'reviewer';
  sourceId: string;
  version: string;
  createdAt: number;
}

/** The newest schema version this code knows. */
export const SCHEMA_VERSION: number = Math.max(...Object.keys(SCHEMA).map(Number));

/** The NeuroEval database with one typed table per store. */
export class NeuroEvalDB extends Dexie {
  // `declare`: Dexie creates these properties in `version().stores()`; a class
  // field initialiser would overwrite them.
  declare readonly benchmarks: Table<BenchmarkRecord, string>;
  declare readonly cases: Table<CaseRecord, CaseKey>;
  declare readonly assets: Table<AssetRecord, string>;
  declare readonly models: Table<ModelRecord, string>;
  declare readonly runs: Table<RunRecord, string>;
  declare readonly responses: Table<ResponseRecord, string>;
  declare readonly scores: Table<ScoreRecord, string>;
  declare readonly scoreSets: Table<ScoreSetRecord, string>;
  declare readonly resultDigests: Table<ResultDigestRecord, string>;
  declare readonly reviews: Table<ReviewRecord, string>;
  declare readonly settings: Table<SettingRecord, string>;
  declare readonly scoringCache: Table<ScoringCacheRecord, string>;
  /**
   * True once the browser itself closed this connection (the IndexedDB `close`
   * event, which another tab's upgrade never fires): storage errors then say
   * why (storage-errors.ts).
   */
  closedByBrowser = false;

  constructor(name: string = DB_NAME, deps: Pick<OpenOptions, 'indexedDB' | 'IDBKeyRange'> = {}) {
    // autoOpen off: Dexie would otherwise silently reopen after another tab's
    // upgrade, bypassing the newer-version check in openDatabase.
    super(name, { ...deps, autoOpen: false });
    for (const version of Object.keys(SCHEMA).map(Number).sort((a, b) => a - b)) {
      const declared = this.version(version).stores({ ...SCHEMA[version] });
      const upgrade = UPGRADES[version];
      if (upgrade) declared.upgrade(upgrade);
    }
  }
}

export interface OpenOptions {
  /** Database name; tests pass a fresh one each. Defaults to {@link DB_NAME}. */
  name?: string;
  /** IndexedDB implementation; defaults to the global one (fake-indexeddb in Node tests). */
  indexedDB?: IDBFactory;
  IDBKeyRange?: typeof IDBKeyRange;
}

/**
 * Opens (creating or upgrading as needed) the NeuroEval database.
 *
 * @throws StorageError STORAGE_VERSION if the stored database was written by a
 *   newer app version (the data is left untouched), STORAGE_FAILED for any
 *   other failure to open.
 */
export async function openDatabase(options: OpenOptions = {}): Promise<NeuroEvalDB> {
  const name = options.name ?? DB_NAME;
  const factory = options.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  if (!factory) {
    throw new StorageError(
      'STORAGE_FAILED',
      'This browser does not offer IndexedDB (some private-browsing modes disable it), so NeuroEval cannot store data.',
    );
  }
  // Dexie 4 no longer fails on a newer database: it reopens it at its current
  // version and may even add our missing indexes to it. Check first, by hand,
  // so a newer database is never touched.
  await refuseNewerDatabase(factory, name);

  const db = new NeuroEvalDB(name, { indexedDB: factory, ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}) });
  try {
    await db.open();
  } catch (err) {
    db.close();
    if (isVersionError(err)) throw new StorageError('STORAGE_VERSION', newerVersionMessage(await storedVersion(factory, name)), err);
    throw openFailure(err);
  }
  // Dexie also listens (it marks the database closed); this only records that the browser did it.
  db.backendDB()?.addEventListener('close', () => {
    db.closedByBrowser = true;
  });
  // Another tab may have upgraded the database between the check and the open.
  const native = db.backendDB()?.version ?? 0;
  if (isNewer(native)) {
    db.close();
    throw new StorageError('STORAGE_VERSION', newerVersionMessage(dexieVersion(native)));
  }
  return db;
}

async function refuseNewerDatabase(factory: IDBFactory, name: string): Promise<void> {
  let native: number;
  try {
    native = await storedNativeVersion(factory, name);
  } catch (err) {
    throw openFailure(err);
  }
  if (isNewer(native)) throw new StorageError('STORAGE_VERSION', newerVersionMessage(dexieVersion(native)));
}

/** STORAGE_FAILED for a database that would not open, saying when the disk may be full. */
function openFailure(err: unknown): StorageError {
  const detail = err instanceof Error ? err.message || err.name : String(err);
  // Chromium cannot open a database on a full disk (it must write to open one); the data is still there.
  const full = /backing store|IOError|QuotaExceeded|No space/i.test(detail) || isQuotaError(err);
  const hint = full ? ' The disk may be full: free space on it and reload the page. Stored data is not deleted by this.' : '';
  return new StorageError('STORAGE_FAILED', `Could not open the NeuroEval database: ${detail}.${hint}`, err);
}

// Dexie writes version N as native N*10; a native version that is not a multiple
// of 10 is Dexie patching an older version in place, which we can still open.
function isNewer(native: number): boolean {
  return native >= (SCHEMA_VERSION + 1) * 10;
}

function dexieVersion(native: number): number {
  return Math.floor(native / 10);
}

async function storedVersion(factory: IDBFactory, name: string): Promise<number> {
  return dexieVersion(await storedNativeVersion(factory, name).catch(() => 0));
}

/**
 * The IndexedDB version of database `name`, or 0 if it does not exist. Opening
 * without a version never upgrades an existing database; if the database does
 * not exist the creating transaction is aborted, so nothing is left behind.
 */
function storedNativeVersion(factory: IDBFactory, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const req = factory.open(name);
    req.onupgradeneeded = () => {
      settled = true;
      req.transaction?.abort();
      resolve(0);
    };
    req.onsuccess = () => {
      const version = req.result.version;
      req.result.close();
      if (!settled) resolve(version);
    };
    req.onerror = (event) => {
      event.preventDefault(); // the abort above is expected; keep it out of global error handlers
      if (!settled) reject(req.error ?? new Error('IndexedDB open failed'));
    };
  });
}
