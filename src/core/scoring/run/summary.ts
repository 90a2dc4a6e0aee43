/**
 * Item scores → per-arm summaries (model × variant) with 95 % intervals:
 * Wilson for 0/1 metrics, a seeded percentile bootstrap for the others, and
 * with several samples per question a seeded cluster bootstrap over
 * questions (the per-sample figures kept beside it), and when slices share a
 * patient (patients.ts) a seeded cluster bootstrap over patients,
 * pass@k over samples with the unbiased estimator, MediConfusion set score,
 * the full NeuroVLM-Bench report, and calibration shift by degradation
 * severity.
 */
import type { BenchCase } from '../../bundle/types.ts';
import { calibrationShift, type DegradedItem } from '../metrics/calibration-shift.ts';
import { pairedSetScore, type McqPair } from '../metrics/mcq.ts';
import { passAtKUnbiased } from '../metrics/passk.ts';
import { neuroVlmItemsFromRun, type ScorableResponse } from '../neurovlm/items.ts';
import { scoreNeuroVlm } from '../neurovlm/score.ts';
import { neuroVlmBenchForRun } from '../neurovlm/evaluator/index.ts';
import type { NeuroVlmBenchBreakdown } from '../neurovlm/evaluator/types.ts';
import { bootstrapCi, bootstrapClusterMeanCi, bootstrapMeanCi } from '../stats/bootstrap.ts';
import { wilsonInterval } from '../stats/wilson.ts';
import { countPatients, patientCluster, sharesPatients, type CaseLookup } from './patients.ts';
import { addTally, answerTally, decodeSpeed, NO_DECODE } from '../../runner/decode-speed.ts';
import { unavailableMetrics } from './unavailable.ts';
import { armKey, type ArmSummary, type CalibrationShiftSummary, type ItemScore, type MetricSource, type MetricSummary, type QuestionIdentity } from './types.ts';

/** Human labels, in the order summaries list metrics. */
const METRIC_LABELS: Readonly<Record<string, string>> = {
  'neurovlm.diagnosis_name': 'Class (diagnosis_name)',
  'mcq.correct': 'Multiple-choice accuracy',
  'mcq.set': 'Paired set score',
  'mcq.invalid': 'Invalid answers (MCQ)',
  'pass@1': 'pass@1',
  'pass@5': 'pass@5',
  'pass@1 (samples)': 'pass@1 over samples (unbiased)',
  'pass@5 (samples)': 'pass@5 over samples (unbiased)',
  'lesion.all': 'Lesion: all fields',
  'lesion.type': 'Lesion type',
  'lesion.location': 'Lesion location',
  'lesion.laterality': 'Lesion laterality',
  'lesion.sequence': 'Lesion sequence',
  rubric: 'Rubric points',
  'short.exact': 'Short answer: exact match',
  'short.exact.closed': 'Short answer: exact match, closed questions',
  'short.exact.open': 'Short answer: exact match, open questions',
  'short.recall.open': 'Short answer: token recall, open questions',
  'numeric.correct': 'Number correct',
  'numeric.correct.any': 'Number correct, read anywhere in the reply',
  'numeric.match': 'Number matches the reference (own rule, no MedCalc-Bench calculator)',
  'numeric.match.any': 'Number matches the reference, read anywhere in the reply',
  'numeric.found': 'Number found in the answer',
  'box.acc50': 'Box accuracy (IoU ≥ 0.5)',
  'box.iou': 'Box IoU',
  'bertscore.f': 'BERTScore F',
  'bertscore.p': 'BERTScore P',
  'bertscore.r': 'BERTScore R',
  cosine: 'Sentence cosine',
  rougeL: 'ROUGE-L F',
  rouge1: 'ROUGE-1 F',
  rouge2: 'ROUGE-2 F',
  rougeLsum: 'ROUGE-Lsum F',
  token_f1: 'Token F1 (SQuAD)',
  correct: 'Correct diagnosis (open answer)',
  json_valid: 'JSON valid',
  'neurovlm.diagnosis_detailed': 'Subtype (diagnosis_detailed)',
  'neurovlm.modality': 'Modality',
  'neurovlm.specialized_sequence': 'Sequence',
  'neurovlm.plane': 'Plane',
  'review.sequence': 'Sequence named (review)',
};

