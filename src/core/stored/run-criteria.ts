/** A run's criteria view (src/core/results/run-criteria.ts) from what storage holds. */
import type { Repositories } from '../db/index.ts';
import { needsSafety, runCriteriaView, runSafety, type RunCriteriaView } from '../results/run-criteria.ts';
import type { ResponseRecord } from '../model/answer.ts';

/** Reads what {@link runCriteriaView} needs for one run from storage. */
export async function loadRunCriteria(repos: Repositories, runId: string): Promise<RunCriteriaView> {
  const run = await repos.runs.require(runId);
  const set = run.config?.criteria?.criteria.length ? await repos.scores.latestSet(runId) : undefined;
  if (!set) return runCriteriaView(run, undefined, [], new Map());
  const safety = needsSafety(run);
  const [rows, cases, responses] = await Promise.all([repos.scores.listBySet(set.id), repos.cases.listByBenchmark(run.benchmarkId), safety ? repos.responses.listByRun(runId) : []]);
  const byId = new Map(cases.map((c) => [c.id, c]));
  return runCriteriaView(run, set, rows, byId, safety ? runSafety(set, rows, new Map(responses.map((r) => [r.id, r as ResponseRecord])), byId) : undefined);
}
