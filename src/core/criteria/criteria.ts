/**
 * Pre-registered acceptance criteria: what a model must reach for a pilot to
 * start, written before any answer is seen. A set is locked with the run
 * that will be judged by it: its SHA-256 (of a canonical JSON form, so the
 * same criteria always hash alike) goes into the run's provenance, and a
 * later edit is kept as a deviation beside the original, never in its place.
 */
import { InvalidInputError } from '../errors.ts';
import { sha256Hex } from '../hash/sha256.ts';
import type { AcceptanceCriterion, Comparator, CriteriaSet, CriterionStatistic } from '../model/criteria.ts';

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