/** Metrics that take any value (similarity, overlap, rubric points); all others are 0/1 per item. */
const CONTINUOUS_METRICS: ReadonlySet<string> = new Set(['rubric', 'short.recall.open', 'box.iou', 'bertscore.f', 'bertscore.p', 'bertscore.r', 'cosine', 'rougeL', 'rouge1', 'rouge2', 'rougeLsum', 'token_f1']);

/** A metric key, or a dialogue's per-turn copy of one (`turn2.bertscore.f`), takes any value (see {@link CONTINUOUS_METRICS}). */
export function isContinuousMetric(key: string): boolean {
  return CONTINUOUS_METRICS.has(key.replace(/^turn\d+\./, '')) || key.startsWith('rubric.tag.');
}

const ORDER = new Map(Object.keys(METRIC_LABELS).map((k, i) => [k, i]));

/** Every metric key with a label, in the order summaries list them (what criteria and forms offer). */
export const KNOWN_METRICS: readonly string[] = Object.keys(METRIC_LABELS);

export function metricLabel(key: string): string {
  if (METRIC_LABELS[key]) return METRIC_LABELS[key];
  if (key.startsWith('rubric.tag.')) return `Rubric points: ${key.slice('rubric.tag.'.length)}`;
  const turn = /^turn(\d+)\.(.+)$/.exec(key);
  return turn ? `${metricLabel(turn[2]!)} at turn ${turn[1]}` : key;
}

function orderOf(key: string): number {
  if (key.startsWith('rubric.tag.')) return (ORDER.get('rubric') ?? 0) + 0.5;
  const turn = /^turn(\d+)\./.exec(key);
  return ORDER.get(key) ?? (turn ? 500 + Number(turn[1]) : 1000);
}

interface SummaryOptions {
  readonly seed: number;
  readonly resamples: number;
  /**
   * The answers are a model's raw output (default). False for answers people
   * gave through a form: JSON validity, the NeuroVLM-Bench analysis and the
   * benchmark's own figures describe a model's output, not theirs.
   */
  readonly modelOutput?: boolean;
}

function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  xs.sort((a, b) => a - b);
  const mid = xs.length >> 1;
  return xs.length % 2 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}

/** The question an answer belongs to: its samples share it. */
export function questionKey(it: QuestionIdentity): string {
  return `${it.caseId}#${it.questionId}`;
}

/**
 * Which answers an interval resamples together. Answers of several cases of
 * one patient (slices, series, studies) go together when some patient key is
 * shared (patients.ts): `by: 'patient'`, each patient with all its cases,
 * questions and samples. Otherwise several samples of one question go
 * together: they answer the same image with the same prompt, so counting them
 * as n independent answers makes the interval too narrow when a model is
 * consistently right or wrong on a question (two questions × five samples is
 * not n = 10). Null when every answer is its own question.
 */
export type AnswerClusters = {
  /** The cluster of each answer, aligned with the answers. */
  readonly ids: readonly string[];
  /** Clusters: patients, or questions. */
  readonly n: number;
} & ({ readonly by: 'patient'; /** The cases behind the patients. */ readonly cases: number } | { readonly by: 'question' });

/** {@link AnswerClusters} of answers: by patient where cases share one, else by question. */
export function answerClusters(items: readonly QuestionIdentity[], cases: CaseLookup): AnswerClusters | null {
  if (sharesPatients(items.map((it) => it.caseId), cases)) {
    const counts = countPatients(items, cases);
    return { by: 'patient', ids: items.map((it) => patientCluster(it, cases)), n: counts.patients, cases: counts.cases };
  }
  return questionClusters(items.map(questionKey));
}

/** Answers grouped by question id (or whatever plays its part), or null when no id repeats. */
function questionClusters(ids: readonly string[]): AnswerClusters | null {
  const n = new Set(ids).size;
  return n < ids.length ? { by: 'question', ids, n } : null;
}

/**
 * The summary with its interval resampling `clusters` (seeded cluster
 * bootstrap of the pooled mean, the same seed and resamples as every other
 * bootstrap): n counts the clusters, with cases (by patient) and answers
 * beside; the mean is unchanged, and the per-answer figures stay in
 * `perSample`. Without clusters the per-answer summary is returned as it is.
 */
