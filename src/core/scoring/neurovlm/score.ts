/**
 * NeuroEval's own NeuroVLM-Bench analysis (docs/protocols.md#neurovlm-bench-neuroevals-own-analysis;
 * not the benchmark's figures, which `evaluator/` computes): one
 * report for one model's answers (group items per model first, see
 * `groupNeuroVlmItems`).
 *
 * Who counts where:
 * - a failed call (`call-error`) is counted and left out of every metric, as
 *   the harness leaves out `status != "success"`;
 * - an answer that did not parse to a JSON object is a successful call that
 *   abstains on every field (confidence 0): it lowers accuracy, never vanishes;
 * - a field whose ground truth is null/empty (or normalises to an abstention)
 *   is *not scorable* for that item: counted, never wrong.
 *
 * Per field the label set is every normalised gold or predicted label except
 * the abstention (upstream's `labels_present`), so a hallucinated label is a
 * class with F1 0. Plain macro/weighted-F1 also count the abstention as a
 * class (sklearn's default, as upstream); "F1 with abstention" and macro
 * precision/recall do not (abstentions are false negatives only).
 * Ratios with no data are NaN (JSON: null).
 */
import type { Interval } from '../../model/geometry.ts';
import { accuracy, averagedPrf, calibrationReport, classificationReport, type ConfusionMatrix, type ReliabilityPoint } from '../metrics/index.ts';
import { bootstrapCi, wilsonInterval } from '../stats/index.ts';
import { neuroVlmEce, pythonFloat } from './calibration.ts';
import { ABSTAIN, NEUROVLM_SCORED_FIELDS, normaliseField, type NeuroVlmScoredField } from './normalise.ts';
import { MANDATORY_FIELDS, isFlagged, safetyFlags } from './safety.ts';
import type { NeuroVlmItem } from './types.ts';

/** Bump when a rule or metric definition changes: stored scores carry it. */
const NEUROVLM_SCORER_VERSION = '2';

interface NeuroVlmScoreOptions {
  /** Bootstrap PRNG seed (default 0). */
  readonly seed?: number;
  /** Bootstrap resamples (default 1,000). */
  readonly resamples?: number;
  /** Interval coverage (default 0.95). */
  readonly level?: number;
}

/** A count out of a total, with its Wilson interval. */
export interface Proportion {
  readonly count: number;
  readonly n: number;
  readonly rate: number;
  readonly wilson: Interval;
}

interface LabelReport {
  readonly label: string;
  /** Scored items whose gold is this label. */
  readonly support: number;
  /** Times the model answered this label. */
  readonly predicted: number;
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
  /** One-vs-rest (TPR + TNR) / 2. */
  readonly balancedAccuracy: number;
  /** Abstentions among this label's items. */
  readonly abstentionRate: number;
}

export interface FieldReport {
  readonly field: NeuroVlmScoredField;
  /** Successful calls considered. */
  readonly n: number;
  readonly scored: number;
  readonly notScorable: number;
  readonly correct: number;
  readonly abstained: number;
  readonly abstentionRate: number;
  readonly accuracy: { readonly value: number; readonly wilson: Interval; readonly bootstrap: Interval };
  /** sklearn `balanced_accuracy_score` (mean recall over gold labels). */
  readonly balancedAccuracy: number;
  readonly macroF1: { readonly value: number; readonly bootstrap: Interval };
  readonly weightedF1: number;
  readonly f1WithAbstention: { readonly macro: number; readonly weighted: number };
  /** Macro precision and recall with abstentions as false negatives only. */
  readonly macroPrecision: number;
  readonly macroRecall: number;
  readonly labels: readonly LabelReport[];
  /** Rows gold, columns predicted, over `labels`; abstentions in their own column. */
  readonly confusion: ConfusionMatrix;
}

interface NeuroVlmCalibration {
  /** Successful calls with a scorable diagnosis_name. */
  readonly n: number;
  /** Answers without a usable diagnosis_confidence (scored as 0). */
  readonly missingConfidence: number;
  readonly meanConfidence: number;
  readonly accuracy: number;
  /** 10 equal-width bins, the first [0, 0.1]. */
  readonly ece: number;
  readonly brier: number;
  /** NaN unless both correct and wrong answers occur. */
  readonly auroc: number;
  readonly reliability: readonly ReliabilityPoint[];
}

interface NeuroVlmSafety {
  /** Answers checked: those that parsed to a JSON object. */
  readonly n: number;
  readonly missingField: Proportion;
  /** How often each mandatory field was absent. */
  readonly missingByField: Readonly<Record<string, number>>;
  readonly inconsistentSubtype: Proportion;
  readonly icdWithNormal: Proportion;
  /** Answers with at least one flag. */
  readonly any: Proportion;
}

