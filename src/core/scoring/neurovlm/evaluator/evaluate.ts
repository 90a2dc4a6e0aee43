/**
 * NeuroVLM-Bench's own figures: a port of `evaluate()` in ChatMED/neurovlm-bench
 * `evaluate_detailed.py` (commit 6e87ba4), run on the harness's result
 * records (one JSON object per call, `input.metadata` the ground truth,
 * `output.parsed_response` the answer). Every figure is computed as the
 * evaluator computes it, per model, under the evaluator's own names; the
 * parity test (test/unit/core/scoring/neurovlm/evaluator-parity.test.ts) compares
 * each one with the evaluator's output on committed result files.
 *
 * The evaluator's rules, some of them surprising, all kept:
 * - JSON valid = successful calls ÷ all calls of the model, in per cent: any
 *   `status: "success"` record counts as valid JSON, the harness's
 *   parse-failure records (`{error, raw_response}`) included; a failed call
 *   counts in the denominator only when it names its model;
 * - "accuracy" is balanced accuracy (mean recall over ground-truth labels);
 * - a field's series keeps every successful call whose raw ground truth is
 *   not None, "null", "nan" or ""; ground truth that normalises to
 *   "undetermined" stays in, as gold "undetermined";
 * - label sets differ per figure: per-label lists use ground truth ∪ answers
 *   (sorted), and the precision/recall/F1-with-abstention lists drop
 *   "undetermined" from them; `overall_<field>_precision`, `…_recall` and
 *   every `…_abstention` average over the ground-truth labels only; the
 *   plain `overall_<field>_f1` / `…_weighted_f1` do too for class and
 *   subclass, and over ground truth ∪ answers for modality, sequence and plane;
 * - calibration (`ece`, `brier`, `auc`) is of `diagnosis_confidence` read with
 *   Python's `float()` against class correctness, and again against subclass
 *   correctness (`overall_sub_*`); the evaluator never collects confidences for
 *   modality, sequence or plane, so its `overall_mod_*`, `overall_mod_sub_*`
 *   and `overall_pl_*` calibration figures are always 0;
 * - the multilabel `*_global` figures put the *filtered* class answers next to
 *   the unfiltered series of the other four fields.
 *
 * Python's semantics throughout (src/core/python): records are what
 * `json.loads` gives (exact ints apart from floats), labels are `str()` of
 * them, confidences `float()`, token counts `int()`, label and model order by
 * code point. Where the evaluator stops with an exception on a file (a model
 * with a call without class ground truth, so `np.column_stack` fails; a model
 * with no successful call; a record that is not an object; `int()` of a token
 * count such as "1.5"; a list as ground truth), {@link NeuroVlmBenchStop}
 * says so and no figure is given. Where what it would do is not reproduced
 * (a label matplotlib would draw as TeX, one ending in U+0000, token counts
 * of 2^53 or more), likewise.
 *
 * Left out on purpose: the `_ci` intervals (the evaluator draws them from an
 * unseeded random state, so no two runs agree; NeuroEval's seeded intervals
 * are in its own report) and the cost figures (the evaluator prices hosted
 * APIs from a table that has no local model and raises KeyError for any model
 * missing from it: that one stop is not reproduced, so local models get every
 * other figure; the parity script gives the table an answer for every model).
 */
import { neuroVlmEce } from '../calibration.ts';
import { PyDict, PyException, pyFloat, pyStr, pyStrip, pyTruthy, pyTypeName, type PyValue } from '../../../python/values.ts';
import { brierScore, auroc } from '../../metrics/calibration.ts';
import {
  UPSTREAM_ABSTAIN,
  normalizeClassLabel,
  normalizeModalityLabel,
  normalizeModalitySubtypeLabel,
  normalizePlaneLabel,
  normalizeSubclassLabel,
} from './normalise.ts';
import { inInvalidGold, pyFloatOrNone, pyGet, pyIntOr0 } from './python.ts';
import { balancedAccuracy, confusionAll, multilabel, prf, prfPerLabel, uniqueSorted, type Predicted } from './sklearn.ts';

