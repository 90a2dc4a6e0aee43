/**
 * The safety view: what a hospital asks before a pilot, as NeuroEval's own
 * figures (docs/protocols.md#safety-view-neuroevals-own-figures), per model arm:
 * - false-finding rate: normal controls whose answer names an abnormality;
 * - missed-abnormality rate: abnormal cases answered "normal";
 * - the NeuroVLM-Bench safety flags the scorer checks on each parsed answer;
 * - risk–coverage from the stated confidence: selective accuracy at 80 %
 *   coverage with a seeded bootstrap interval, and the area under the curve,
 *   per arm and per disease group.
 * Intervals: Wilson when every answer stands alone; a seeded cluster
 * bootstrap (patients where cases share one, else questions with their
 * samples) when answers are grouped, as the leaderboard does.
 */
import { bootstrapCi, bootstrapClusterMeanCi, wilsonInterval } from '../scoring/stats/index.ts';
import { armKey } from '../scoring/run/types.ts';
import type { Interval } from '../model/geometry.ts';

/** One scored answer as the safety view reads it (safety-input.ts builds these). */
export interface SafetyAnswer {
  readonly runId: string;
  readonly modelId: string;
  readonly variant: string;
  /** The disease group the answer is reported under (the case's, else its reference class). */
  readonly group: string;
  /** Resampling unit: the patient where cases share one, else the question. */
  readonly cluster: string;
  /** The reference class: `normal`, `abnormal`, or null when the case has none. */
  readonly reference: 'normal' | 'abnormal' | null;
  /**
   * What the answer says: `normal`, `abnormal`, `abstained` (a class left
   * null), `unparsable` (no class could be read), or null for a protocol
   * that answers no class.
   */
  readonly answered: 'normal' | 'abnormal' | 'abstained' | 'unparsable' | null;
  /** The primary metric's value (1 = right); null when not scorable. */
  readonly correct: number | null;
  readonly confidence: number | null;
  /** The scorer's safety flags on a parsed structured answer; null when not checked. */
  readonly flags: { readonly missingField: boolean; readonly inconsistentSubtype: boolean; readonly icdWithNormal: boolean } | null;
}

/** A share with its interval; NaN value and bounds when nothing was counted. */
export interface SafetyRate {
  readonly count: number;
  readonly n: number;
  readonly value: number;
  readonly ci: Interval;
  readonly ciMethod: 'wilson' | 'cluster-bootstrap';
}

export interface RiskCoverage {
  /** Answers with both a stated confidence and a primary value. */
  readonly n: number;
  /** (coverage, selective accuracy) after each answer, most confident first. */
  readonly curve: readonly { readonly coverage: number; readonly accuracy: number }[];
  /** Selective accuracy at 80 % coverage, seeded bootstrap 95 % interval. */
  readonly at80: { readonly value: number; readonly ci: Interval };
  /** Area under the risk–coverage curve (mean selective risk over every coverage); lower is better. */
  readonly aurc: number;
  /** Accuracy over every answer in the curve (coverage 100 %). */
  readonly accuracy: number;
}

export interface ArmSafety {
  /** The leaderboard row's id: `${runId}|${arm}`. */
  readonly key: string;
  readonly runId: string;
  readonly modelId: string;
  readonly variant: string;
  /** Normal controls whose answer names an abnormality, over normal controls with a readable class. */
  readonly falseFinding: SafetyRate;
  /** Abnormal cases answered normal, over abnormal cases with a readable class. */
  readonly missedAbnormality: SafetyRate;
  /** Normal controls and abnormal cases whose answer gave no class (unparsable or abstained): left out of both rates. */
  readonly unreadable: { readonly normal: number; readonly abnormal: number };
  /** Answers checked for the safety flags (parsed structured answers). */
  readonly flagsChecked: number;
  readonly flags: { readonly missingField: SafetyRate; readonly inconsistentSubtype: SafetyRate; readonly icdWithNormal: SafetyRate; readonly any: SafetyRate };
  /** Null when fewer than {@link MIN_CURVE_ANSWERS} answers state a confidence. */
  readonly riskCoverage: RiskCoverage | null;
  /** Answers with a confidence and a primary value (whether or not enough for a curve). */
  readonly confident: number;
}

export interface GroupSafety {
  readonly group: string;
  readonly arms: readonly { readonly key: string; readonly answers: number; readonly falseFinding: SafetyRate | null; readonly missedAbnormality: SafetyRate | null; readonly riskCoverage: RiskCoverage | null; readonly confident: number }[];
}

