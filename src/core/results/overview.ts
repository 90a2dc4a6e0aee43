/**
 * A benchmark's results summarised for the results page and the report:
 * which runs exist and which are scored, the leaderboard, and the data behind
 * every chart. Reading them from storage is src/core/stored/overview.ts.
 */
import type { BenchCase } from '../bundle/types.ts';
import type { BenchmarkRecord } from '../bundle/records.ts';
import type { ReviewRecord } from '../model/review.ts';
import type { ScoreRecord } from '../scoring/run/records.ts';
import type { ReliabilityPoint } from '../scoring/metrics/calibration.ts';
import type { AnswerRow } from './answers.ts';
import { armKey } from '../scoring/run/types.ts';
import type { NeuroVlmBenchBreakdown, NeuroVlmBenchFailure } from '../scoring/neurovlm/evaluator/types.ts';
import type { NeuroVlmBenchFigures } from '../scoring/neurovlm/evaluator/index.ts';
import { buildLeaderboard, rowId, type Leaderboard, type LeaderboardRow, type ScoredRun } from './leaderboard.ts';
import { degradationCurves, rowReliability, type DegradationCurve } from './curves.ts';
import { dimensionsFor, type Dimension } from './breakdowns.ts';
import type { TaxonomyCounts } from './figures.ts';

export interface RunOverview {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly createdAt: number;
  readonly answers: number;
  readonly scoreVersion: number | null;
  readonly scoredAt: number | null;
  readonly judge: string | null;
  readonly encoder: string | null;
  /** Reviews newer than the score version: re-score to fold them in. */
  readonly newReviews: number;
  /** A reader's session of a reader study (their name), not a model run; null for a model run. */
  readonly reader: string | null;
}

interface ConfusionData {
  readonly rowId: string;
  readonly label: string;
  readonly labels: readonly string[];
  readonly matrix: readonly (readonly number[])[];
  readonly abstained: readonly number[];
  readonly other: readonly number[];
}

export interface ResultsOverview {
  readonly benchmark: Pick<BenchmarkRecord, 'id' | 'name' | 'contentHash' | 'synthetic' | 'caseCount' | 'version'>;
  readonly runs: readonly RunOverview[];
  readonly leaderboard: Leaderboard;
  readonly taxonomy: readonly TaxonomyCounts[];
  readonly degradation: readonly DegradationCurve[];
  readonly confusion: readonly ConfusionData[];
  readonly reliability: readonly { readonly rowId: string; readonly label: string; readonly points: readonly ReliabilityPoint[] }[];
  /**
   * NeuroVLM-Bench's own figures (its evaluator, exactly) of each leaderboard row that has
   * NeuroVLM-Bench answers, keyed by the row's label (with its run where labels repeat).
   */
  readonly neurovlmBench: NeuroVlmBenchBreakdown | null;
  /** Breakdown dimensions to offer: the technical ones only when some case carries their tag. */
  readonly dimensions: readonly Dimension[];
  /** Some value on the page was decided (or left undecided) by a local judge. */
  readonly judgeUsed: boolean;
  /** Distinct values for the answer-table filters. */
  readonly facets: { readonly models: readonly string[]; readonly protocols: readonly string[]; readonly variants: readonly string[] };
}

/** A benchmark's runs as the results page lists them, their current score sets (rows not read), reviews and signature. */
export interface ResultsRuns {
  readonly benchmark: BenchmarkRecord;
  readonly runs: readonly RunOverview[];
  /** Each scored run with its current set; `items` is empty. */
  readonly scored: readonly ScoredRun[];
  readonly reviews: readonly ReviewRecord[];
  readonly signature: string;
}

/** Everything the worker keeps in memory for one benchmark. */
export interface LoadedResults {
  readonly benchmark: BenchmarkRecord;
  readonly runs: readonly RunOverview[];
  readonly scored: readonly ScoredRun[];
  readonly cases: ReadonlyMap<string, BenchCase>;
  readonly reviews: readonly ReviewRecord[];
  readonly answers: readonly AnswerRow[];
  /** Identifies this state: the current score set of each run and the review count. */
  readonly signature: string;
}

/**
 * What identifies the state of a benchmark's results: each run with its
 * update time and current score set, and the reviews. The page watches it
 * (a Dexie liveQuery) and hands it to the results worker, which reloads only
 * when it changes.
 */
export function signatureOf(runs: readonly { id: string; updatedAt: number; setId: string | null }[], reviews: readonly { createdAt: number }[]): string {
  const latest = reviews.reduce((a, r) => Math.max(a, r.createdAt), 0);
  return `${runs.map((r) => `${r.id}:${r.setId ?? '-'}:${r.updatedAt}`).join(',')}|${reviews.length}:${latest}`;
}