function clustered(perSample: MetricSummary, values: readonly number[], clusters: AnswerClusters | null, opts: SummaryOptions): MetricSummary {
  if (!clusters) return perSample;
  const b = bootstrapClusterMeanCi(values, clusters.ids, { seed: opts.seed, resamples: opts.resamples });
  return {
    ...perSample, n: clusters.n, ...(clusters.by === 'patient' ? { cases: clusters.cases } : {}), samples: values.length, ci: { lower: b.lower, upper: b.upper },
    ciMethod: clusters.by === 'patient' ? 'patient-bootstrap' : 'question-bootstrap',
    perSample: { n: perSample.n, ci: perSample.ci, ciMethod: perSample.ciMethod === 'wilson' ? 'wilson' : 'bootstrap' },
  };
}

function metricSummary(metric: string, items: readonly ItemScore[], cases: CaseLookup, opts: SummaryOptions): MetricSummary {
  const values: number[] = [];
  const scored: ItemScore[] = [];
  const sources: Partial<Record<MetricSource, number>> = {};
  let notScorable = 0;
  let encoder: string | undefined;
  const binary = !isContinuousMetric(metric);
  // Undecided judge verdicts count too: they take items out of the metric.
  let judged = false;
  for (const it of items) {
    const v = it.metrics[metric];
    if (!v) continue;
    if (v.source === 'judge') judged = true;
    if (v.value === null) {
      notScorable++;
      continue;
    }
    values.push(v.value);
    scored.push(it);
    sources[v.source] = (sources[v.source] ?? 0) + 1;
    if (v.source === 'encoder') encoder = v.sourceId;
  }
  const n = values.length;
  const sum = values.reduce((a, b) => a + b, 0);
  const mean = n === 0 ? NaN : sum / n;
  let ci;
  if (binary) {
    const w = wilsonInterval(sum, n);
    ci = { lower: w.lower, upper: w.upper };
  } else {
    const b = bootstrapMeanCi(values, { seed: opts.seed, resamples: opts.resamples });
    ci = { lower: b.lower, upper: b.upper };
  }
  const perSample: MetricSummary = {
    metric, label: metricLabel(metric), n, notScorable, mean, ci, ciMethod: binary ? 'wilson' : 'bootstrap', sources,
    dependsOnJudge: judged, ...(encoder ? { encoder } : {}),
  };
  return clustered(perSample, values, answerClusters(scored, cases), opts);
}

/**
 * pass@k over samples (Chen et al. 2021 unbiased estimator), for arms with
 * several samples per question; a bootstrap over questions, or over patients
 * when slices share one (the per-question estimates of a patient drawn together).
 */
function samplePassK(items: readonly ItemScore[], cases: CaseLookup, opts: SummaryOptions): MetricSummary[] {
  const groups = new Map<string, { n: number; c: number; judge: boolean; caseId: string; questionId: string }>();
  for (const it of items) {
    const v = it.metrics['pass@1'];
    if (!v || v.value === null) continue;
    const key = questionKey(it);
    const g = groups.get(key) ?? { n: 0, c: 0, judge: false, caseId: it.caseId, questionId: it.questionId };
    g.n++;
    if (v.value === 1) g.c++;
    if (v.source === 'judge') g.judge = true;
    groups.set(key, g);
  }
  const list = [...groups.values()];
  if (list.length === 0 || Math.max(...list.map((g) => g.n)) < 2) return [];
  const minN = Math.min(...list.map((g) => g.n));
  // Each group is one question, so the estimates cluster only by patient.
  const grouped = answerClusters(list, cases);
  const counts = grouped?.by === 'patient' ? grouped : null;
  const clusters = counts ? { clusters: counts.ids } : {};
  const out: MetricSummary[] = [];
  for (const k of [1, 5]) {
    if (k > minN) continue;
    const per = list.map((g) => passAtKUnbiased(g.n, g.c, k));
    const b = bootstrapCi(per, (s) => s.reduce((a, x) => a + x, 0) / s.length, { seed: opts.seed, resamples: opts.resamples, ...clusters });
    const metric = `pass@${k} (samples)`;
    out.push({
      metric, label: metricLabel(metric), n: counts?.n ?? list.length, notScorable: 0, mean: b.estimate, ci: { lower: b.lower, upper: b.upper },
      ...(counts ? { ciMethod: 'patient-bootstrap' as const, cases: counts.cases, samples: list.reduce((s, g) => s + g.n, 0) } : { ciMethod: 'bootstrap' as const }),
      sources: {}, dependsOnJudge: list.some((g) => g.judge),
    });
  }
  return out;
}