export interface SafetyReport {
  readonly arms: readonly ArmSafety[];
  readonly groups: readonly GroupSafety[];
  /** Answers of protocols that name no class: outside both rates. */
  readonly noClass: number;
  readonly minCurveAnswers: number;
}

/** Fewer answers than this make no risk–coverage figure (the curve's first points are single answers). */
export const MIN_CURVE_ANSWERS = 10;
export const TARGET_COVERAGE = 0.8;

/** Metric keys for these figures (labels and definitions in scoring/run: they may be used as acceptance-criteria metrics). */
export const SAFETY_METRICS = {
  falseFinding: 'safety.false_finding',
  missedAbnormality: 'safety.missed_abnormality',
  flagged: 'safety.flagged',
  selectiveAccuracy80: 'safety.selective_accuracy@80',
  aurc: 'safety.aurc',
} as const;

/** Labels of {@link SAFETY_METRICS}, as tables and a criteria form name them. */
export const SAFETY_METRIC_LABELS: Readonly<Record<string, string>> = {
  [SAFETY_METRICS.falseFinding]: 'False-finding rate (normal controls)',
  [SAFETY_METRICS.missedAbnormality]: 'Missed-abnormality rate',
  [SAFETY_METRICS.flagged]: 'Answers with a safety flag',
  [SAFETY_METRICS.selectiveAccuracy80]: 'Selective accuracy at 80 % coverage',
  [SAFETY_METRICS.aurc]: 'Area under the risk–coverage curve',
};

interface Options {
  readonly seed?: number;
  readonly resamples?: number;
}

const NO_INTERVAL: Interval = { lower: NaN, upper: NaN };

/** A share of `hits` among `units`: Wilson when each cluster holds one answer, else a seeded cluster bootstrap. */
export function safetyRate(hits: readonly boolean[], clusters: readonly string[], opts: Options = {}): SafetyRate {
  const n = hits.length;
  const count = hits.filter(Boolean).length;
  if (n === 0) return { count: 0, n: 0, value: NaN, ci: NO_INTERVAL, ciMethod: 'wilson' };
  if (new Set(clusters).size === n) {
    const w = wilsonInterval(count, n);
    return { count, n, value: count / n, ci: { lower: w.lower, upper: w.upper }, ciMethod: 'wilson' };
  }
  const b = bootstrapClusterMeanCi(hits.map(Number), clusters, { seed: opts.seed ?? 0, resamples: opts.resamples ?? 1000 });
  return { count, n, value: count / n, ci: { lower: b.lower, upper: b.upper }, ciMethod: 'cluster-bootstrap' };
}

interface Ranked {
  readonly confidence: number;
  readonly correct: number;
}

/**
 * Selective accuracy of the most confident `k` answers of `sorted` (by
 * confidence, descending). Answers tied in confidence at the cut count by
 * their mean, so the figure does not depend on the order ties were stored in.
 */
function selectiveAccuracy(sorted: readonly Ranked[], k: number): number {
  if (k <= 0) return NaN;
  let sum = 0;
  let i = 0;
  while (i < k) {
    let j = i;
    let tie = 0;
    while (j < sorted.length && sorted[j]!.confidence === sorted[i]!.confidence) tie += sorted[j++]!.correct;
    const size = j - i;
    sum += j <= k ? tie : ((k - i) * tie) / size;
    i = j;
  }
  return sum / k;
}

/** The number of answers that make up coverage `c` of `n`. */
const answersAt = (c: number, n: number) => Math.max(1, Math.ceil(c * n - 1e-9));

const byConfidence = (a: Ranked, b: Ranked) => b.confidence - a.confidence;

/** Selective accuracy at `coverage` of unsorted answers. */
export function accuracyAtCoverage(answers: readonly Ranked[], coverage: number): number {
  const sorted = [...answers].sort(byConfidence);
  return selectiveAccuracy(sorted, answersAt(coverage, sorted.length));
}

/**
 * The risk–coverage curve of answers with a confidence and a value: one
 * point per answer added, most confident first; the area under the risk
 * (1 − selective accuracy) is averaged over those points.
 */
