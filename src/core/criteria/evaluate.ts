/**
 * Go / no-go: each criterion checked against each model arm of a scored run,
 * with the figures it was decided on. The whole-run figure is the arm's own
 * summary (the leaderboard's figure); a subgroup's is the breakdown's cell
 * (the results page's), so a verdict can always be traced to a figure the
 * user can see. Intervals are what those figures carry: Wilson or bootstrap,
 * resampled by patient where cases share one.
 */
import { breakdown, DIMENSION_LABELS, rowId, type BreakdownCase, type Dimension, type ScoredItems } from '../results/leaderboard.ts';
import { isContinuousMetric, metricLabel } from '../scoring/run/summary.ts';
import type { ArmSummary } from '../scoring/run/types.ts';
import type { AcceptanceCriterion, CriteriaSet } from './criteria.ts';

export interface CriterionEvidence {
  /** The group of the subgroup dimension; null for the whole run. */
  readonly group: string | null;
  readonly value: number;
  readonly lower: number;
  readonly upper: number;
  /** Answers, questions or patients, as the interval counts them. */
  readonly n: number;
  readonly byPatient: boolean;
  /** The figure compared with the threshold (lower bound, mean or upper bound). */
  readonly figure: number;
  readonly passes: boolean;
}

export type CriterionStatus = 'go' | 'no-go' | 'no-data';

export interface CriterionOutcome {
  readonly criterion: AcceptanceCriterion;
  readonly arm: string;
  readonly modelId: string;
  readonly variant: string;
  readonly status: CriterionStatus;
  readonly evidence: readonly CriterionEvidence[];
}

export interface CriteriaInput {
  readonly runId: string;
  readonly arms: readonly Pick<ArmSummary, 'key' | 'modelId' | 'variant' | 'metrics'>[];
  /** The run's scored answers and their cases: what subgroup figures are computed from. */
  readonly scored: readonly ScoredItems[];
  readonly cases: ReadonlyMap<string, BreakdownCase>;
}

function compare(figure: number, c: AcceptanceCriterion): boolean {
  // Figures are rounded to 12 digits so 0.7 written as a threshold meets 0.7 computed as 7/10.
  const f = Math.round(figure * 1e12) / 1e12;
  return c.comparator === '>=' ? f >= c.threshold : f <= c.threshold;
}

function pick(c: AcceptanceCriterion, cell: { value: number; lower: number; upper: number }): number {
  return c.statistic === 'lower' ? cell.lower : c.statistic === 'upper' ? cell.upper : cell.value;
}

/** Every criterion for every arm: go when every figure it covers passes, no-go when one fails, no-data when there is none. */
export function evaluateCriteria(set: CriteriaSet, input: CriteriaInput): CriterionOutcome[] {
  const out: CriterionOutcome[] = [];
  for (const c of set.criteria) {
    const groups = c.subgroup === 'all' ? null : breakdown(input.scored, input.cases, c.subgroup as Dimension, c.metric);
    for (const arm of input.arms) {
      const cells: Omit<CriterionEvidence, 'figure' | 'passes'>[] = [];
      if (!groups) {
        const m = arm.metrics.find((x) => x.metric === c.metric);
        if (m && m.n > 0) cells.push({ group: null, value: m.mean, lower: m.ci.lower, upper: m.ci.upper, n: m.n, byPatient: m.ciMethod === 'patient-bootstrap' });
      } else {
        const series = groups.series.findIndex((s) => s.id === rowId(input.runId, arm));
        groups.groups.forEach((g, gi) => {
          const cell = series >= 0 && (c.group === undefined || g === c.group) ? groups.cells[gi]![series] : null;
          if (cell) cells.push({ group: g, value: cell.value, lower: cell.lower, upper: cell.upper, n: cell.n, byPatient: cell.by === 'patient' });
        });
      }
      const evidence = cells.map((e): CriterionEvidence => {
        const figure = pick(c, e);
        return { ...e, figure, passes: compare(figure, c) };
      });
      const status: CriterionStatus = evidence.length === 0 ? 'no-data' : evidence.every((e) => e.passes) ? 'go' : 'no-go';
      out.push({ criterion: c, arm: arm.key, modelId: arm.modelId, variant: arm.variant, status, evidence });
    }
  }
  return out;
}

/** A figure in the metric's units: a percentage for 0/1 metrics, else three decimals. */
export function formatCriterionValue(metric: string, v: number): string {
  return isContinuousMetric(metric) ? v.toFixed(3) : `${(Math.round(v * 1000) / 10).toLocaleString('en')} %`;
}

const STATISTIC_WORDS = { lower: '95 % lower bound', mean: 'value', upper: '95 % upper bound' } as const;

/** "Class (diagnosis_name): 95 % lower bound ≥ 70 % in every disease group". */
export function describeCriterion(c: AcceptanceCriterion): string {
  const where = c.subgroup === 'all' ? 'on the whole run' : c.group !== undefined ? `in ${dimensionWord(c.subgroup)} "${c.group}"` : `in every ${dimensionWord(c.subgroup)}`;
  return `${metricLabel(c.metric)}: ${STATISTIC_WORDS[c.statistic]} ${c.comparator === '>=' ? '≥' : '≤'} ${formatCriterionValue(c.metric, c.threshold)} ${where}`;
}

function dimensionWord(d: string): string {
  const label = (DIMENSION_LABELS as Readonly<Record<string, string>>)[d];
  return label ? label.charAt(0).toLowerCase() + label.slice(1) : d;
}

/** Why an outcome is what it is, in one line: the failing groups with their figure, or that all pass. */
export function outcomeReason(o: CriterionOutcome): string {
  const fmt = (v: number) => formatCriterionValue(o.criterion.metric, v);
  if (o.status === 'no-data') return `No scored answers for ${metricLabel(o.criterion.metric)}${o.criterion.subgroup === 'all' ? '' : ` in ${o.criterion.group !== undefined ? `"${o.criterion.group}"` : 'any group'}`}.`;
  const failing = o.evidence.filter((e) => !e.passes);
  const unit = (e: CriterionEvidence) => `n=${e.n}${e.byPatient ? ` patient${e.n === 1 ? '' : 's'}` : ''}`;
  const line = (e: CriterionEvidence) => `${e.group === null ? '' : `${e.group}: `}${fmt(e.figure)} (${fmt(e.value)}, 95 % CI ${fmt(e.lower)}–${fmt(e.upper)}, ${unit(e)})`;
  if (failing.length === 0) return o.evidence.length === 1 ? `Met: ${line(o.evidence[0]!)}.` : `Met in all ${o.evidence.length} groups; lowest margin ${line([...o.evidence].sort((a, b) => Math.abs(a.figure - o.criterion.threshold) - Math.abs(b.figure - o.criterion.threshold))[0]!)}.`;
  return `Not met${o.evidence.length > 1 ? ` in ${failing.length} of ${o.evidence.length} groups` : ''}: ${failing.map(line).join('; ')}.`;
}