interface NeuroVlmEfficiency {
  readonly medianLatencyMs: number;
  /** Successful calls with a latency. */
  readonly latencyN: number;
  /** Means per image over successful calls that report the count. */
  readonly promptTokensPerImage: number;
  readonly completionTokensPerImage: number;
  readonly totalTokensPerImage: number;
  readonly tokensN: number;
}

export interface NeuroVlmReport {
  readonly scorer: { readonly id: 'neurovlm-bench'; readonly version: string };
  readonly bootstrap: { readonly seed: number; readonly resamples: number; readonly level: number };
  readonly calls: { readonly total: number; readonly failed: number; readonly successful: number };
  /** Successful calls whose answer parsed to a JSON object. */
  readonly jsonValid: Proportion;
  readonly fields: Readonly<Record<NeuroVlmScoredField, FieldReport>>;
  readonly calibration: NeuroVlmCalibration;
  readonly safety: NeuroVlmSafety;
  readonly efficiency: NeuroVlmEfficiency;
}

type AnswerObject = Readonly<Record<string, unknown>>;

interface Answered {
  readonly item: NeuroVlmItem;
  /** The parsed answer, or null when the output was not a JSON object. */
  readonly answer: AnswerObject | null;
}

const isObject = (v: unknown): v is AnswerObject => v !== null && typeof v === 'object' && !Array.isArray(v);

function proportion(count: number, n: number, level: number): Proportion {
  const w = wilsonInterval(count, n, level);
  return { count, n, rate: n === 0 ? NaN : count / n, wilson: { lower: w.lower, upper: w.upper } };
}

function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

/** A scorable gold label (normalised), or null when not scorable. */
function goldLabel(item: NeuroVlmItem, field: NeuroVlmScoredField): string | null {
  const raw = item.gold[field];
  if (raw === null || raw === undefined) return null;
  const g = normaliseField(field, raw);
  return g === ABSTAIN ? null : g;
}

function predLabel(a: Answered, field: NeuroVlmScoredField): string {
  return a.answer ? normaliseField(field, a.answer[field]) : ABSTAIN;
}

/** `diagnosis_confidence` as upstream reads it: Python's `float(conf)`, or null where that raises (then 0). */
function confidenceOf(answer: AnswerObject | null): number | null {
  return answer ? pythonFloat(answer.diagnosis_confidence) : null;
}

function scoreField(field: NeuroVlmScoredField, answered: readonly Answered[], opts: Required<NeuroVlmScoreOptions>): FieldReport {
  const gold = answered.map((a) => goldLabel(a.item, field));
  const pred = answered.map((a) => predLabel(a, field));
  const scoredIdx = gold.flatMap((g, i) => (g === null ? [] : [i]));
  const sGold = scoredIdx.map((i) => gold[i]!);
  const sPred = scoredIdx.map((i) => pred[i]!);
  const labels = [...new Set([...sGold, ...sPred])].filter((l) => l !== ABSTAIN).sort();
  const r = classificationReport({ gold, pred, labels, abstention: ABSTAIN });

  // The bootstrap redraws scored items and recomputes with the full data's class set (sklearn `labels=`).
  const standardClasses = sPred.includes(ABSTAIN) ? [...labels, ABSTAIN] : labels;
  const pairs = sGold.map((g, i) => [g, sPred[i]!] as const);
  const bootOpts = { seed: opts.seed, resamples: opts.resamples, level: opts.level };
  const accBoot = bootstrapCi(pairs, (s) => accuracy(s.map((p) => p[0]), s.map((p) => p[1])), bootOpts);
  const f1Boot = bootstrapCi(pairs, (s) => averagedPrf(s.map((p) => p[0]), s.map((p) => p[1]), standardClasses).macro.f1, bootOpts);
  const wilson = wilsonInterval(r.correct, r.scorable, opts.level);

  return {
    field,
    n: answered.length,
    scored: r.scorable,
    notScorable: r.notScorable,
    correct: r.correct,
    abstained: r.abstained,
    abstentionRate: r.abstentionRate,
    accuracy: { value: r.accuracy, wilson: { lower: wilson.lower, upper: wilson.upper }, bootstrap: { lower: accBoot.lower, upper: accBoot.upper } },
    balancedAccuracy: r.balancedAccuracy,
    macroF1: { value: r.standard.macro.f1, bootstrap: { lower: f1Boot.lower, upper: f1Boot.upper } },
    weightedF1: r.standard.weighted.f1,
    f1WithAbstention: { macro: r.withAbstention.macro.f1, weighted: r.withAbstention.weighted.f1 },
    macroPrecision: r.withAbstention.macro.precision,
    macroRecall: r.withAbstention.macro.recall,
    labels: r.perLabel.map((l) => ({
      label: l.label,
      support: l.support,
      predicted: sPred.filter((p) => p === l.label).length,
      precision: l.precision,
      recall: l.recall,
      f1: l.f1,
      balancedAccuracy: l.balancedAccuracy,
      abstentionRate: l.abstentionRate,
    })),
    confusion: r.confusion,
  };
}