/** The rows' NeuroVLM-Bench figures, from each run's score set, as one breakdown keyed by row label. */
function benchmarkFigures(rows: readonly LeaderboardRow[], runOf: (row: LeaderboardRow) => ScoredRun | undefined): NeuroVlmBenchBreakdown | null {
  const all: Record<string, NeuroVlmBenchFigures> = {};
  const datasets: Record<string, Record<string, NeuroVlmBenchFigures>> = {};
  const repeated = new Set(rows.filter((r, i) => rows.findIndex((o) => o.label === r.label) !== i).map((r) => r.label));
  let failure: NeuroVlmBenchFailure | undefined;
  for (const row of rows) {
    const bench = runOf(row)?.set.summary.neurovlmBench;
    // A run on whose export the evaluator stops has no benchmark figures: say so rather than leave its rows out silently.
    if (bench?.failure) failure ??= { ...bench.failure, message: `${row.runName}: ${bench.failure.message}` };
    const figures = bench?.all[row.arm];
    if (!bench || !figures) continue;
    const key = repeated.has(row.label) ? `${row.label} (${row.runName})` : row.label;
    all[key] = figures;
    for (const [d, models] of Object.entries(bench.datasets)) {
      const f = models[row.arm];
      if (f) (datasets[d] ??= {})[key] = f;
    }
  }
  const sorted = Object.fromEntries(Object.keys(datasets).sort().map((d) => [d, datasets[d]!]));
  if (Object.keys(all).length) return { all, datasets: sorted, ...(failure ? { failure } : {}) };
  return failure ? { all: {}, datasets: {}, failure } : null;
}

export function overviewOf(data: LoadedResults): ResultsOverview {
  const uniq = (xs: string[]) => [...new Set(xs)].sort();
  return assembleOverview({
    ...data,
    reviewed: data.scored.map((s) => ({ runId: s.run.id, items: s.items })),
    reliabilityOf: (run, row) => rowReliability(run, row),
    degradation: degradationCurves(data.scored),
    dimensions: dimensionsFor(data.cases.values()),
    facets: { models: uniq(data.answers.map((a) => a.modelId)), protocols: uniq(data.answers.map((a) => a.protocolId)), variants: uniq(data.answers.map((a) => a.variant)) },
  });
}

/**
 * What an overview is made of. The full load (every score row) and the
 * stored digests (digest.ts) both supply it, so the page and the report show
 * the same figures whichever way the rows were read.
 */
export interface OverviewParts {
  readonly benchmark: BenchmarkRecord;
  readonly runs: readonly RunOverview[];
  /** Each scored run with its current set; `items` may be empty (only the set's summary is read here). */
  readonly scored: readonly ScoredRun[];
  readonly reviews: readonly ReviewRecord[];
  /** The score rows reviews may point at (every row, or just the reviewed ones), per run in run order. */
  readonly reviewed: readonly { readonly runId: string; readonly items: readonly ScoreRecord[] }[];
  readonly reliabilityOf: (run: ScoredRun, row: LeaderboardRow) => readonly ReliabilityPoint[];
  readonly degradation: readonly DegradationCurve[];
  readonly dimensions: readonly Dimension[];
  readonly facets: ResultsOverview['facets'];
}

export function assembleOverview(data: OverviewParts): ResultsOverview {
  const leaderboard = buildLeaderboard(data.scored);
  const confirmed = new Map<string, Record<string, number>>();
  const itemsByResponse = new Map(data.reviewed.flatMap((s) => s.items.map((it) => [it.responseId, { it, runId: s.runId }] as const)));
  for (const r of data.reviews) {
    const found = itemsByResponse.get(r.responseId);
    if (!found || r.errorClasses.length === 0) continue;
    const key = rowId(found.runId, { key: armKey(found.it.modelId, found.it.variant) });
    const counts = confirmed.get(key) ?? {};
    for (const c of r.errorClasses) counts[c] = (counts[c] ?? 0) + 1;
    confirmed.set(key, counts);
  }
  const runOf = (row: LeaderboardRow) => data.scored.find((x) => x.run.id === row.runId);
  const armOf = (row: LeaderboardRow) => runOf(row)?.set.summary.arms.find((a) => a.key === row.arm);
  const taxonomy: TaxonomyCounts[] = leaderboard.rows.map((row) => ({ rowLabel: row.label, proposed: armOf(row)?.proposedErrorClasses ?? {}, confirmed: confirmed.get(row.id) ?? {} }))
    .filter((t) => Object.keys(t.proposed).length + Object.keys(t.confirmed).length > 0);
  const confusion: ConfusionData[] = leaderboard.rows.flatMap((row) => {
    const c = armOf(row)?.neurovlm?.fields.diagnosis_name.confusion;
    return c && c.labels.length ? [{ rowId: row.id, label: row.label, labels: c.labels, matrix: c.matrix, abstained: c.abstained, other: c.other }] : [];
  });
  const reliability = leaderboard.rows.flatMap((row) => {
    const s = runOf(row);
    const points = s ? data.reliabilityOf(s, row) : [];
    return points.length ? [{ rowId: row.id, label: row.label, points }] : [];
  });
  return {
    neurovlmBench: benchmarkFigures(leaderboard.rows, runOf),
    benchmark: { id: data.benchmark.id, name: data.benchmark.name, contentHash: data.benchmark.contentHash, synthetic: data.benchmark.synthetic, caseCount: data.benchmark.caseCount, version: data.benchmark.version },
    runs: data.runs,
    leaderboard,
    taxonomy,
    degradation: data.degradation,
    confusion,
    reliability,
    dimensions: data.dimensions,
    judgeUsed: leaderboard.rows.some((r) => Object.values(r.metrics).some((m) => m.dependsOnJudge)),
    facets: data.facets,
  };
}