/** The evaluator's five fields: answer key, ground-truth key, normaliser, and its name in figure keys. */
const FIELDS = [
  { answer: 'diagnosis_name', gold: 'class', normalise: normalizeClassLabel, key: 'class' },
  { answer: 'diagnosis_detailed', gold: 'subclass', normalise: normalizeSubclassLabel, key: 'sub' },
  { answer: 'modality', gold: 'modality', normalise: normalizeModalityLabel, key: 'mod' },
  { answer: 'specialized_sequence', gold: 'modality_subtype', normalise: normalizeModalitySubtypeLabel, key: 'mod_sub' },
  { answer: 'plane', gold: 'axial_plane', normalise: normalizePlaneLabel, key: 'pl' },
] as const;
type FieldKey = (typeof FIELDS)[number]['key'];

/** Predictions `per_label_uncertainty` counts as uncertain, compared after `str(x).strip().lower()`. */
const UNCERTAIN = new Set(['none', 'null', 'nan', 'undetermined', '', 'n/a']);

/** One model's figures, under the evaluator's `per_model` keys. */
export type NeuroVlmBenchFigures = Record<string, number | string[] | number[] | number[][]>;

export interface NeuroVlmBenchFileFigures {
  /** Per model, in the evaluator's (sorted) order. */
  readonly perModel: Readonly<Record<string, NeuroVlmBenchFigures>>;
  /** `field_results`: each field's raw-normalised agreement over every successful call of every model, in per cent. */
  readonly fieldResults: Readonly<Record<string, { accuracy_pct: number; correct: number; total: number }>>;
  /** `overall_accuracy`: successful calls with all five fields right, in per cent. */
  readonly overallAccuracy: number;
  /** `total_items`: records read (after the dataset filter). */
  readonly totalItems: number;
}

interface Series {
  readonly trueF: string[];
  readonly predF: string[];
  readonly confF: number[];
  readonly trueU: string[];
  readonly predU: string[];
}

interface ModelAcc {
  json_total: number;
  json_valid: number;
  latency: number[];
  series: Record<FieldKey, Series>;
}

const newSeries = (): Series => ({ trueF: [], predF: [], confF: [], trueU: [], predU: [] });

function modelAcc(): ModelAcc {
  return {
    json_total: 0,
    json_valid: 0,
    latency: [],
    series: { class: newSeries(), sub: newSeries(), mod: newSeries(), mod_sub: newSeries(), pl: newSeries() },
  };
}

const pct = (n: number, d: number): number => (d ? (n / d) * 100 : 0);


/** `ece_binned`, `brier_score_loss`, `roc_auc_score` as the evaluator wraps them (NaN confidences: all NaN). */
function calibration(s: Series, bins: number): { ece: number; brier: number; auc: number } {
  const correct = s.trueF.map((t, i) => t === s.predF[i]);
  const ece = neuroVlmEce(s.confF, correct, bins);
  if (s.confF.some(Number.isNaN)) return { ece: NaN, brier: NaN, auc: NaN };
  const clipped = s.confF.map((c) => Math.min(1, Math.max(0, c)));
  const both = correct.includes(true) && correct.includes(false);
  return { ece, brier: brierScore(clipped, correct), auc: both ? auroc(clipped, correct) : NaN };
}

/** What `f1_with_abstention` puts in place of an abstention: a value outside every label set, equal to no label a file can hold. */
const ABSTAINED: unique symbol = Symbol('abstained');

/** `f1_with_abstention` and friends: answers "undetermined" become a dummy value outside `labels`. */
function withAbstention(yPred: readonly string[]): { yPred: Predicted[]; real: (labels: readonly string[]) => string[] } {
  return {
    yPred: yPred.map((p) => (p === UPSTREAM_ABSTAIN ? ABSTAINED : p)),
    real: (labels) => labels.filter((l) => l !== UPSTREAM_ABSTAIN),
  };
}