/** MediConfusion set score: both items of a pair right (per sample; with several samples, the interval resamples pairs). */
function pairedSet(items: readonly ItemScore[], cases: ReadonlyMap<string, BenchCase>, opts: SummaryOptions): MetricSummary | null {
  const byPair = new Map<string, ItemScore[]>();
  for (const it of items) {
    if (it.protocolId !== 'mcq' || !it.metrics['mcq.correct']) continue;
    const q = cases.get(it.caseId)?.questions.find((x) => x.id === it.questionId);
    if (!q?.pairId) continue;
    const key = `${q.pairId}|${it.sample}`;
    const group = byPair.get(key);
    if (group) group.push(it);
    else byPair.set(key, [it]);
  }
  const pairs: McqPair[] = [];
  const pairIds: string[] = [];
  for (const [key, group] of byPair) {
    if (group.length !== 2) continue;
    const item = (it: ItemScore) => ({ gold: 'x', pred: it.metrics['mcq.invalid']?.value === 1 ? null : it.metrics['mcq.correct']!.value === 1 ? 'x' : 'y' });
    pairs.push({ first: item(group[0]!), second: item(group[1]!) });
    pairIds.push(key.slice(0, key.lastIndexOf('|')));
  }
  if (pairs.length === 0) return null;
  const s = pairedSetScore(pairs);
  const w = wilsonInterval(s.bothCorrect, s.pairs);
  const summary: MetricSummary = { metric: 'mcq.set', label: metricLabel('mcq.set'), n: s.pairs, notScorable: 0, mean: s.setScore, ci: { lower: w.lower, upper: w.upper }, ciMethod: 'wilson', sources: { rule: s.pairs }, dependsOnJudge: false };
  // A pair plays the part of a question: its samples are resampled together.
  return clustered(summary, pairs.map((p) => pairedSetScore([p]).bothCorrect), questionClusters(pairIds), opts);
}

function calibrationShifts(items: readonly ItemScore[]): CalibrationShiftSummary[] {
  const byModel = new Map<string, ItemScore[]>();
  for (const it of items) {
    const list = byModel.get(it.modelId);
    if (list) list.push(it);
    else byModel.set(it.modelId, [it]);
  }
  const out: CalibrationShiftSummary[] = [];
  for (const [modelId, list] of byModel) {
    const usable = list.filter((it) => it.confidence !== null && it.primary && (it.metrics[it.primary]?.value === 0 || it.metrics[it.primary]?.value === 1));
    const baseline = usable.filter((it) => it.variant === 'none');
    const kinds = new Set(usable.map((it) => /^degrade:([^:]+):/.exec(it.variant)?.[1]).filter((k): k is string => !!k));
    for (const kind of kinds) {
      const degraded: DegradedItem[] = [...baseline.map((it) => ({ it, severity: 0 })), ...usable.flatMap((it) => {
        const match = new RegExp(`^degrade:${kind}:(\\d+)$`).exec(it.variant);
        return match ? [{ it, severity: Number(match[1]) }] : [];
      })].map(({ it, severity }) => ({ severity, confidence: it.confidence, correct: it.metrics[it.primary!]!.value === 1 }));
      out.push({ modelId, kind, levels: calibrationShift(degraded) });
    }
  }
  return out;
}