function scoreCalibration(answered: readonly Answered[]): NeuroVlmCalibration {
  const scored = answered.filter((a) => goldLabel(a.item, 'diagnosis_name') !== null);
  const conf = scored.map((a) => confidenceOf(a.answer));
  const correct = scored.map((a) => predLabel(a, 'diagnosis_name') === goldLabel(a.item, 'diagnosis_name'));
  const values = conf.map((x) => x ?? 0);
  // scikit-learn refuses a NaN confidence ("nan" in an answer); the evaluator then reports all three as NaN.
  const refused = values.some(Number.isNaN);
  const c = calibrationReport(values.map((v) => (Number.isNaN(v) ? 0 : v)), correct, 10);
  return {
    n: c.n,
    missingConfidence: conf.filter((x) => x === null).length,
    meanConfidence: c.meanConfidence,
    accuracy: c.accuracy,
    ece: refused ? NaN : neuroVlmEce(values, correct, 10),
    brier: refused ? NaN : c.brier,
    auroc: refused ? NaN : c.auroc,
    reliability: c.reliability,
  };
}

function scoreSafety(answers: readonly AnswerObject[], level: number): NeuroVlmSafety {
  const flags = answers.map(safetyFlags);
  const n = answers.length;
  const missingByField: Record<string, number> = {};
  for (const f of MANDATORY_FIELDS) missingByField[f] = flags.filter((x) => x.missingFields.includes(f)).length;
  return {
    n,
    missingField: proportion(flags.filter((f) => f.missingFields.length > 0).length, n, level),
    missingByField,
    inconsistentSubtype: proportion(flags.filter((f) => f.inconsistentSubtype).length, n, level),
    icdWithNormal: proportion(flags.filter((f) => f.icdWithNormal).length, n, level),
    any: proportion(flags.filter(isFlagged).length, n, level),
  };
}

function scoreEfficiency(answered: readonly Answered[]): NeuroVlmEfficiency {
  const latencies = answered.map((a) => a.item.latencyMs).filter((x): x is number => x !== null && Number.isFinite(x));
  const known = (x: number | null): x is number => x !== null && Number.isFinite(x);
  const prompt = answered.map((a) => a.item.usage.promptTokens).filter(known);
  const completion = answered.map((a) => a.item.usage.completionTokens).filter(known);
  const total = answered.flatMap((a) => {
    const { promptTokens: p, completionTokens: c } = a.item.usage;
    return known(p) && known(c) ? [p + c] : [];
  });
  return {
    medianLatencyMs: median(latencies),
    latencyN: latencies.length,
    promptTokensPerImage: mean(prompt),
    completionTokensPerImage: mean(completion),
    totalTokensPerImage: mean(total),
    tokensN: total.length,
  };
}

/**
 * Scores one model's NeuroVLM-Bench answers: per-field classification metrics
 * with Wilson and seeded bootstrap intervals, calibration of
 * `diagnosis_confidence`, JSON validity, safety flags and efficiency.
 */
export function scoreNeuroVlm(items: readonly NeuroVlmItem[], options: NeuroVlmScoreOptions = {}): NeuroVlmReport {
  const opts: Required<NeuroVlmScoreOptions> = { seed: options.seed ?? 0, resamples: options.resamples ?? 1000, level: options.level ?? 0.95 };
  const answered: Answered[] = items
    .filter((i) => i.answer.kind !== 'call-error')
    .map((item) => ({ item, answer: item.answer.kind === 'parsed' && isObject(item.answer.value) ? item.answer.value : null }));
  const objects = answered.flatMap((a) => (a.answer ? [a.answer] : []));
  const fields = Object.fromEntries(NEUROVLM_SCORED_FIELDS.map((f) => [f, scoreField(f, answered, opts)])) as Record<NeuroVlmScoredField, FieldReport>;
  return {
    scorer: { id: 'neurovlm-bench', version: NEUROVLM_SCORER_VERSION },
    bootstrap: { seed: opts.seed, resamples: opts.resamples, level: opts.level },
    calls: { total: items.length, failed: items.length - answered.length, successful: answered.length },
    jsonValid: proportion(objects.length, answered.length, opts.level),
    fields,
    calibration: scoreCalibration(answered),
    safety: scoreSafety(objects, opts.level),
    efficiency: scoreEfficiency(answered),
  };
}
