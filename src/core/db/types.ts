/**
 * Record shapes stored in the NeuroEval IndexedDB database, one interface per
 * table. Timestamps are milliseconds since the Unix epoch (`Date.now()`), which
 * index and sort cheaply and survive structured cloning unchanged.
 *
 * Fields that appear in an index (see `schema.ts`) must hold valid IndexedDB
 * keys (string, number, Date, array of those); a record whose indexed field is
 * `undefined` or `null` is simply left out of that index.
 */

import type { CriteriaDeviation } from '../criteria/criteria.ts';
import type { CachedValue } from '../scoring/run/scoring-cache.ts';
import type { BenchCase, BundleManifest } from '../bundle/types.ts';
import type { PromptSize } from '../engines/engine.ts';
import type { RunConfig } from '../runner/config.ts';
import type { Provenance } from '../runner/provenance.ts';
import type { ItemScore, RunScoreSummary, ScoringConfig } from '../scoring/run/types.ts';

/** Milliseconds since the Unix epoch. */
export type Timestamp = number;

/** Names of the tables, in declaration order. */
export type StoreName =
  | 'benchmarks'
  | 'cases'
  | 'assets'
  | 'models'
  | 'runs'
  | 'responses'
  | 'scores'
  | 'scoreSets'
  | 'resultDigests'
  | 'scoringCache'
  | 'reviews'
  | 'settings';

export interface BenchmarkRecord {
  /** Stable id from the bundle manifest. */
  id: string;
  name: string;
  version: string;
  license: string;
  description: string;
  /** Hash over the imported content (see bundle/content-hash.ts), so a re-import of identical data is detectable. */
  contentHash: string;
  /** Importer kind that produced this benchmark (e.g. `'neurovlm-bench'`, `'neuroeval-bundle'`). */
  source: string;
  /** True for generated demo/self-test data that holds no real patient images. */
  synthetic: boolean;
  caseCount: number;
  createdAt: Timestamp;
  /** The full bundle manifest, so the benchmark can be exported as it was imported. */
  manifest: BundleManifest;
  /** Extra bundle files (prompt text), stored as assets. */
  files: { path: string; sha256: string }[];
  /**
   * Salt of the pseudonymous DICOM keys in the cases' meta (bundle/dicom-meta.ts),
   * when the import made any. Kept here only: no export carries it, so the keys
   * cannot be recomputed from a hospital's identifiers outside this browser.
   */
  keySalt?: string;
}

/**
 * A case as its bundle defines it. Every image carries `sha256`, the key of
 * its asset; the bundle `path` is kept for display only.
 */
export type CasePayload = BenchCase;

/** A case as stored: its payload plus the benchmark it belongs to. */
export type CaseRecord = CasePayload & { benchmarkId: string };

/** Primary key of `cases`: `[benchmarkId, id]`. */
export type CaseKey = [benchmarkId: string, id: string];

/** A content-addressed image: the key is the SHA-256 of the bytes. */
export interface AssetRecord {
  /** Lower-case hex SHA-256 of the blob's bytes. */
  sha256: string;
  blob: Blob;
  mime: string;
  width?: number;
  height?: number;
  /** Size of `blob` in bytes, kept so totals need not load blobs. */
  bytes: number;
  createdAt: Timestamp;
}

interface ModelFile {
  name: string;
  bytes: number;
  sha256: string;
}

/** How a model came onto this device: the on-prem mirror ('catalogue'), its public host, a folder import, or bundled. */
type ModelSource = 'catalogue' | 'public host' | 'imported' | 'self-test';

export interface ModelRecord {
  id: string;
  /** Inference runtime that loads this model (e.g. `'webllm'`, `'transformers'`). */
  runtime: string;
  /** The runtime's own identifier for the model. */
  modelId: string;
  label: string;
  sizeBytes: number;
  files: ModelFile[];
  source: ModelSource;
  addedAt: Timestamp;
}

export type RunStatus = 'planned' | 'running' | 'paused' | 'done' | 'failed' | 'cancelled';

/** Counts fixed when a run is planned; progress is counted from `responses`. */
export interface RunPlanSummary {
  cases: number;
  models: number;
  variants: number;
  samples: number;
  /** Total generations planned: cases × models × variants × samples, after filters. */
  items: number;
}

