/**
 * Shards: `--shard i/n` runs a deterministic slice of a run's plan, so n
 * machines (or processes) can answer one run between them. An item belongs to
 * shard `(k mod n) + 1`, where k is the index of its case among the plan's
 * cases (benchmark order): every question, model, variant and sample of one
 * case (a multi-turn dialogue, an image pair) stays in one shard. The same
 * benchmark and options give the same slices on any machine.
 */
import { InvalidInputError } from '../../core/errors.ts';
import type { PlannedItem, RunPlan } from '../../core/runner/types.ts';

export interface Shard {
  /** 1-based. */
  readonly index: number;
  readonly count: number;
}

/** Reads `i/n` (1 ≤ i ≤ n). */
export function parseShard(value: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !Number.isSafeInteger(index) || !Number.isSafeInteger(count) || count < 1 || index < 1 || index > count) {
    throw new InvalidInputError(`--shard must be i/n with 1 ≤ i ≤ n, e.g. 1/4; got "${value}".`, { field: '--shard' });
  }
  return { index, count };
}

/** The shard (1-based) of each case id of a plan. */
export function shardOfCases(plan: Pick<RunPlan, 'cases'>, count: number): Map<string, number> {
  return new Map(plan.cases.map((c, k) => [c.id, (k % count) + 1]));
}

/** The items of one shard, in plan order. */
export function shardItems(plan: RunPlan, shard: Shard): PlannedItem[] {
  const of = shardOfCases(plan, shard.count);
  return plan.items.filter((item) => of.get(item.caseId) === shard.index);
}

/** The plan one shard runs: the same plan with only its items and cases. */
export function shardPlan(plan: RunPlan, shard: Shard | null): RunPlan {
  if (!shard) return plan;
  const items = shardItems(plan, shard);
  const caseIds = new Set(items.map((i) => i.caseId));
  const cases = plan.cases.filter((c) => caseIds.has(c.id));
  const questions = cases.reduce((n, c) => n + c.questions.length, 0);
  return { ...plan, items, cases, counts: { ...plan.counts, cases: cases.length, questions, items: items.length } };
}
