/**
 * A benchmark's results read from the stored digests (digest.ts) instead of
 * every score row: what the results page opens with. The overview is
 * assembled by the same code as from the full rows (overview.ts), reviews
 * are matched to just the rows they point at, the answers table pages
 * through an index of the digests' columns (answer-index.ts), and paired
 * tests and breakdowns read each set's detail digest when first asked.
 * A set without a current digest (stored before digests existed, or whose
 * rows changed since) gets one built and stored on the way.
 */
import type { Repositories } from '../db/index.ts';
import type { ScoreRecord, ScoreSetRecord } from '../scoring/run/records.ts';
import { AnswerIndex } from '../results/answer-index.ts';
import { answerTableRow, type AnswerPage, type AnswerQuery } from '../results/answers.ts';
import { casesFromColumns, lightItems, type DetailDigest, type OpenDigest } from '../results/digest.ts';
import { dimensionsFor } from '../results/breakdowns.ts';
import { type BreakdownCase, type ScoredItems, type ScoredRun } from '../results/leaderboard.ts';
import { assembleOverview, type ResultsOverview, type ResultsRuns } from '../results/overview.ts';
import { readResultsRuns } from './overview.ts';

export interface StoredResults extends ResultsRuns {
  /** Each scored run's open digest, aligned with `scored`. */
  readonly digests: readonly OpenDigest[];
  /** The score rows the reviews point at, per scored run. */
  readonly reviewed: readonly { readonly runId: string; readonly items: readonly ScoreRecord[] }[];
  /** The answers table's index over every set, built when the table first asks (the overview does not need it), then kept. */
  readonly answerIndex: () => AnswerIndex;
}

/** The set's open digest, built and stored first when it is missing or stale. */
async function openDigestOf(repos: Repositories, set: ScoreSetRecord, benchmark: { id: string; contentHash: string }): Promise<OpenDigest> {
  return (await repos.scores.openDigest(set, benchmark.contentHash)) ?? (await repos.scores.rebuildDigest(set, benchmark)).open;
}

export async function loadStoredResults(repos: Repositories, benchmarkId: string): Promise<StoredResults> {
  const base = await readResultsRuns(repos, benchmarkId);
  const reviewedIds = [...new Set(base.reviews.map((r) => r.responseId))];
  const [digests, reviewed] = await Promise.all([
    Promise.all(base.scored.map((s) => openDigestOf(repos, s.set, base.benchmark))),
    Promise.all(base.scored.map(async (s) => ({ runId: s.run.id, items: reviewedIds.length ? await repos.scores.listByResponses(s.set.id, reviewedIds) : [] }))),
  ]);
  let table: AnswerIndex | null = null;
  return {
    ...base,
    digests,
    reviewed,
    answerIndex: () => (table ??= new AnswerIndex(digests.map((d) => ({ scoreSetId: d.scoreSetId, runId: d.runId, table: d.table })))),
  };
}

export async function storedOverview(repos: Repositories, data: StoredResults): Promise<ResultsOverview> {
  const digestOf = new Map(data.scored.map((s, i) => [s.run.id, data.digests[i]!]));
  const uniq = (lists: (readonly string[])[]) => [...new Set(lists.flat())].sort();
  // With no scored run nothing is broken down, but the offer stays what the full load gives.
  const dimensions = data.digests[0]?.dimensions ?? dimensionsFor(await repos.cases.listByBenchmark(data.benchmark.id));
  return assembleOverview({
    ...data,
    reliabilityOf: (run: ScoredRun, row) => digestOf.get(run.run.id)?.reliability.find((r) => r.modelId === row.modelId && r.variant === row.variant)?.points ?? [],
    degradation: data.digests.flatMap((d) => d.degradation),
    dimensions,
    facets: {
      models: uniq(data.digests.map((d) => d.table.modelIds)),
      protocols: uniq(data.digests.map((d) => d.table.protocols)),
      variants: uniq(data.digests.map((d) => d.table.variants)),
    },
  });
}

/** A page of the answers table: the index picks the rows, and only those score rows are read. */
export async function storedAnswers(repos: Repositories, data: StoredResults, query: AnswerQuery): Promise<AnswerPage> {
  const page = data.answerIndex().query(query);
  const bySet = new Map<string, string[]>();
  for (const r of page.refs) bySet.set(r.scoreSetId, [...(bySet.get(r.scoreSetId) ?? []), r.responseId]);
  const rows = new Map<string, ScoreRecord>();
  await Promise.all([...bySet].map(async ([setId, ids]) => {
    for (const row of await repos.scores.listByResponses(setId, ids)) rows.set(row.id, row);
  }));
  return { total: page.total, offset: page.offset, rows: page.refs.flatMap((r) => {
    const row = rows.get(`${r.scoreSetId}|${r.responseId}`);
    return row ? [answerTableRow(row)] : [];
  }) };
}

/** What paired tests and breakdowns read: each run's answers with one metric, and the answered cases. */
export interface StoredDetail {
  itemsFor(metric: string): readonly ScoredItems[];
  readonly cases: ReadonlyMap<string, BreakdownCase>;
}

export async function loadStoredDetail(repos: Repositories, data: StoredResults): Promise<StoredDetail> {
  const details: DetailDigest[] = await Promise.all(data.scored.map(async (s) =>
    (await repos.scores.detailDigest(s.set, data.benchmark.contentHash)) ?? (await repos.scores.rebuildDigest(s.set, data.benchmark)).detail));
  const cases = new Map<string, BreakdownCase>(details.flatMap((d) => [...casesFromColumns(d.cases)]));
  const byMetric = new Map<string, ScoredItems[]>();
  return {
    cases,
    itemsFor(metric) {
      let runs = byMetric.get(metric);
      if (!runs) byMetric.set(metric, (runs = data.scored.map((s, i) => ({ run: s.run, items: lightItems(data.digests[i]!, details[i]!, metric) }))));
      return runs;
    },
  };
}
