/**
 * The results of one benchmark, as a committee reads them: a leaderboard of
 * every model (arm) of every scored run with its metrics and 95 % intervals,
 * and the shapes the other views share (scored runs and their rows). The
 * model-vs-model tests are comparisons.ts, the breakdowns breakdowns.ts, the
 * chart series curves.ts. Pure functions over score sets and their item
 * rows; the results worker runs them.
 */
import type { BenchCase } from '../bundle/types.ts';
import type { RunRecord } from '../runner/records.ts';
import type { ScoredItem, ScoreRecord, ScoreSetRecord } from '../scoring/run/records.ts';
import { isContinuousMetric, metricLabel } from '../scoring/run/summary.ts';
import { type ArmSummary, type MetricSummary, type UnavailableMetric } from '../scoring/run/types.ts';
import { rowModelName } from './model-names.ts';

/** One scored run: its record, its current score set and that set's rows. */
export interface ScoredRun {
  /** `modelNames`: what people read for each model id, from the run's provenance (a reader's name, an imported model's label). */
  readonly run: Pick<RunRecord, 'id' | 'name' | 'benchmarkId' | 'status' | 'createdAt'> & { readonly modelNames?: Readonly<Record<string, string>> };
  readonly set: ScoreSetRecord;
  readonly items: readonly ScoreRecord[];
}

/** A run's answers as tests and breakdowns read them. */
export interface ScoredItems {
  /** `modelNames` as on {@link ScoredRun}: series of breakdowns are named in words. */
  readonly run: Pick<RunRecord, 'id' | 'name'> & { readonly modelNames?: Readonly<Record<string, string>> };
  readonly items: readonly ScoredItem[];
}

/** The case fields breakdowns group by (a stored case, or the slim copy a results digest keeps). */
export type BreakdownCase = Pick<BenchCase, 'split' | 'taskFamily' | 'diseaseGroup' | 'subtask' | 'modality' | 'sequences' | 'meta'> & {
  readonly images: readonly Pick<BenchCase['images'][number], 'sequence' | 'plane'>[];
};

export interface LeaderboardRow {
  /** `${runId}|${arm key}`: unique across runs. */
  readonly id: string;
  readonly runId: string;
  readonly runName: string;
  readonly modelId: string;
  readonly variant: string;
  /** Model and variant: `model` or `model [variant]`. */
  readonly arm: string;
  /** Model (and variant) as shown; the run name is added when two runs hold the same model. */
  readonly label: string;
  /** The model's name as its run recorded it (the catalogue's, a reader's, an imported model's label); absent: the catalogue's name of `modelId`. */
  readonly modelName?: string;
  readonly responses: number;
  readonly failed: number;
  readonly metrics: Readonly<Record<string, MetricSummary>>;
  /** Metrics this arm's answers gave no value, and why (scoring/run/unavailable.ts). */
  readonly unavailable?: readonly UnavailableMetric[];
  readonly medianLatencyMs: number;
  /** The arm's decode speed (ArmSummary.decodeTps); NaN where not measured. */
  readonly decodeTps: number;
  readonly scoreVersion: number;
  readonly judge: string | null;
  readonly encoder: string | null;
}

export interface Leaderboard {
  readonly rows: readonly LeaderboardRow[];
  /** Every metric some row has, in report order, with its label. */
  readonly metrics: readonly { readonly key: string; readonly label: string; readonly continuous: boolean }[];
  /** The headline metric: the first of the preferred ones that some row has. */
  readonly defaultMetric: string | null;
}

const HEADLINE = ['neurovlm.diagnosis_name', 'pass@1', 'mcq.correct', 'lesion.all', 'rubric', 'bertscore.f', 'rougeL'];

export function rowId(runId: string, arm: Pick<ArmSummary, 'key'>): string {
  return `${runId}|${arm.key}`;
}

export function buildLeaderboard(runs: readonly ScoredRun[]): Leaderboard {
  const rows: LeaderboardRow[] = [];
  const order: string[] = [];
  const labels = new Map<string, string>();
  for (const { run, set } of runs) {
    for (const arm of set.summary.arms) {
      const metrics: Record<string, MetricSummary> = {};
      for (const m of arm.metrics) {
        metrics[m.metric] = m;
        if (!labels.has(m.metric)) {
          labels.set(m.metric, m.label);
          order.push(m.metric);
        }
      }
      const modelName = run.modelNames?.[arm.modelId];
      rows.push({
        id: rowId(run.id, arm), runId: run.id, runName: run.name, modelId: arm.modelId, variant: arm.variant, arm: arm.key,
        label: rowModelName({ modelId: arm.modelId, variant: arm.variant, ...(modelName ? { modelName } : {}) }), ...(modelName ? { modelName } : {}),
        responses: arm.responses, failed: arm.failed, metrics, ...(arm.unavailable?.length ? { unavailable: arm.unavailable } : {}), medianLatencyMs: arm.medianLatencyMs, decodeTps: arm.decodeTps ?? NaN,
        scoreVersion: set.version, judge: set.config.judge, encoder: set.config.encoder,
      });
    }
  }
  // Two runs of the same model: tell them apart by run name.
  const seen = new Map<string, number>();
  for (const r of rows) seen.set(r.label, (seen.get(r.label) ?? 0) + 1);
  const labelled = rows.map((r) => ((seen.get(r.label) ?? 0) > 1 ? { ...r, label: `${r.label} · ${r.runName}` } : r));
  return {
    rows: labelled,
    metrics: order.map((key) => ({ key, label: labels.get(key) ?? metricLabel(key), continuous: isContinuousMetric(key) })),
    defaultMetric: HEADLINE.find((k) => labels.has(k)) ?? order[0] ?? null,
  };
}

/** Metrics where less is better (the leader has the lowest value). */
export const LOWER_IS_BETTER: ReadonlySet<string> = new Set(['mcq.invalid']);

/** Sorts rows by a metric, best first unless told otherwise (missing values last); ties keep leaderboard order. */
export function sortRows(rows: readonly LeaderboardRow[], metric: string, descending = !LOWER_IS_BETTER.has(metric)): LeaderboardRow[] {
  const v = (r: LeaderboardRow) => r.metrics[metric]?.mean;
  return [...rows].sort((a, b) => {
    const x = v(a);
    const y = v(b);
    const xm = x === undefined || !Number.isFinite(x);
    const ym = y === undefined || !Number.isFinite(y);
    if (xm || ym) return xm === ym ? 0 : xm ? 1 : -1;
    return descending ? y - x : x - y;
  });
}
