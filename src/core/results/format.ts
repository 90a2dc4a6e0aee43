/**
 * How scores read wherever they are shown (pages, the HTML report, the CLI):
 * proportions as percentages, other metrics as three decimals, a missing
 * number as an en dash.
 */
import { count } from '../text/plural.ts';
import { isContinuousMetric } from '../scoring/run/summary.ts';
import type { Interval } from '../model/geometry.ts';
import type { MetricSummary } from '../scoring/run/types.ts';

export const percent = (x: number, digits = 1): string => (Number.isFinite(x) ? `${(100 * x).toFixed(digits)}%` : '–');
export const decimal = (x: number, digits = 3): string => (Number.isFinite(x) ? x.toFixed(digits) : '–');

/**
 * A figure of a benchmark's own evaluator (NeuroVLM-Bench): shares and
 * scores as three decimals, a per-cent figure as per cent, a latency in ms;
 * the evaluator's NaN reads "no value", with the reason beside the table
 * (bench-no-value.ts): a column of "NaN" told a user nothing.
 */
export function benchFigure(x: unknown, kind: 'share' | 'percent' | 'ms' | 'number'): string {
  if (typeof x !== 'number') return '–';
  if (Number.isNaN(x)) return 'no value';
  if (kind === 'percent') return `${x.toFixed(1)}%`;
  if (kind === 'ms') return `${Math.round(x)} ms`;
  return x.toFixed(3);
}

/**
 * An agreement or correlation statistic (κ, α, r): "undefined" where the
 * formula has no value (0/0: one category only, no variation, too few
 * pairs), never a number that would read as agreement or its absence.
 */
export const statistic = (x: number): string => (Number.isFinite(x) ? x.toFixed(3) : 'undefined');

/** Why κ, α or r can be undefined, for a note under the figures. */
export const UNDEFINED_STATISTIC_NOTE =
  'κ, α and r are undefined (not 0, not 1) when their formula divides 0 by 0: every rating in the same category, no variation on one side, or fewer than two paired ratings.';

type Formatted = Pick<MetricSummary, 'ciMethod'> & Partial<Pick<MetricSummary, 'perSample'>>;

/**
 * A number of a metric summary: percent for proportions (Wilson intervals,
 * or a question-level interval whose per-sample view is Wilson), decimals
 * otherwise.
 */
export function metricNumber(m: Formatted, x: number): string {
  return m.ciMethod === 'wilson' || m.perSample?.ciMethod === 'wilson' ? percent(x) : decimal(x);
}

/** `lower–upper` of a summary's 95 % interval, or an en dash when there is none. */
export function metricInterval(m: Formatted & { readonly ci: Interval }): string {
  return Number.isFinite(m.ci.lower) ? `${metricNumber(m, m.ci.lower)}–${metricNumber(m, m.ci.upper)}` : '–';
}

/**
 * Which interval of a summary to show: clustered (the default: per question,
 * or per patient when slices share a patient key) or every sample as an item.
 */
export type IntervalUnit = 'question' | 'sample';

/** Resampled by patient: n counts patients. */
export const byPatient = (m: Pick<MetricSummary, 'ciMethod'>): boolean => m.ciMethod === 'patient-bootstrap';

/** `n=…` of a patient-level figure: patients, with the cases and answers beside. */
export function patientCount(patients: number, cases: number | undefined, answers: number | undefined): string {
  return `n=${count(patients, 'patient')} (${count(cases ?? 0, 'case')}, ${count(answers ?? 0, 'answer')})`;
}

/**
 * A summary's interval and count in one unit: the clustered figures (per
 * question, or per patient), or the per-sample view where the summary has one
 * (several samples per question, or by patient); a summary with one sample per
 * question and no shared patient reads the same in both.
 */
export function metricView(m: MetricSummary, unit: IntervalUnit = 'question'): { readonly interval: string; readonly count: string } {
  if (unit === 'sample' && m.perSample) {
    return { interval: metricInterval(m.perSample), count: `n=${m.perSample.n} ${byPatient(m) ? 'answers' : 'samples'}` };
  }
  if (byPatient(m)) return { interval: metricInterval(m), count: patientCount(m.n, m.cases, m.samples) };
  return { interval: metricInterval(m), count: m.samples === undefined ? `n=${m.n}` : `n=${m.n} questions (${m.samples} samples)` };
}

/** One answer's value of a metric: right / wrong for 0/1 metrics, decimals for the others. */
export function itemValue(metric: string | null, v: number | null): string {
  if (v === null) return 'not scorable';
  if (metric && isContinuousMetric(metric)) return decimal(v);
  return v === 1 ? 'right' : 'wrong';
}

/** `n=…` of a breakdown cell: answers, questions with their samples, or patients with their cases and answers. */
export function cellCount(c: { readonly n: number; readonly samples?: number; readonly by?: 'patient'; readonly cases?: number }): string {
  if (c.by === 'patient') return patientCount(c.n, c.cases, c.samples);
  return c.samples === undefined ? `n=${c.n}` : `n=${c.n} questions (${c.samples} samples)`;
}