/** The per-field figures of one model. `fig` receives them under the evaluator's names. */
function fieldFigures(key: FieldKey, s: Series, fig: NeuroVlmBenchFigures): void {
  const yT = s.trueF;
  const yP = s.predF;
  const has = yT.length > 0;
  const labels = has ? uniqueSorted([...yT, ...yP]) : [];
  const goldLabels = uniqueSorted(yT);
  const ab = withAbstention(yP);
  const prefix = { class: 'per_class', sub: 'per_subclass', mod: 'per_modality', mod_sub: 'per_modality_sub', pl: 'per_plane' }[key];
  const labelKey = { class: 'labels', sub: 'subclass_labels', mod: 'modality_labels', mod_sub: 'modality_sub_labels', pl: 'plane_labels' }[key];
  const cmKey = { class: 'confusion_matrix', sub: 'cm_sub', mod: 'cm_mod', mod_sub: 'cm_sub_mod', pl: 'cm_pl' }[key];
  const o = `overall_${key}`;
  // The evaluator's `else` branch: modality reports 0.0 where the others report NaN.
  const empty = key === 'mod' ? 0 : NaN;
  fig[labelKey] = labels;
  if (!has) {
    for (const m of ['accuracy', 'precision', 'recall', 'f1', 'f1_abstention', 'weighted_f1', 'weighted_f1_abstention']) fig[`${o}_${m}`] = empty;
    for (const m of ['accuracy', 'precision', 'recall', 'f1', 'f1_abstention', 'support']) fig[`${prefix}_${m}`] = [];
    fig[cmKey] = [];
    const noCalibration = key === 'class' || key === 'sub' ? NaN : 0;
    for (const m of ['auc', 'brier', 'ece']) fig[`${o}_${m}`] = noCalibration;
    return;
  }
  const realAll = ab.real(labels);
  const realGold = ab.real(goldLabels);
  const perAb = prfPerLabel(yT, ab.yPred, realAll);
  fig[`${prefix}_accuracy`] = labels.map((l) => perLabelBalancedAccuracy(yT, yP, l));
  fig[`${prefix}_precision`] = perAb.precision;
  fig[`${prefix}_recall`] = perAb.recall;
  fig[`${prefix}_f1`] = prfPerLabel(yT, yP, labels).f1;
  fig[`${prefix}_f1_abstention`] = perAb.f1;
  fig[`${prefix}_support`] = labels.map((l) => yT.filter((t) => t === l).length);
  fig[cmKey] = confusionAll(yT, yP, labels);

  // Class and subclass average the plain F1 over ground-truth labels; the other fields over every label seen.
  const plainLabels = key === 'class' || key === 'sub' ? goldLabels : undefined;
  const macroAb = prf(yT, ab.yPred, 'macro', realGold);
  fig[`${o}_accuracy`] = balancedAccuracy(yT, yP);
  fig[`${o}_precision`] = macroAb.precision;
  fig[`${o}_recall`] = macroAb.recall;
  fig[`${o}_f1`] = prf(yT, yP, 'macro', plainLabels).f1;
  fig[`${o}_f1_abstention`] = macroAb.f1;
  fig[`${o}_weighted_f1`] = prf(yT, yP, 'weighted', plainLabels).f1;
  fig[`${o}_weighted_f1_abstention`] = prf(yT, ab.yPred, 'weighted', realGold).f1;

  if (key === 'class' || key === 'sub') {
    const c = calibration(s, 10);
    fig[`${o}_auc`] = c.auc;
    fig[`${o}_brier`] = c.brier;
    fig[`${o}_ece`] = c.ece;
  } else {
    // No confidence series exists for these fields: brier_score_loss raises and the evaluator's except sets 0.0.
    fig[`${o}_auc`] = 0;
    fig[`${o}_brier`] = 0;
    fig[`${o}_ece`] = 0;
  }

  if (key === 'class') {
    fig.macro_f1 = prf(yT, yP, 'macro').f1;
    fig.micro_f1 = prf(yT, yP, 'micro').f1;
    fig.weighted_f1 = prf(yT, yP, 'weighted').f1;
    fig.macro_f1_abstention = prf(yT, ab.yPred, 'macro', realAll).f1;
    fig.micro_f1_abstention = prf(yT, ab.yPred, 'micro', realAll).f1;
    fig.weighted_f1_abstention = prf(yT, ab.yPred, 'weighted', realAll).f1;
    fig.accuracy = fig[`${o}_accuracy`] as number;
    fig.uncertainty = (100 * yP.filter((p) => UNCERTAIN.has(pyStrip(p).toLowerCase())).length) / yP.length;
    fig.ece = fig[`${o}_ece`] as number;
    fig.brier = fig[`${o}_brier`] as number;
    fig.auc = fig[`${o}_auc`] as number;
  }
}

