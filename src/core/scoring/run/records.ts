/** A run's scores as stored: score sets (one per version), one row per answer per set, and the scoring cache. */
import type { Timestamp } from '../../model/answer.ts';
import type { CachedValue } from './scoring-cache.ts';
import type { ItemScore, RunScoreSummary, ScoringConfig } from './types.ts';

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

/** One judge reply or encoder vector kept for re-scoring (scoring/run/scoring-cache.ts): `key` hashes model, request and input. */
export interface ScoringCacheRecord {
  readonly key: string;
  readonly value: CachedValue;
  readonly createdAt: Timestamp;
}

/**
 * What paired tests and breakdowns read of an answer: its identity and metric
 * values. A stored score row is one; so is a row rebuilt from a results
 * digest (`src/core/results/digest.ts`), which carries only the metric asked for.
 */
export type ScoredItem = Pick<ScoreRecord, 'caseId' | 'questionId' | 'sample' | 'modelId' | 'variant' | 'protocolId'> & {
  readonly metrics: Readonly<Record<string, { readonly value: number | null } | undefined>>;
};