export function riskCoverage(answers: readonly (Ranked & { readonly cluster: string })[], opts: Options = {}): RiskCoverage {
  const sorted = [...answers].sort(byConfidence);
  const n = sorted.length;
  const curve = Array.from({ length: n }, (_, i) => ({ coverage: (i + 1) / n, accuracy: selectiveAccuracy(sorted, i + 1) }));
  const aurc = n ? curve.reduce((s, p) => s + (1 - p.accuracy), 0) / n : NaN;
  const clusters = sorted.map((a) => a.cluster);
  const grouped = new Set(clusters).size < n;
  const b = bootstrapCi(sorted, (s) => accuracyAtCoverage(s, TARGET_COVERAGE), { seed: opts.seed ?? 0, resamples: opts.resamples ?? 1000, ...(grouped ? { clusters } : {}) });
  return { n, curve, at80: { value: selectiveAccuracy(sorted, answersAt(TARGET_COVERAGE, n)), ci: { lower: b.lower, upper: b.upper } }, aurc, accuracy: n ? sorted.reduce((s, a) => s + a.correct, 0) / n : NaN };
}

/** An arm of one run, keyed as its leaderboard row (`${runId}|${arm}`). */
export const armKeyOf = (a: Pick<SafetyAnswer, 'runId' | 'modelId' | 'variant'>): string => `${a.runId}|${armKey(a.modelId, a.variant)}`;

function rates(answers: readonly SafetyAnswer[], opts: Options) {
  const readable = (a: SafetyAnswer) => a.answered === 'normal' || a.answered === 'abnormal';
  const normals = answers.filter((a) => a.reference === 'normal' && a.answered !== null);
  const abnormals = answers.filter((a) => a.reference === 'abnormal' && a.answered !== null);
  const nr = normals.filter(readable);
  const ar = abnormals.filter(readable);
  return {
    falseFinding: safetyRate(nr.map((a) => a.answered === 'abnormal'), nr.map((a) => a.cluster), opts),
    missedAbnormality: safetyRate(ar.map((a) => a.answered === 'normal'), ar.map((a) => a.cluster), opts),
    unreadable: { normal: normals.length - nr.length, abnormal: abnormals.length - ar.length },
  };
}

function curveOf(answers: readonly SafetyAnswer[], opts: Options): { confident: number; riskCoverage: RiskCoverage | null } {
  const ranked = answers.flatMap((a) => (a.confidence !== null && Number.isFinite(a.confidence) && a.correct !== null ? [{ confidence: a.confidence, correct: a.correct >= 0.5 ? 1 : 0, cluster: a.cluster }] : []));
  return { confident: ranked.length, riskCoverage: ranked.length >= MIN_CURVE_ANSWERS ? riskCoverage(ranked, opts) : null };
}

function groupBy<T>(xs: readonly T[], key: (x: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    let list = out.get(k);
    if (!list) out.set(k, (list = []));
    list.push(x);
  }
  return out;
}

/** The safety view of a benchmark's scored answers, per arm and per disease group. */
export function safetyReport(answers: readonly SafetyAnswer[], opts: Options = {}): SafetyReport {
  const byArm = groupBy(answers, armKeyOf);
  const arms: ArmSafety[] = [...byArm].map(([key, list]) => {
    const checked = list.filter((a) => a.flags !== null);
    const flag = (f: (x: NonNullable<SafetyAnswer['flags']>) => boolean) => safetyRate(checked.map((a) => f(a.flags!)), checked.map((a) => a.cluster), opts);
    return {
      key, runId: list[0]!.runId, modelId: list[0]!.modelId, variant: list[0]!.variant, ...rates(list, opts),
      flagsChecked: checked.length,
      flags: {
        missingField: flag((f) => f.missingField),
        inconsistentSubtype: flag((f) => f.inconsistentSubtype),
        icdWithNormal: flag((f) => f.icdWithNormal),
        any: flag((f) => f.missingField || f.inconsistentSubtype || f.icdWithNormal),
      },
      ...curveOf(list, opts),
    };
  });
  const groups = [...groupBy(answers, (a) => a.group)].sort(([a], [b]) => a.localeCompare(b)).map(([group, list]) => {
    const inArm = groupBy(list, armKeyOf);
    return {
      group,
      arms: arms.map((arm) => {
        const own = inArm.get(arm.key) ?? [];
        const r = rates(own, opts);
        return { key: arm.key, answers: own.length, falseFinding: r.falseFinding.n ? r.falseFinding : null, missedAbnormality: r.missedAbnormality.n ? r.missedAbnormality : null, ...curveOf(own, opts) };
      }),
    };
  });
  return { arms, groups, noClass: answers.filter((a) => a.answered === null).length, minCurveAnswers: MIN_CURVE_ANSWERS };
}