/** `per_label_balanced_accuracy`: one-vs-rest (recall + specificity) / 2, a 0/0 counted as 0. */
function perLabelBalancedAccuracy(yT: readonly string[], yP: readonly string[], label: string): number {
  let tp = 0;
  let fn = 0;
  let fp = 0;
  yT.forEach((t, i) => {
    const p = yP[i];
    if (t === label && p === label) tp++;
    else if (t === label) fn++;
    else if (p === label) fp++;
  });
  const tn = yT.length - (tp + fn + fp);
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  const specificity = tn + fp > 0 ? tn / (tn + fp) : 0;
  return (recall + specificity) / 2;
}

/**
 * Why the evaluator gives no figures for a file: it stops with an exception
 * (`evaluator-fails`: the message is the exception CPython raises), or it
 * would get past a point whose outcome NeuroEval does not reproduce
 * (`not-reproduced`, e.g. a label matplotlib would try to draw as TeX).
 * Either way no benchmark figure is shown.
 */
export class NeuroVlmBenchStop extends Error {
  override readonly name = 'NeuroVlmBenchStop';
  constructor(
    readonly kind: 'evaluator-fails' | 'not-reproduced',
    message: string,
    /** The file's line (1-based) of the record at fault, when one is. */
    readonly line?: number,
  ) {
    super(message);
  }
}

/** One record as `load_jsonl` gives it, with its line in the file (absent for NeuroEval's own records). */
export interface EvaluatorRecord {
  readonly value: PyValue;
  readonly line?: number;
}

function stopAt(error: unknown, line: number | undefined, what: string): never {
  if (error instanceof PyException) throw new NeuroVlmBenchStop('evaluator-fails', `${what}: ${error.message}`, line);
  throw error;
}

