/**
 * What the criteria editor offers and how its fields map to a criteria set:
 * thresholds of 0/1 metrics are typed as percentages (70 for 70 %) and
 * stored as shares (0.7), as every figure of those metrics is shown.
 */
import { criterionMetricLabel, isSafetyMetric, SAFETY_CRITERION_METRICS, safetySubgroups } from '../../core/results/criteria-outcomes.ts';
import { type AcceptanceCriterion, type CriteriaSet } from '../../core/model/criteria.ts';
import { DIMENSION_LABELS, type Dimension } from '../../core/results/breakdowns.ts';
import { isContinuousMetric, KNOWN_METRICS } from '../../core/scoring/run/summary.ts';

export interface CriterionDraft {
  metric: string;
  statistic: AcceptanceCriterion['statistic'];
  comparator: AcceptanceCriterion['comparator'];
  /** As typed: a percentage for 0/1 metrics, the value itself otherwise. */
  threshold: number;
  subgroup: string;
  /** Empty: every group of the subgroup dimension. */
  group: string;
}

/** The scored run's metrics, then the safety view's figures (NeuroEval's own), each group under its heading. */
export const METRIC_GROUPS = [
  { label: 'Scores', options: KNOWN_METRICS.map((key) => ({ key, label: criterionMetricLabel(key) })) },
  { label: "Safety view (NeuroEval's own)", options: SAFETY_CRITERION_METRICS.map((key) => ({ key, label: criterionMetricLabel(key) })) },
] as const;

/**
 * The subgroup choices: the whole run, then the breakdown dimensions these
 * cases have (variants and protocols are not subgroups of patients); a safety
 * figure exists for the whole run and per disease group only.
 */
export function subgroupOptions(dimensions: readonly Dimension[], metric?: string): { key: string; label: string }[] {
  const all = [{ key: 'all', label: 'Whole run' }, ...dimensions.filter((d) => d !== 'variant' && d !== 'protocol').map((d) => ({ key: d, label: DIMENSION_LABELS[d] }))];
  return metric !== undefined && isSafetyMetric(metric) ? all.filter((o) => safetySubgroups(metric).includes(o.key)) : all;
}

export const isPercent = (metric: string): boolean => !isContinuousMetric(metric);

export function newDraft(): CriterionDraft {
  return { metric: 'neurovlm.diagnosis_name', statistic: 'lower', comparator: '>=', threshold: 70, subgroup: 'diseaseGroup', group: '' };
}

export function toSet(drafts: readonly CriterionDraft[]): CriteriaSet {
  return {
    version: 1,
    criteria: drafts.map((d, i) => ({
      id: `c${i + 1}`,
      metric: d.metric,
      statistic: d.statistic,
      comparator: d.comparator,
      // Rounded so 70 % is stored as 0.7, not 0.7000000000000001.
      threshold: isPercent(d.metric) ? Math.round(d.threshold * 1e6) / 1e8 : d.threshold,
      subgroup: d.subgroup,
      ...(d.subgroup !== 'all' && d.group.trim() ? { group: d.group.trim() } : {}),
    })),
  };
}

export function toDrafts(set: CriteriaSet | undefined): CriterionDraft[] {
  return (set?.criteria ?? []).map((c) => ({
    metric: c.metric,
    statistic: c.statistic,
    comparator: c.comparator,
    threshold: isPercent(c.metric) ? Math.round(c.threshold * 1e8) / 1e6 : c.threshold,
    subgroup: c.subgroup,
    group: c.group ?? '',
  }));
}