/** One summary per arm, in first-seen order. */
export function summariseArms(
  items: readonly ItemScore[],
  responses: readonly (ScorableResponse & { readonly id: string })[],
  cases: readonly BenchCase[],
  opts: SummaryOptions,
): { arms: ArmSummary[]; calibrationShift: CalibrationShiftSummary[]; neurovlmBench?: NeuroVlmBenchBreakdown } {
  const caseMap = new Map(cases.map((c) => [c.id, c]));
  const responseById = new Map(responses.map((r) => [r.id, r]));
  const arms = new Map<string, ItemScore[]>();
  for (const it of items) {
    const key = armKey(it.modelId, it.variant);
    let list = arms.get(key);
    if (!list) arms.set(key, (list = []));
    list.push(it);
  }
  const out: ArmSummary[] = [];
  for (const [key, list] of arms) {
    const keys = new Set<string>();
    for (const it of list) for (const k of Object.keys(it.metrics)) keys.add(k);
    const metrics = [...keys].sort((a, b) => orderOf(a) - orderOf(b) || a.localeCompare(b)).map((k) => metricSummary(k, list, caseMap, opts));
    const set = pairedSet(list, caseMap, opts);
    if (set) metrics.push(set);
    metrics.push(...samplePassK(list, caseMap, opts));
    metrics.sort((a, b) => orderOf(a.metric) - orderOf(b.metric));
    const joined = list.flatMap((it) => {
      const r = responseById.get(it.responseId);
      return r ? [{ it, r }] : [];
    });
    const armResponses = joined.map((j) => j.r);
    const ok = armResponses.filter((r) => !r.error);
    const neuro = opts.modelOutput === false ? [] : joined.filter((j) => j.it.protocolId === 'neurovlm-structured').map((j) => j.r);
    const decoded = decodeSpeed(ok.reduce((t, r) => addTally(t, answerTally(r)), NO_DECODE));
    const proposed: Record<string, number> = {};
    let wrong = 0;
    for (const it of list) {
      const v = it.primary ? it.metrics[it.primary]?.value : null;
      if (v !== null && v !== undefined && v < 0.5) wrong++;
      for (const c of it.taxonomy?.classes ?? []) proposed[c] = (proposed[c] ?? 0) + 1;
    }
    const unavailable = unavailableMetrics(list, responseById, caseMap, metrics, metricLabel);
    out.push({
      key,
      wrong,
      ...(unavailable.length ? { unavailable } : {}),
      proposedErrorClasses: proposed,
      modelId: list[0]!.modelId,
      variant: list[0]!.variant,
      responses: list.length,
      failed: armResponses.length - ok.length,
      truncated: armResponses.filter((r) => isTruncated(r)).length,
      protocols: [...new Set(list.map((it) => it.protocolId))],
      metrics,
      ...(neuro.length ? { neurovlm: scoreNeuroVlm(neuroVlmItemsFromRun(neuro, cases), { seed: opts.seed, resamples: opts.resamples }) } : {}),
      medianLatencyMs: median(ok.map((r) => r.latencyMs).filter((x) => Number.isFinite(x))),
      ...(decoded !== null ? { decodeTps: decoded } : {}),
    });
  }
  // The benchmark's own figures: its evaluator on the run as `neuroeval export --format neurovlm-jsonl` writes it, the
  // answers given under the NeuroVLM-Bench protocol (a run mixing benchmarks keeps the others out of the file, as the
  // export does). Answers people gave through a form (a reader study) are not a model's output: no figures.
  const neuroIds = new Set(items.filter((it) => it.protocolId === 'neurovlm-structured').map((it) => it.responseId));
  const hasNeuroVlm = opts.modelOutput !== false && neuroIds.size > 0;
  const neurovlmBench = hasNeuroVlm ? neuroVlmBenchForRun('', responses.filter((r) => neuroIds.has(r.id)), cases) : undefined;
  return { arms: out, calibrationShift: calibrationShifts(items), ...(neurovlmBench ? { neurovlmBench } : {}) };
}

/** An answer the answer budget cut: its last turn, or any turn of a dialogue, stopped at the token limit. */
export function isTruncated(r: { readonly finishReason: string; readonly turns?: readonly { readonly finishReason?: string }[] }): boolean {
  return r.finishReason === 'length' || (r.turns ?? []).some((t) => t.finishReason === 'length');
}

/** More than this share of a model's answers cut by the budget gets a warning. */
export const TRUNCATION_WARNING_SHARE = 0.05;
