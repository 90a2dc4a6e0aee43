/**
 * Pre-registered acceptance criteria as data: what a model must reach for a
 * pilot to start, the lock that ties a set to a run, and the edits made after
 * it. Parsing and hashing live in src/core/criteria; judging a run against a
 * set in src/core/results.
 */
import type { Timestamp } from './answer.ts';

/** Which figure of the metric is compared: the 95 % interval's lower bound, the point estimate, or the upper bound. */
export type CriterionStatistic = 'lower' | 'mean' | 'upper';
export type Comparator = '>=' | '<=';

export interface AcceptanceCriterion {
  /** Stable within its set (`c1`, `c2`, …): evidence and deviations refer to it. */
  readonly id: string;
  /** A metric key of the scored run (`neurovlm.diagnosis_name`, `json_valid`, `pass@1`, …). */
  readonly metric: string;
  readonly statistic: CriterionStatistic;
  readonly comparator: Comparator;
  /** In the metric's own units: a share for 0/1 metrics (0.7 = 70 %). */
  readonly threshold: number;
  /**
   * `all`: the whole run. Otherwise a breakdown dimension (`diseaseGroup`,
   * `modality`, `dicom.fieldStrength`, …): the criterion must hold in every
   * group of it, or only in the group `group` names.
   */
  readonly subgroup: string;
  readonly group?: string;
}

export interface CriteriaSet {
  readonly version: 1;
  readonly criteria: readonly AcceptanceCriterion[];
}

/** A set as locked with a run (in its configuration) and its hash (in its provenance). */
export interface CriteriaLock {
  readonly sha256: string;
  readonly lockedAt: Timestamp;
}

/** An edit after the lock: the set it replaced and the set now in force, with the reason given. */
export interface CriteriaDeviation {
  readonly at: Timestamp;
  readonly fromSha256: string;
  readonly toSha256: string;
  readonly reason: string;
  /** The set before this edit, so the pre-registered one can always be shown. */
  readonly previous: CriteriaSet;
}
