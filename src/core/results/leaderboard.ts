/**
 * The results of one benchmark, as a committee reads them: a leaderboard of
 * every model (arm) of every scored run with its metrics and 95 % intervals,
 * model-vs-model tests on the same items, breakdowns by case attributes and
 * variant, and the series the charts draw. Pure functions over score sets
 * and their item rows; the results worker runs them.
 */
import type { BenchCase } from '../bundle/types.ts';
import type { RunRecord } from '../runner/records.ts';
import type { ScoreRecord, ScoreSetRecord } from '../scoring/run/records.ts';
import { reliabilityPoints, type ReliabilityPoint } from '../scoring/metrics/calibration.ts';
import { answerClusters, isContinuousMetric, metricLabel, questionKey } from '../scoring/run/summary.ts';
import type { CaseLookup } from '../scoring/run/patients.ts';
import { armKey, type ArmSummary, type MetricSummary, type QuestionIdentity, type UnavailableMetric } from '../scoring/run/types.ts';
import type { Interval } from '../model/geometry.ts';
import { bootstrapClusterMeanCi, bootstrapMeanCi, pairedBootstrapMean } from '../scoring/stats/bootstrap.ts';
import { mcnemar } from '../scoring/stats/mcnemar.ts';
import { wilsonInterval } from '../scoring/stats/wilson.ts';
import type { IntervalUnit } from './format.ts';
import { rowModelName } from './model-names.ts';
import { TECHNICAL_LABELS, TECHNICAL_TAGS, technicalDimensionsOf, technicalGroup, technicalRank, type TechnicalDimension } from './technical-tags.ts';

/** One scored run: its record, its current score set and that set's rows. */
export interface ScoredRun {
  /** `modelNames`: what people read for each model id, from the run's provenance (a reader's name, an imported model's label). */
  readonly run: Pick<RunRecord, 'id' | 'name' | 'benchmarkId' | 'status' | 'createdAt'> & { readonly modelNames?: Readonly<Record<string, string>> };
  readonly set: ScoreSetRecord;
  readonly items: readonly ScoreRecord[];
}

/**
 * What paired tests and breakdowns read of an answer: its identity and metric
 * values. A stored score row is one; so is a row rebuilt from a results
 * digest (`digest.ts`), which carries only the metric asked for.
 */
export type ScoredItem = Pick<ScoreRecord, 'caseId' | 'questionId' | 'sample' | 'modelId' | 'variant' | 'protocolId'> & {
  readonly metrics: Readonly<Record<string, { readonly value: number | null } | undefined>>;
};

/** A run's answers as tests and breakdowns read them. */
export interface ScoredItems {
  /** `modelNames` as on {@link ScoredRun}: series of breakdowns are named in words. */
  readonly run: Pick<RunRecord, 'id' | 'name'> & { readonly modelNames?: Readonly<Record<string, string>> };
  readonly items: readonly ScoredItem[];
}

