/**
 * Pre-registered acceptance criteria: what a model must reach for a pilot to
 * start, written before any answer is seen. A set is locked with the run
 * that will be judged by it: its SHA-256 (of a canonical JSON form, so the
 * same criteria always hash alike) goes into the run's provenance, and a
 * later edit is kept as a deviation beside the original, never in its place.
 */
import { InvalidInputError } from '../errors.ts';
import { sha256Hex } from '../hash/sha256.ts';
import type { Timestamp } from '../db/types.ts';

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

const STATISTICS: readonly CriterionStatistic[] = ['lower', 'mean', 'upper'];
const COMPARATORS: readonly Comparator[] = ['>=', '<='];

/** JSON with keys sorted at every level: equal sets give equal text, whatever order they were written in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function criteriaSha256(set: CriteriaSet): string {
  return sha256Hex(canonical(set));
}

/**
 * Checks a set read from a file, a stored run or the form; throws an
 * {@link InvalidInputError} naming the field (`criteria[2].threshold`).
 */
export function parseCriteriaSet(value: unknown, file?: string): CriteriaSet {
  const fail = (message: string, field: string): never => {
    throw new InvalidInputError(message, { ...(file ? { file } : {}), field });
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('Acceptance criteria must be an object with "version": 1 and a "criteria" list.', 'version');
  const o = value as Record<string, unknown>;
  if (o.version !== 1) fail(`Acceptance criteria version must be 1, not ${JSON.stringify(o.version)}.`, 'version');
  if (!Array.isArray(o.criteria)) fail('"criteria" must be a list.', 'criteria');
  const seen = new Set<string>();
  const criteria = (o.criteria as unknown[]).map((raw, i): AcceptanceCriterion => {
    const at = `criteria[${i}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return fail(`Criterion ${i + 1} is not an object.`, at);
    const c = raw as Record<string, unknown>;
    const text = (k: string): string => (typeof c[k] === 'string' && (c[k] as string).trim() !== '' ? (c[k] as string).trim() : fail(`Criterion ${i + 1} needs "${k}".`, `${at}.${k}`));
    const id = text('id');
    if (seen.has(id)) fail(`Two criteria have the id "${id}".`, `${at}.id`);
    seen.add(id);
    const statistic = text('statistic') as CriterionStatistic;
    if (!STATISTICS.includes(statistic)) fail(`Criterion ${id}: "statistic" must be lower, mean or upper, not "${statistic}".`, `${at}.statistic`);
    const comparator = text('comparator') as Comparator;
    if (!COMPARATORS.includes(comparator)) fail(`Criterion ${id}: "comparator" must be >= or <=, not "${comparator}".`, `${at}.comparator`);
    const threshold = c.threshold;
    if (typeof threshold !== 'number' || !Number.isFinite(threshold)) fail(`Criterion ${id}: "threshold" must be a number.`, `${at}.threshold`);
    const group = c.group === undefined || c.group === null || c.group === '' ? undefined : typeof c.group === 'string' ? c.group : fail(`Criterion ${id}: "group" must be text.`, `${at}.group`);
    const subgroup = text('subgroup');
    if (subgroup === 'all' && group !== undefined) fail(`Criterion ${id}: a group is named but the subgroup is "all".`, `${at}.group`);
    return { id, metric: text('metric'), statistic, comparator, threshold: threshold as number, subgroup, ...(group !== undefined ? { group } : {}) };
  });
  return { version: 1, criteria };
}
