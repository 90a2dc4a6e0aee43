/** A run as stored in the database's `runs` table: its plan, its configuration and what produced its answers. */
import type { CriteriaDeviation } from '../model/criteria.ts';
import type { RunStatus, Timestamp } from '../model/answer.ts';
import type { RunConfig } from './config.ts';
import type { Provenance } from './provenance.ts';

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