/** The case fields breakdowns group by (a stored case, or the slim copy a results digest keeps). */
export type BreakdownCase = Pick<BenchCase, 'split' | 'taskFamily' | 'diseaseGroup' | 'modality' | 'sequences' | 'meta'> & {
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
  /** The arm's decode speed (ArmSummary.decodeTokensPerS); NaN where not measured. */
  readonly decodeTokensPerS: number;
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
        responses: arm.responses, failed: arm.failed, metrics, ...(arm.unavailable?.length ? { unavailable: arm.unavailable } : {}), medianLatencyMs: arm.medianLatencyMs, decodeTokensPerS: arm.decodeTokensPerS ?? NaN,
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

// ── Model-vs-model tests ─────────────────────────────────────────────────────

/**
 * How a question's samples are summarised before a paired test when some
 * question has several: a 0/1 metric by the majority (right in more than half
 * of its scored samples; a tie is not a majority), any other metric by the
 * mean of its samples. With one sample per question both are that sample.
 */
export type PerQuestionSummary = 'majority-correct' | 'mean-of-samples';

export const PER_QUESTION_SUMMARY_LABELS: Readonly<Record<PerQuestionSummary, string>> = {
  'majority-correct': 'a question counts as right when more than half of its samples are right',
  'mean-of-samples': 'a question scores the mean of its samples',
};

/** The same summaries one level up, when tests pair patients: over every answer of the patient's shared questions. */
export const PER_PATIENT_SUMMARY_LABELS: Readonly<Record<PerQuestionSummary, string>> = {
  'majority-correct': 'a patient counts as right when more than half of their answers are right',
  'mean-of-samples': 'a patient scores the mean of their answers',
};

/** How a comparison summarised its units before testing, in words; null when each unit was one answer. */
export function comparisonSummary(c: Pick<Comparison, 'perQuestion' | 'perPatient'>): string | null {
  if (c.perPatient) return PER_PATIENT_SUMMARY_LABELS[c.perPatient];
  return c.perQuestion ? PER_QUESTION_SUMMARY_LABELS[c.perQuestion] : null;
}

export interface Comparison {
  readonly a: string;
  readonly b: string;
  readonly metric: string;
  /** Units both rows have a value for: questions (patients when `by` is `patient`), or samples in the per-sample view. */
  readonly n: number;
  readonly unit: IntervalUnit;
  /** Set when the shared questions' cases share a patient key: the test pairs patients (n counts them). */
  readonly by?: 'patient';
  /** Paired by patient: the shared questions and cases behind the patients. */
  readonly questions?: number;
  readonly cases?: number;
  /** Set when some paired question had several samples: how they were summarised per question. */
  readonly perQuestion?: PerQuestionSummary;
  /** Paired by patient: how each patient's answers were summarised (over every answer of its shared questions). */
  readonly perPatient?: PerQuestionSummary;
  /** mean(A) − mean(B) of what was tested on those units (per-question summaries, or samples). */
  readonly difference: number;
  readonly pValue: number;
  readonly method: 'mcnemar-exact' | 'mcnemar-chi2' | 'paired-bootstrap';
  /** 95 % interval of the difference (paired bootstrap), when computed. */
  readonly ci?: Interval;
}

/** The key two models share in one unit: the question (any sample), or the question and sample; any variant pairs with any. */
function pairKey(it: Pick<ScoredItem, 'caseId' | 'questionId' | 'sample'>, unit: IntervalUnit): string {
  return unit === 'question' ? questionKey(it) : `${questionKey(it)}|s${it.sample}`;
}

/** Per row, the values of each unit (a question's samples, or one sample), in first-seen order. */
function valuesByRow(runs: readonly ScoredItems[], metric: string, unit: IntervalUnit): Map<string, Map<string, number[]>> {
  const out = new Map<string, Map<string, number[]>>();
  for (const { run, items } of runs) {
    for (const it of items) {
      const v = it.metrics[metric]?.value;
      if (v === null || v === undefined) continue;
      const key = rowId(run.id, { key: armKey(it.modelId, it.variant) });
      let m = out.get(key);
      if (!m) out.set(key, (m = new Map()));
      const k = pairKey(it, unit);
      const list = m.get(k);
      if (list && unit === 'question') list.push(v);
      else m.set(k, [v]);
    }
  }
  return out;
}

/**
 * One question's samples → one value for the paired test. McNemar needs one
 * right/wrong per question; the majority uses every sample (unlike the first
 * sample alone, which throws the others away and depends on which sample
 * failed), does not depend on sample order, and works when the two models
 * have different numbers of samples. A tie (half right) is not a majority,
 * so a question is right only when the model is right more often than not.
 */
function perQuestionValue(values: readonly number[], continuous: boolean): number {
  if (values.length === 1) return values[0]!;
  const sum = values.reduce((s, x) => s + x, 0);
  if (continuous) return sum / values.length;
  return 2 * sum > values.length ? 1 : 0;
}

/**
 * The shared questions of two rows grouped by patient, when their cases share
 * a patient key: each patient's answers (every sample of every shared
 * question) pooled per row, so both rows are summarised on the same questions.
 */
function pairPatients(A: Map<string, number[]>, B: Map<string, number[]>, questionOf: ReadonlyMap<string, QuestionIdentity>, cases: CaseLookup): { a: number[][]; b: number[][]; questions: number; cases: number } | null {
  const shared = [...A.keys()].filter((k) => B.has(k));
  // Each shared key is one question, so its answers cluster only by patient.
  const clusters = answerClusters(shared.map((k) => questionOf.get(k)!), cases);
  if (clusters?.by !== 'patient') return null;
  const byPatient = new Map<string, { a: number[]; b: number[] }>();
  shared.forEach((k, i) => {
    const p = clusters.ids[i]!;
    let g = byPatient.get(p);
    if (!g) byPatient.set(p, (g = { a: [], b: [] }));
    g.a.push(...A.get(k)!);
    g.b.push(...B.get(k)!);
  });
  const groups = [...byPatient.values()];
  return { a: groups.map((g) => g.a), b: groups.map((g) => g.b), questions: shared.length, cases: clusters.cases };
}

/**
 * Every pair of rows on one metric, paired on the units both answered:
 * McNemar (exact below 25 discordant pairs) for 0/1 metrics, a seeded paired
 * bootstrap of the mean difference otherwise. By default the unit is the
 * question: a question with several samples is one unit, summarised as
 * {@link perQuestionValue} says (the comparison states it in `perQuestion`).
 * `unit: 'sample'` is the per-sample view: sample s of A paired with sample s
 * of B, each pair an independent item. With one sample per question both
 * units give the same figures. With `cases`, when the shared questions'
 * cases share a patient key (patients.ts), the unit is the patient: each
 * patient's answers summarised as one value the same way (`perPatient`).
 */
export function compareRows(runs: readonly ScoredItems[], metric: string, options: { seed?: number; resamples?: number; unit?: IntervalUnit; cases?: CaseLookup } = {}): Comparison[] {
  const unit = options.unit ?? 'question';
  const byRow = valuesByRow(runs, metric, unit);
  const questionOf = unit === 'question' && options.cases ? new Map(runs.flatMap((r) => r.items.map((it) => [questionKey(it), it] as const))) : null;
  const ids = [...byRow.keys()];
  const out: Comparison[] = [];
  const continuous = isContinuousMetric(metric);
  for (let i = 0; i < ids.length; i++) {
    for (let j = i + 1; j < ids.length; j++) {
      const A = byRow.get(ids[i]!)!;
      const B = byRow.get(ids[j]!)!;
      const a: number[] = [];
      const b: number[] = [];
      let several = false;
      const patients = questionOf && options.cases ? pairPatients(A, B, questionOf, options.cases) : null;
      const units = patients ? patients.a.map((v, k) => [v, patients.b[k]!] as const) : [...A].flatMap(([k, v]) => (B.has(k) ? [[v, B.get(k)!] as const] : []));
      for (const [v, w] of units) {
        a.push(perQuestionValue(v, continuous));
        b.push(perQuestionValue(w, continuous));
        if (v.length > 1 || w.length > 1) several = true;
      }
      if (a.length === 0) continue;
      const difference = a.reduce((s, x) => s + x, 0) / a.length - b.reduce((s, x) => s + x, 0) / b.length;
      const summary = continuous ? ('mean-of-samples' as const) : ('majority-correct' as const);
      const stated = patients
        ? { unit, by: 'patient' as const, questions: patients.questions, cases: patients.cases, ...(several ? { perPatient: summary } : {}) }
        : { unit, ...(several ? { perQuestion: summary } : {}) };
      if (continuous) {
        const r = pairedBootstrapMean(a, b, { seed: options.seed ?? 0, resamples: options.resamples ?? 1000 });
        out.push({ a: ids[i]!, b: ids[j]!, metric, n: a.length, ...stated, difference, pValue: r.pValue, method: 'paired-bootstrap', ci: { lower: r.lower, upper: r.upper } });
      } else {
        const r = mcnemar(a.map((x) => x === 1), b.map((x) => x === 1));
        out.push({ a: ids[i]!, b: ids[j]!, metric, n: a.length, ...stated, difference, pValue: r.pValue, method: r.method === 'exact-binomial' ? 'mcnemar-exact' : 'mcnemar-chi2' });
      }
    }
  }
  return out;
}

/** The comparison of two rows, whichever order it was computed in (difference as a − b). */
export function comparisonOf(comparisons: readonly Comparison[], a: string, b: string): Comparison | undefined {
  const direct = comparisons.find((c) => c.a === a && c.b === b);
  if (direct) return direct;
  const flipped = comparisons.find((c) => c.a === b && c.b === a);
  return flipped && { ...flipped, a, b, difference: -flipped.difference, ...(flipped.ci ? { ci: { lower: -flipped.ci.upper, upper: -flipped.ci.lower } } : {}) };
}

// ── Breakdowns ───────────────────────────────────────────────────────────────

/** Dimensions every benchmark has; the technical ones (technical-tags.ts) come after them when cases carry the tags. */
const CASE_DIMENSIONS = ['split', 'taskFamily', 'diseaseGroup', 'modality', 'sequence', 'plane', 'variant', 'protocol'] as const;
export type Dimension = (typeof CASE_DIMENSIONS)[number] | TechnicalDimension;

export const DIMENSION_LABELS: Readonly<Record<Dimension, string>> = {
  split: 'Split / level', taskFamily: 'Task family', diseaseGroup: 'Disease group', modality: 'Modality', sequence: 'Sequence', plane: 'Plane', variant: 'Variant', protocol: 'Protocol',
  ...TECHNICAL_LABELS,
};

const isTechnical = (d: Dimension): d is TechnicalDimension => d in TECHNICAL_TAGS;

/** The dimensions worth offering for these cases: every case dimension, and each technical one some case has a tag for. */
export function dimensionsFor(cases: Iterable<Pick<BenchCase, 'meta'>>): Dimension[] {
  return [...CASE_DIMENSIONS, ...technicalDimensionsOf(cases)];
}

interface Cell {
  readonly value: number;
  readonly lower: number;
  readonly upper: number;
  /** Answers; with several samples per question (question unit), questions; by patient, patients. */
  readonly n: number;
  /** With several samples per question, or by patient: the sampled answers (n counts questions or patients). */
  readonly samples?: number;
  /** Set when the group's cases share a patient key: the interval resamples patients and n counts them. */
  readonly by?: 'patient';
  /** By patient: the cases behind the patients. */
  readonly cases?: number;
}

export interface Breakdown {
  readonly dimension: Dimension;
  readonly metric: string;
  /** Series: leaderboard rows, or models (run + model) for the variant dimension. */
  readonly series: readonly { readonly id: string; readonly label: string }[];
  readonly groups: readonly string[];
  /** cells[group][series]; null = no item of that series in that group. */
  readonly cells: readonly (readonly (Cell | null)[])[];
}

function dimensionValue(dim: Dimension, it: ScoredItem, kase: BreakdownCase | undefined): string {
  const first = kase?.images[0];
  switch (dim) {
    case 'variant': return it.variant;
    case 'protocol': return it.protocolId;
    case 'split': return kase?.split ?? '(none)';
    case 'taskFamily': return kase?.taskFamily ?? '(unknown)';
    case 'diseaseGroup': return kase?.diseaseGroup ?? '(none)';
    case 'modality': return kase?.modality ?? '(none)';
    case 'sequence': return kase?.sequences?.[0] ?? first?.sequence ?? '(none)';
    case 'plane': return String(first?.plane ?? '(none)');
    default: return technicalGroup(dim, kase?.meta);
  }
}

/**
 * A group's mean and interval; as the arm summaries do, several samples of a
 * question resample together (`unit: 'question'`), and so do the cases of a
 * patient when the group's cases share a patient key.
 */
function cellOf(values: readonly number[], answers: readonly QuestionIdentity[], cases: CaseLookup, continuous: boolean, unit: IntervalUnit, seed = 0, resamples = 1000): Cell | null {
  if (values.length === 0) return null;
  const sum = values.reduce((a, b) => a + b, 0);
  const clusters = unit === 'question' ? answerClusters(answers, cases) : null;
  if (clusters) {
    const b = bootstrapClusterMeanCi(values, clusters.ids, { seed, resamples });
    const patients = clusters.by === 'patient' ? { by: 'patient' as const, cases: clusters.cases } : {};
    return { value: sum / values.length, lower: b.lower, upper: b.upper, n: clusters.n, samples: values.length, ...patients };
  }
  if (continuous) {
    const b = bootstrapMeanCi(values, { seed, resamples });
    return { value: sum / values.length, lower: b.lower, upper: b.upper, n: values.length };
  }
  const w = wilsonInterval(sum, values.length);
  return { value: sum / values.length, lower: w.lower, upper: w.upper, n: values.length };
}

/** Mean and 95 % interval of `metric` per group of `dimension`, for every row (or model, for variants). */
export function breakdown(runs: readonly ScoredItems[], cases: ReadonlyMap<string, BreakdownCase>, dimension: Dimension, metric: string, options: { seed?: number; resamples?: number; unit?: IntervalUnit } = {}): Breakdown {
  const continuous = isContinuousMetric(metric);
  const answers = new Map<string, ScoredItem[]>();
  const seriesIds: string[] = [];
  const seriesLabels = new Map<string, string>();
  const groups: string[] = [];
  const values = new Map<string, number[]>();
  for (const { run, items } of runs) {
    for (const it of items) {
      const v = it.metrics[metric]?.value;
      if (v === null || v === undefined) continue;
      const arm = armKey(it.modelId, it.variant);
      const sid = dimension === 'variant' ? `${run.id}|${it.modelId}` : rowId(run.id, { key: arm });
      if (!seriesLabels.has(sid)) {
        seriesIds.push(sid);
        const modelName = run.modelNames?.[it.modelId];
        // What people read: the model's name (with its variant in words), never the stored key.
        seriesLabels.set(sid, dimension === 'variant' ? rowModelName({ modelId: it.modelId, variant: 'none', ...(modelName ? { modelName } : {}) }) : rowModelName({ modelId: it.modelId, variant: it.variant, ...(modelName ? { modelName } : {}) }));
      }
      const g = dimensionValue(dimension, it, cases.get(it.caseId));
      if (!groups.includes(g)) groups.push(g);
      const key = `${g}\u0000${sid}`;
      const list = values.get(key);
      if (list) list.push(v);
      else values.set(key, [v]);
      const a = answers.get(key);
      if (a) a.push(it);
      else answers.set(key, [it]);
    }
  }
  // Variants in a natural order (none, text-only, then degradations by kind and severity); technical groups by
  // their own order (tesla, thickness bins, untagged last); others alphabetically.
  const rank = (g: string) => (dimension === 'variant' ? variantRank(g) : isTechnical(dimension) ? technicalRank(dimension, g) : 0);
  groups.sort((a, b) => rank(a) - rank(b) || (dimension === 'variant' ? a.localeCompare(b) : a.localeCompare(b, 'en', { numeric: true })));
  const runNames = new Map(runs.map((r) => [r.run.id, r.run.name]));
  const dupLabels = new Map<string, number>();
  for (const id of seriesIds) dupLabels.set(seriesLabels.get(id)!, (dupLabels.get(seriesLabels.get(id)!) ?? 0) + 1);
  return {
    dimension,
    metric,
    series: seriesIds.map((id) => {
      const label = seriesLabels.get(id)!;
      return { id, label: (dupLabels.get(label) ?? 0) > 1 ? `${label} · ${runNames.get(id.split('|')[0]!) ?? ''}` : label };
    }),
    groups,
    cells: groups.map((g) => seriesIds.map((sid) => {
      const key = `${g}\u0000${sid}`;
      return cellOf(values.get(key) ?? [], answers.get(key) ?? [], cases, continuous, options.unit ?? 'question', options.seed ?? 0, options.resamples ?? 1000);
    })),
  };
}

function variantRank(v: string): number {
  if (v === 'none') return 0;
  if (v === 'text-only') return 1;
  return 2;
}

// ── Chart series ─────────────────────────────────────────────────────────────

/** Reliability bins of a row from its answers' stated confidence and primary 0/1 outcome. */
export function rowReliability(run: Pick<ScoredRun, 'items'>, row: Pick<LeaderboardRow, 'modelId' | 'variant'>): ReliabilityPoint[] {
  const conf: number[] = [];
  const correct: boolean[] = [];
  for (const it of run.items) {
    if (it.modelId !== row.modelId || it.variant !== row.variant || it.confidence === null || !it.primary) continue;
    const v = it.metrics[it.primary]?.value;
    if (v !== 0 && v !== 1) continue;
    conf.push(it.confidence);
    correct.push(v === 1);
  }
  return conf.length ? reliabilityPoints(conf, correct) : [];
}

export interface DegradationCurve {
  readonly modelId: string;
  readonly runId: string;
  readonly label: string;
  readonly kind: string;
  /** Severity 0 = no degradation. */
  readonly accuracy: readonly { readonly x: number; readonly y: number }[];
  readonly shift: readonly { readonly x: number; readonly y: number }[];
}

/** Accuracy (primary 0/1 metric) and calibration shift by severity, per model and degradation kind. */
export function degradationCurves(runs: readonly ScoredRun[]): DegradationCurve[] {
  const out: DegradationCurve[] = [];
  for (const { run, set, items } of runs) {
    const acc = new Map<string, { n: number; hits: number }>();
    const kinds = new Map<string, Set<string>>();
    for (const it of items) {
      const v = it.primary ? it.metrics[it.primary]?.value : null;
      if (v !== 0 && v !== 1) continue;
      const m = /^degrade:([^:]+):(\d+)$/.exec(it.variant);
      const entries = m ? [[m[1]!, Number(m[2])] as const] : it.variant === 'none' ? [['*', 0] as const] : [];
      for (const [kind, sev] of entries) {
        const key = `${it.modelId}\u0000${kind}\u0000${sev}`;
        const a = acc.get(key) ?? { n: 0, hits: 0 };
        a.n++;
        if (v === 1) a.hits++;
        acc.set(key, a);
        if (kind !== '*') kinds.set(it.modelId, (kinds.get(it.modelId) ?? new Set()).add(kind));
      }
    }
    for (const [modelId, ks] of kinds) {
      for (const kind of ks) {
        const points: { x: number; y: number }[] = [];
        const base = acc.get(`${modelId}\u0000*\u00000`);
        if (base) points.push({ x: 0, y: base.hits / base.n });
        for (const sev of [1, 2, 3]) {
          const a = acc.get(`${modelId}\u0000${kind}\u0000${sev}`);
          if (a) points.push({ x: sev, y: a.hits / a.n });
        }
        const shift = set.summary.calibrationShift.find((c) => c.modelId === modelId && c.kind === kind);
        out.push({
          modelId, runId: run.id, label: `${modelId} · ${kind}`, kind, accuracy: points,
          shift: (shift?.levels ?? []).map((l) => ({ x: Number(l.severity), y: l.shift })),
        });
      }
    }
  }
  return out;
}
