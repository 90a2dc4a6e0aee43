/**
 * Go / no-go: each criterion checked against each model arm of a scored run,
 * with the figures it was decided on. The whole-run figure is the arm's own
 * summary (the leaderboard's figure); a subgroup's is the breakdown's cell
 * (the results page's), so a verdict can always be traced to a figure the
 * user can see. Intervals are what those figures carry: Wilson or bootstrap,
 * resampled by patient where cases share one. The safety view's figures
 * (false-finding and missed-abnormality rates, flagged answers, selective
 * accuracy at 80 % coverage) are decided on the run's safety report: for the
 * whole run or per disease group, the only subgroup that report has.
 */
import { breakdown, DIMENSION_LABELS, type Dimension } from './breakdowns.ts';
import { rowId, type BreakdownCase, type ScoredItems } from './leaderboard.ts';
import { armKeyOf, SAFETY_METRIC_LABELS, SAFETY_METRICS, type RiskCoverage, type SafetyRate, type SafetyReport } from './safety.ts';
import { isContinuousMetric, metricLabel } from '../scoring/run/summary.ts';
import type { ArmSummary } from '../scoring/run/types.ts';
import type { AcceptanceCriterion, CriteriaSet } from '../model/criteria.ts';

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
  /** The run's safety report; needed only by criteria on a safety metric (no data without it). */
  readonly safety?: SafetyReport;
}

/** Safety-view figures a criterion may name, whole run or per disease group (the area under the curve has no interval, so it is not one). */
export const SAFETY_CRITERION_METRICS: readonly string[] = [SAFETY_METRICS.falseFinding, SAFETY_METRICS.missedAbnormality, SAFETY_METRICS.flagged, SAFETY_METRICS.selectiveAccuracy80];

export const isSafetyMetric = (metric: string): boolean => SAFETY_CRITERION_METRICS.includes(metric);

/** Where a safety figure exists: the whole run, and per disease group except for flagged answers. */
export function safetySubgroups(metric: string): readonly string[] {
  return metric === SAFETY_METRICS.flagged ? ['all'] : ['all', 'diseaseGroup'];
}

/** A metric's name, the safety view's figures included. */
export function criterionMetricLabel(metric: string): string {
  return SAFETY_METRIC_LABELS[metric] ?? metricLabel(metric);
}

type Cell = Omit<CriterionEvidence, 'figure' | 'passes'>;

/** What the safety report gives one arm, for the whole run or in one disease group (flags only for the whole run). */
interface SafetyFigures {
  readonly falseFinding: SafetyRate | null;
  readonly missedAbnormality: SafetyRate | null;
  readonly flags?: { readonly any: SafetyRate };
  readonly riskCoverage: RiskCoverage | null;
}

/** The criterion's figure from one arm's safety figures, as a cell of evidence; null where the report has none. */
function safetyCell(metric: string, group: string | null, f: SafetyFigures): Cell | null {
  if (metric === SAFETY_METRICS.selectiveAccuracy80) {
    const rc = f.riskCoverage;
    return rc ? { group, value: rc.at80.value, lower: rc.at80.ci.lower, upper: rc.at80.ci.upper, n: rc.n, byPatient: false } : null;
  }
  const rate = metric === SAFETY_METRICS.falseFinding ? f.falseFinding : metric === SAFETY_METRICS.missedAbnormality ? f.missedAbnormality : f.flags?.any;
  return rate && rate.n > 0 ? { group, value: rate.value, lower: rate.ci.lower, upper: rate.ci.upper, n: rate.n, byPatient: false } : null;
}

/** The safety report's cells for one criterion and arm: the arm's figure, or each disease group's. */
function safetyCells(c: AcceptanceCriterion, safety: SafetyReport | undefined, key: string): Cell[] {
  if (!safety || !safetySubgroups(c.metric).includes(c.subgroup)) return [];
  if (c.subgroup === 'all') {
    const arm = safety.arms.find((a) => a.key === key);
    const cell = arm ? safetyCell(c.metric, null, arm) : null;
    return cell ? [cell] : [];
  }
  return safety.groups.flatMap((g) => {
    const arm = c.group === undefined || g.group === c.group ? g.arms.find((a) => a.key === key) : undefined;
    const cell = arm ? safetyCell(c.metric, g.group, arm) : null;
    return cell ? [cell] : [];
  });
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
    const safety = isSafetyMetric(c.metric);
    const groups = c.subgroup === 'all' || safety ? null : breakdown(input.scored, input.cases, c.subgroup as Dimension, c.metric);
    for (const arm of input.arms) {
      const cells: Cell[] = [];
      if (safety) {
        cells.push(...safetyCells(c, input.safety, armKeyOf({ runId: input.runId, modelId: arm.modelId, variant: arm.variant })));
      } else if (!groups) {
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
  return `${criterionMetricLabel(c.metric)}: ${STATISTIC_WORDS[c.statistic]} ${c.comparator === '>=' ? '≥' : '≤'} ${formatCriterionValue(c.metric, c.threshold)} ${where}`;
}

function dimensionWord(d: string): string {
  const label = (DIMENSION_LABELS as Readonly<Record<string, string>>)[d];
  return label ? label.charAt(0).toLowerCase() + label.slice(1) : d;
}

/** Why an outcome is what it is, in one line: the failing groups with their figure, or that all pass. */
export function outcomeReason(o: CriterionOutcome): string {
  const fmt = (v: number) => formatCriterionValue(o.criterion.metric, v);
  if (o.status === 'no-data' && isSafetyMetric(o.criterion.metric) && !safetySubgroups(o.criterion.metric).includes(o.criterion.subgroup)) {
    return `${criterionMetricLabel(o.criterion.metric)} is reported for the whole run${safetySubgroups(o.criterion.metric).length > 1 ? ' and per disease group' : ''} only.`;
  }
  if (o.status === 'no-data') return `No scored answers for ${criterionMetricLabel(o.criterion.metric)}${o.criterion.subgroup === 'all' ? '' : ` in ${o.criterion.group !== undefined ? `"${o.criterion.group}"` : 'any group'}`}.`;
  const failing = o.evidence.filter((e) => !e.passes);
  const unit = (e: CriterionEvidence) => `n=${e.n}${e.byPatient ? ` patient${e.n === 1 ? '' : 's'}` : ''}`;
  const line = (e: CriterionEvidence) => `${e.group === null ? '' : `${e.group}: `}${fmt(e.figure)} (${fmt(e.value)}, 95 % CI ${fmt(e.lower)}–${fmt(e.upper)}, ${unit(e)})`;
  if (failing.length === 0) return o.evidence.length === 1 ? `Met: ${line(o.evidence[0]!)}.` : `Met in all ${o.evidence.length} groups; lowest margin ${line([...o.evidence].sort((a, b) => Math.abs(a.figure - o.criterion.threshold) - Math.abs(b.figure - o.criterion.threshold))[0]!)}.`;
  return `Not met${o.evidence.length > 1 ? ` in ${failing.length} of ${o.evidence.length} groups` : ''}: ${failing.map(line).join('; ')}.`;
}
