/**
 * A benchmark's results read from storage: its runs with their current score
 * sets and reviews, and (for exports and the report) every score row and case.
 * The summaries made of them are src/core/results/overview.ts.
 */
import type { BenchCase } from '../bundle/types.ts';
import type { Repositories } from '../db/index.ts';
import { readerName } from '../readers/identity.ts';
import { answerTableRow } from '../results/answers.ts';
import { modelNamesOf } from '../results/model-names.ts';
import { signatureOf, type LoadedResults, type ResultsRuns, type RunOverview } from '../results/overview.ts';
import type { ScoredRun } from '../results/leaderboard.ts';
import { encoderProvenance } from '../scoring/metrics/bertscore-layers.ts';

/** The signature read from storage (runs, their current score sets, their reviews). */
export async function resultsSignature(repos: Repositories, benchmarkId: string): Promise<string> {
  const runs = await repos.runs.listByBenchmark(benchmarkId);
  const withSets = await Promise.all(runs.map(async (r) => ({ id: r.id, updatedAt: r.updatedAt, setId: (await repos.scores.latestSet(r.id))?.id ?? null })));
  const reviews = (await Promise.all(runs.map((r) => repos.reviews.listByRun(r.id)))).flat();
  return signatureOf(withSets, reviews);
}

export async function readResultsRuns(repos: Repositories, benchmarkId: string): Promise<ResultsRuns> {
  const [benchmark, runs] = await Promise.all([repos.benchmarks.require(benchmarkId), repos.runs.listByBenchmark(benchmarkId)]);
  // Each run's reads at once, every run at once: opening the page waits on this, and one read after another was a round trip each.
  const read = await Promise.all(runs.map(async (run) => {
    const [set, runReviews, answers] = await Promise.all([repos.scores.latestSet(run.id), repos.reviews.listByRun(run.id), repos.responses.countByRun(run.id)]);
    return { run, set, runReviews, answers };
  }));
  const signed = read.map(({ run, set }) => ({ id: run.id, updatedAt: run.updatedAt, setId: set?.id ?? null }));
  const reviews = read.flatMap((r) => r.runReviews);
  const overviews: RunOverview[] = read.map(({ run, set, runReviews, answers }) => ({
    id: run.id, name: run.name, status: run.status, createdAt: run.createdAt, answers,
    scoreVersion: set?.version ?? null, scoredAt: set?.createdAt ?? null, judge: set?.config.judge ?? null, encoder: set?.config.encoder ? encoderProvenance(set.config.encoder, set.config.bertscore) : null,
    newReviews: set ? runReviews.filter((r) => r.createdAt > (set.config.reviewsUpTo ?? 0)).length : runReviews.length,
    reader: readerName(run),
  }));
  const scored: ScoredRun[] = read.flatMap(({ run, set }) => (set ? [{ run: { id: run.id, name: run.name, benchmarkId: run.benchmarkId, status: run.status, createdAt: run.createdAt, modelNames: modelNamesOf(run.provenance) }, set, items: [] }] : []));
  return { benchmark, runs: overviews, scored, reviews, signature: signatureOf(signed, reviews) };
}

/** Everything, every score row included: what exports and the report read. */
export async function loadResults(repos: Repositories, benchmarkId: string): Promise<LoadedResults> {
  const base = await readResultsRuns(repos, benchmarkId);
  const scored = await Promise.all(base.scored.map(async (s) => ({ ...s, items: await repos.scores.listBySet(s.set.id) })));
  const cases = new Map((await repos.cases.listByBenchmark(benchmarkId)).map(({ benchmarkId: _b, ...c }) => [c.id, c as BenchCase]));
  const answers = scored.flatMap((s) => s.items.map(answerTableRow));
  return { ...base, scored, cases, answers };
}
