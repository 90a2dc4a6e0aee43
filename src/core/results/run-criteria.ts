/**
 * A run's criteria as the results page and the report show them: the set in
 * force, what was pre-registered (hash and whether the set still equals it),
 * each deviation, and go / no-go per criterion and model on the run's latest
 * score set.
 */
import type { BenchCase } from '../bundle/types.ts';
import type { RunRecord } from '../runner/records.ts';
import type { ScoreRecord, ScoreSetRecord, ScoredItem } from '../scoring/run/records.ts';
import type { BreakdownCase } from './leaderboard.ts';
import { joinAnswers } from './safety-input.ts';
import { safetyReport, type SafetyReport } from './safety.ts';
import type { ResponseRecord } from '../model/answer.ts';
import { criteriaSha256 } from '../criteria/criteria.ts';
import { type CriteriaDeviation, type CriteriaSet } from '../model/criteria.ts';
import { evaluateCriteria, isSafetyMetric, type CriterionOutcome } from './criteria-outcomes.ts';

export interface RunCriteriaView {
  readonly runId: string;
  /** The set in force; null when the run has none. */
  readonly set: CriteriaSet | null;
  readonly sha256: string | null;
  /** The hash locked into the provenance when the run was created; null when nothing was pre-registered. */
  readonly preRegistered: string | null;
  readonly deviations: readonly CriteriaDeviation[];
  /** The score set the outcomes were decided on; null when the run is not scored yet. */
  readonly scoreSet: { readonly id: string; readonly version: number } | null;
  readonly outcomes: readonly CriterionOutcome[];
}

/** Whether a run's criteria name a safety-view figure, so deciding them needs its stored answers ({@link runSafety}). */
export function needsSafety(run: RunRecord): boolean {
  return (run.config?.criteria?.criteria ?? []).some((c) => isSafetyMetric(c.metric));
}

/**
 * The safety report of one run's score set, with its scoring seed: what a
 * criterion on a safety figure is decided on (the same figures the results
 * page's Safety section shows when the benchmark has this run alone).
 */
export function runSafety(set: ScoreSetRecord, items: readonly ScoreRecord[], responses: ReadonlyMap<string, ResponseRecord>, cases: ReadonlyMap<string, BenchCase>): SafetyReport {
  const joined = joinAnswers({ items, responses, cases, reviews: [] });
  return safetyReport(joined, { seed: set.config.seed, resamples: set.config.resamples });
}

/** Decides a run's criteria on a score set's rows and the benchmark's cases (no storage: the report and tests call this); `safety` for criteria on safety figures. */
export function runCriteriaView(run: RunRecord, set: ScoreSetRecord | undefined, items: readonly ScoredItem[], cases: ReadonlyMap<string, BreakdownCase>, safety?: SafetyReport): RunCriteriaView {
  const criteria = run.config?.criteria && run.config.criteria.criteria.length ? run.config.criteria : null;
  return {
    runId: run.id,
    set: criteria,
    sha256: criteria ? criteriaSha256(criteria) : null,
    preRegistered: run.provenance.criteria?.sha256 ?? null,
    deviations: run.criteriaDeviations ?? [],
    scoreSet: set ? { id: set.id, version: set.version } : null,
    outcomes: criteria && set ? evaluateCriteria(criteria, { runId: run.id, arms: set.summary.arms, scored: [{ run, items }], cases, ...(safety ? { safety } : {}) }) : [],
  };
}
