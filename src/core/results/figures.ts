/**
 * The figures of the results page and the HTML report, built from results
 * data: the same function draws each figure in both places.
 */
import { ERROR_CLASSES } from '../scoring/equivalence/taxonomy.ts';
import { metricLabel } from '../scoring/run/summary.ts';
import type { ReliabilityPoint } from '../scoring/metrics/calibration.ts';
import { barChart, confusionHeatmap, lineChart, reliabilityDiagram, riskCoverageChart, scatterChart, type ScatterPoint } from './charts.ts';
import type { Breakdown } from './breakdowns.ts';
import type { DegradationCurve } from './curves.ts';
import type { LeaderboardRow } from './leaderboard.ts';
import { DIMENSION_LABELS } from './breakdowns.ts';
import { TARGET_COVERAGE, type SafetyReport } from './safety.ts';
import type { SvgNode } from './svg.ts';

/** Breadth (NeuroVLM-style classification) and depth (Neural-MedBench-style reasoning) metric keys. */
const BREADTH_METRIC = 'neurovlm.diagnosis_name';
const DEPTH_METRIC = 'pass@1';

interface TwoAxis {
  readonly figure: SvgNode;
  readonly plotted: readonly string[];
  /** Rows left out, with what they lack. */
  readonly missing: readonly string[];
}

/** Each model's breadth score against its depth score, with both 95 % intervals. */
export function twoAxisFigure(rows: readonly LeaderboardRow[]): TwoAxis {
  const points: ScatterPoint[] = [];
  const missing: string[] = [];
  for (const r of rows) {
    const x = r.metrics[BREADTH_METRIC];
    const y = r.metrics[DEPTH_METRIC];
    if (!x || !y || !Number.isFinite(x.mean) || !Number.isFinite(y.mean)) {
      missing.push(`${r.label} (no ${!x || !Number.isFinite(x.mean) ? 'classification' : 'reasoning'} answers)`);
      continue;
    }
    points.push({ label: r.label, x: x.mean, y: y.mean, xCi: [x.ci.lower, x.ci.upper], yCi: [y.ci.lower, y.ci.upper] });
  }
  return {
    figure: scatterChart({ title: 'Breadth vs depth', xLabel: 'Breadth: classification accuracy (NeuroVLM-Bench style)', yLabel: 'Depth: pass@1 (Neural-MedBench style)', points, xPercent: true, yPercent: true }),
    plotted: points.map((p) => p.label),
    missing,
  };
}

/** Quality (a metric) against decode speed. */
export function speedFigure(rows: readonly LeaderboardRow[], metric: string): SvgNode {
  const points = rows.flatMap((r): ScatterPoint[] => {
    const m = r.metrics[metric];
    return m && Number.isFinite(m.mean) && Number.isFinite(r.decodeTps) ? [{ label: r.label, x: r.decodeTps, y: m.mean, yCi: [m.ci.lower, m.ci.upper] }] : [];
  });
  return scatterChart({ title: `${metricLabel(metric)} vs speed`, xLabel: 'Decode speed (tokens/s)', yLabel: metricLabel(metric), points, yPercent: true });
}

export function breakdownFigure(b: Breakdown, percent: boolean): SvgNode {
  return barChart({
    title: `${metricLabel(b.metric)} by ${DIMENSION_LABELS[b.dimension].toLowerCase()}`,
    series: b.series.map((s) => s.label),
    groups: b.groups.map((g, i) => ({ label: g, values: (b.cells[i] ?? []).map((c) => (c ? { value: c.value, lower: c.lower, upper: c.upper, n: c.n } : null)) })),
    percent,
    yLabel: metricLabel(b.metric),
  });
}

export interface TaxonomyCounts {
  readonly rowLabel: string;
  /** Class id → answers. */
  readonly proposed: Readonly<Record<string, number>>;
  readonly confirmed: Readonly<Record<string, number>>;
}

/** Error classes per model: proposed by the judge and confirmed by reviewers. */
export function taxonomyFigure(counts: readonly TaxonomyCounts[]): SvgNode {
  const used = ERROR_CLASSES.filter((c) => counts.some((r) => (r.proposed[c.id] ?? 0) + (r.confirmed[c.id] ?? 0) > 0));
  const series = counts.flatMap((r) => [`${r.rowLabel} (judge)`, `${r.rowLabel} (reviewers)`]);
  return barChart({
    title: 'Error classes of wrong answers',
    series,
    groups: used.map((c) => ({ label: c.label, values: counts.flatMap((r) => [{ value: r.proposed[c.id] ?? 0 }, { value: r.confirmed[c.id] ?? 0 }]) })),
    percent: false,
    yLabel: 'Answers',
  });
}

export function reliabilityFigure(label: string, points: readonly ReliabilityPoint[]): SvgNode {
  return reliabilityDiagram(`Reliability: ${label}`, points);
}

export function confusionFigure(label: string, labels: readonly string[], matrix: readonly (readonly number[])[], abstained: readonly number[], other: readonly number[]): SvgNode {
  const cols = [...labels, 'undetermined', 'other'];
  const rows = labels.map((_, i) => [...(matrix[i] ?? []), abstained[i] ?? 0, other[i] ?? 0]);
  return confusionHeatmap(`Confusion matrix (class): ${label}`, labels, cols, rows);
}

export function degradationFigures(curves: readonly DegradationCurve[]): SvgNode[] {
  if (curves.length === 0) return [];
  const shifts = curves.flatMap((c) => c.shift.map((p) => p.y));
  const bound = Math.max(0.25, ...shifts.map(Math.abs));
  return [
    lineChart({ title: 'Accuracy by degradation severity', xLabel: 'Severity (0 = original images)', yLabel: 'Accuracy', series: curves.map((c) => ({ name: c.label, points: c.accuracy })), percent: true, xTicks: [0, 1, 2, 3] }),
    lineChart({ title: 'Calibration shift by severity (confidence − accuracy)', xLabel: 'Severity (0 = original images)', yLabel: 'Shift', series: curves.map((c) => ({ name: c.label, points: c.shift })), yMin: -bound, yMax: bound, xTicks: [0, 1, 2, 3] }),
  ];
}

/** Each arm's risk–coverage curve (NeuroEval's own figure), with the 80 % coverage marked. */
export function riskCoverageFigure(report: SafetyReport, labelOf: (key: string) => string = (k) => k): SvgNode {
  return riskCoverageChart({
    title: 'Risk–coverage (NeuroEval\'s own figure)',
    series: report.arms.flatMap((a) => (a.riskCoverage ? [{ name: labelOf(a.key), points: a.riskCoverage.curve.map((p) => ({ coverage: p.coverage, risk: 1 - p.accuracy })) }] : [])),
    mark: TARGET_COVERAGE,
  });
}