/** `np.median`: NaN if any value is NaN. */
function median(xs: readonly number[]): number {
  if (xs.length === 0 || xs.some(Number.isNaN)) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const TWO_53 = 2n ** 53n;

/** `float(np.mean(ints))`, exact while every count and the sum stay below 2^53 (NumPy's int64 and object paths agree there). */
function meanOfInts(xs: readonly bigint[], line: number | undefined): number {
  const sum = xs.reduce((a, b) => a + b, 0n);
  if ([...xs, sum].some((x) => x >= TWO_53 || -x >= TWO_53)) throw new NeuroVlmBenchStop('not-reproduced', 'token counts of 2^53 or more (NumPy averages them by a route NeuroEval does not reproduce)', line);
  return Number(sum) / xs.length;
}

/** `latency_ms`, else `float(latency_s) * 1000`; kept when `isinstance(lat, (int, float))` (a bool counts), as `float(lat)`. */
function latencyOf(api: PyValue): number | null {
  let lat: PyValue = pyGet(api, 'latency_ms');
  if (lat === null) {
    const s = pyGet(api, 'latency_s');
    if (s !== null) {
      const f = pyFloatOrNone(s);
      lat = f === null ? null : f * 1000;
    }
  }
  if (typeof lat === 'boolean') return lat ? 1 : 0;
  return typeof lat === 'number' || typeof lat === 'bigint' ? pyFloat(lat) : null;
}

/** Two unescaped dollar signs in a drawn text: matplotlib parses it as TeX, and a parse error stops `savefig`. */
const MATHTEXT = /(?:^|[^\\])\$[\s\S]*(?:[^\\])\$|(?:^|[^\\])\$\$/;

/**
 * `evaluate(data)`: the benchmark's per-model figures (and its file-level
 * field agreement) for harness records, in the order the evaluator reads
 * them. Throws {@link NeuroVlmBenchStop} where the evaluator stops.
 */
export function evaluateNeuroVlmBench(records: readonly EvaluatorRecord[]): NeuroVlmBenchFileFigures {
  const models = new Map<string, ModelAcc & { line?: number }>();
  const acc = (m: PyValue, line: number | undefined): ModelAcc => {
    if (Array.isArray(m) || m instanceof PyDict) throw new NeuroVlmBenchStop('evaluator-fails', `TypeError: unhashable type: '${pyTypeName(m)}' (input.model_requested)`, line);
    if (typeof m !== 'string') throw new NeuroVlmBenchStop('not-reproduced', `input.model_requested is ${pyStr(m)}, not text (the evaluator sorts and prints model names as text)`, line);
    let a = models.get(m);
    if (!a) models.set(m, (a = { ...modelAcc(), ...(line === undefined ? {} : { line }) }));
    return a;
  };
  const fieldCounters = Object.fromEntries(FIELDS.map((f) => [f.answer, { correct: 0, total: 0 }])) as Record<string, { correct: number; total: number }>;
  let allFieldsCorrect = 0;
  let detailed = 0;
  const tokens = new Map<ModelAcc, { input: bigint[]; output: bigint[]; line?: number }>();

  for (const { value: item, line } of records) {
    try {
      const status = pyGet(pyGet(item, 'output', new PyDict()), 'status');
      if (status !== 'success') {
        const name = pyGet(pyGet(item, 'input', new PyDict()), 'model_requested');
        if (pyTruthy(name)) acc(name, line).json_total++;
        continue;
      }
      const input = pyGet(item, 'input', new PyDict());
      const requested = pyGet(input, 'model_requested');
      const a = acc(pyTruthy(requested) ? requested : 'UNKNOWN_MODEL', line);
      const metadata = pyGet(input, 'metadata', new PyDict());
      const parsedRaw = pyGet(pyGet(item, 'output', new PyDict()), 'parsed_response', new PyDict());
      const parsed = pyTruthy(parsedRaw) ? parsedRaw : new PyDict();
      a.json_total++;
      a.json_valid++;

      const api = pyGet(item, 'api_response', new PyDict());
      const itok = pyIntOr0(pyGet(api, 'prompt_tokens', 0n));
      const otok = pyIntOr0(pyGet(api, 'completion_tokens', 0n));
      let t = tokens.get(a);
      if (!t) tokens.set(a, (t = { input: [], output: [], ...(line === undefined ? {} : { line }) }));
      t.input.push(itok);
      t.output.push(otok);
      const lat = latencyOf(api);
      if (lat !== null) a.latency.push(lat);

      detailed++;
      let correctFields = 0;
      for (const f of FIELDS) {
        const ok = f.normalise(pyGet(metadata, f.gold)) === f.normalise(pyGet(parsed, f.answer));
        fieldCounters[f.answer]!.total++;
        if (ok) {
          fieldCounters[f.answer]!.correct++;
          correctFields++;
        }
      }
      if (correctFields === FIELDS.length) allFieldsCorrect++;

      const conf = pyFloatOrNone(pyGet(parsed, 'diagnosis_confidence')) ?? 0;
      for (const f of FIELDS) {
        const s = a.series[f.key];
        const gt = pyGet(metadata, f.gold);
        const t = f.normalise(gt);
        const p = f.normalise(pyGet(parsed, f.answer));
        if (!inInvalidGold(gt)) {
          s.trueF.push(t);
          s.predF.push(p);
          s.confF.push(conf);
        }
        s.trueU.push(t);
        s.predU.push(p);
      }
    } catch (error) {
      stopAt(error, line, line === undefined ? 'a record' : `line ${line}`);
    }
  }

  const perModel: Record<string, NeuroVlmBenchFigures> = {};
  for (const model of uniqueSorted(models.keys())) {
    const a = models.get(model)!;
    const s = a.series;
    const where = `model ${JSON.stringify(model)}`;
    // The evaluator draws each non-empty field's confusion matrix with the model's name in the title and the labels on the axes.
    const drawn = [model, ...FIELDS.flatMap((f) => (s[f.key].trueF.length ? [...s[f.key].trueF, ...s[f.key].predF] : []))];
    const tex = drawn.find((x) => MATHTEXT.test(x));
    if (tex !== undefined) throw new NeuroVlmBenchStop('not-reproduced', `${where}: "${tex}" would be drawn by matplotlib as TeX, which NeuroEval does not reproduce`, a.line);
    const nul = drawn.find((x) => x.endsWith('\u0000'));
    if (nul !== undefined) throw new NeuroVlmBenchStop('not-reproduced', `${where}: a label ending in U+0000 (NumPy drops trailing NULs, so scikit-learn sees another label)`, a.line);

    const n = s.class.trueU.length;
    // np.column_stack of the filtered class answers with the unfiltered series of the other fields.
    if (s.class.predF.length !== n) {
      throw new NeuroVlmBenchStop(
        'evaluator-fails',
        `${where}: ValueError from np.column_stack (all the input array dimensions except for the concatenation axis must match exactly): ${n - s.class.predF.length} of its ${n} successful calls have no class ground truth (input.metadata.class empty, null, "null" or "nan"), so its filtered class series is shorter than the others`,
        a.line,
      );
    }
    if (n === 0) throw new NeuroVlmBenchStop('evaluator-fails', `${where}: ValueError from f1_score (unknown is not supported): the model has no successful call, so its multilabel figures are computed on nothing`, a.line);

    const fig: NeuroVlmBenchFigures = {};
    if (s.class.trueF.length === 0) {
      for (const k of ['macro_f1', 'micro_f1', 'weighted_f1', 'macro_f1_abstention', 'micro_f1_abstention', 'weighted_f1_abstention', 'accuracy', 'uncertainty', 'ece', 'brier', 'auc']) fig[k] = NaN;
    }
    for (const f of FIELDS) fieldFigures(f.key, s[f.key], fig);

    const global = multilabel(
      s.class.trueU.map((_, i) => [s.class.trueU[i]!, s.sub.trueU[i]!, s.mod.trueU[i]!, s.mod_sub.trueU[i]!, s.pl.trueU[i]!]),
      s.class.predF.map((_, i) => [s.class.predF[i]!, s.sub.predU[i]!, s.mod.predU[i]!, s.mod_sub.predU[i]!, s.pl.predU[i]!]),
    );
    fig.macro_f1_global = global.macroF1;
    fig.micro_f1_global = global.microF1;
    fig.weighted_f1_global = global.weightedF1;
    fig.acc_global = global.accuracy;
    fig.hamming_loss_global = global.hammingLoss;

    fig.json_valid_pct = pct(a.json_valid, a.json_total);
    fig.median_latency_ms = median(a.latency);
    const t = tokens.get(a);
    const totals = t ? t.input.map((x, i) => x + t.output[i]!) : [];
    fig.avg_input_tokens = t?.input.length ? meanOfInts(t.input, t.line) : 0;
    fig.avg_output_tokens = t?.output.length ? meanOfInts(t.output, t.line) : 0;
    fig.avg_total_tokens = totals.length ? meanOfInts(totals, t?.line) : 0;
    fig.tokens_per_1k_images = (fig.avg_total_tokens as number) * 1000;
    perModel[model] = fig;
  }

  const fieldResults = Object.fromEntries(
    Object.entries(fieldCounters).map(([f, c]) => [f, { accuracy_pct: pct(c.correct, c.total), correct: c.correct, total: c.total }]),
  );
  return { perModel, fieldResults, overallAccuracy: pct(allFieldsCorrect, detailed), totalItems: records.length };
}