export interface RunRecord {
  id: string;
  benchmarkId: string;
  name: string;
  status: RunStatus;
  /** Why the run failed, when `status` is `'failed'`. */
  error?: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /**
   * Everything needed to (re)start the run: spec, protocol, templates, engines
   * (schema v3; before, it sat in `provenance.config`). Holds no secret: an
   * endpoint is named by its id, its API key stays in the endpoint settings.
   * `null` only for a run stored without one (hand-made, or imported from an
   * export that had none): such a run can be scored but not started.
   */
  config: RunConfig | null;
  /** What produced the answers: app version, device, runtimes, models, protocol, sampling (runner/provenance.ts). */
  provenance: Provenance;
  plan: RunPlanSummary;
  /** Edits of the acceptance criteria after the run was created, oldest first (criteria/criteria.ts). */
  criteriaDeviations?: readonly CriteriaDeviation[];
}

/** Token and speed figures a runtime reports; `null` when it does not report one. */
export interface ResponseUsage {
  promptTokens: number | null;
  completionTokens: number | null;
  ttftMs: number | null;
  prefillTps: number | null;
  decodeTps: number | null;
  /** What the prompt was made of (text and image tokens, tiles per image, tokens reused from a shared prefix), where the engine said. */
  prompt?: PromptSize;
  /** Answers decoded together with this one, when more than one. */
  batch?: number;
}

/** Why generation stopped; the named values are the ones the runtimes report. */
export type FinishReason = 'stop' | 'length' | 'abort' | 'error' | (string & {});

/** Which planned item an answer (or its scores, or a progress report) is about: the typed fields, never parsed from the key. */
export interface ItemIdentity {
  readonly itemKey: string;
  readonly caseId: string;
  readonly questionId: string;
  readonly modelId: string;
  readonly variant: string;
  readonly sample: number;
}

export interface ResponseRecord {
  /** Deterministic key derived from the run and the item, so a resumed run overwrites rather than duplicates. */
  id: string;
  runId: string;
  /**
   * Identifies the planned item (case × question × model × variant × sample)
   * within the run; built by `itemKeyOf` (runner/plan.ts) and only ever
   * compared whole, never read apart: use `caseId` and `questionId`.
   */
  itemKey: string;
  /** The case answered (schema v3). */
  caseId: string;
  /** The question of that case answered (schema v3). */
  questionId: string;
  /** Hash over model + prompt + sampling settings, for reusing answers across runs. */
  cacheKey: string;
  modelId: string;
  variant: string;
  sample: number;
  rawText: string;
  parsed: unknown;
  parseError: string | null;
  usage: ResponseUsage;
  latencyMs: number;
  finishReason: FinishReason;
  createdAt: Timestamp;
}

/**
 * One version of a run's scores: what it was computed with and the per-arm
 * summary. A re-score adds version n + 1 and keeps every earlier one; the
 * newest is the run's current score.
 */
export interface ScoreSetRecord {
  /** `${runId}/v${version}`. */
  id: string;
  runId: string;
  /** 1, 2, … per run. */
  version: number;
  createdAt: Timestamp;
  durationMs: number;
  config: ScoringConfig;
  summary: RunScoreSummary;
  /**
   * Set when an answer or review this set counted was deleted: its figures no
   * longer match the stored answers, and the run needs a re-score. Absent on
   * sets that still match (and on every set stored before deletions existed).
   */
  outdated?: { reason: string; at: Timestamp } | null;
}

/** The scores of one answer within one score set (schema v2; v1 kept one row per metric). */
export interface ScoreRecord extends ItemScore {
  /** `${scoreSetId}|${responseId}`. */
  id: string;
  scoreSetId: string;
  runId: string;
}

/** The reviewable fields of a review, as kept in its audit trail. */
export interface ReviewState {
  verdict: string;
  errorClasses: string[];
  /** Quality of the model's stated reasoning, e.g. 1–5; `null` when not rated. */
  rationaleRating: number | null;
  /**
   * Rubric-protocol answers: the reviewer's met / not-met mark per rubric item
   * id; they replace the judge's marks when the run is re-scored. Absent on
   * other answers (and on reviews written before this field existed).
   */
  rubricMet?: Readonly<Record<string, boolean>> | null;
  reason: string;
  reviewerId: string;
  createdAt: Timestamp;
}

export interface ReviewRecord extends ReviewState {
  id: string;
  responseId: string;
  runId: string;
  /** Earlier states of this review, oldest first; never rewritten, only appended to. */
  previous: ReviewState[];
}

export interface SettingRecord {
  key: string;
  value: unknown;
  updatedAt: Timestamp;
}

/** One judge reply or encoder vector kept for re-scoring (scoring/run/scoring-cache.ts): `key` hashes model, request and input. */
export interface ScoringCacheRecord {
  readonly key: string;
  readonly value: CachedValue;
  readonly createdAt: Timestamp;
}
