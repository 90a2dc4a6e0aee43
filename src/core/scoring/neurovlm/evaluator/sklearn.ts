/**
 * The scikit-learn metrics NeuroVLM-Bench's evaluator calls, with the
 * argument patterns it uses and scikit-learn 1.2's results on them:
 * `precision_recall_fscore_support` (labels given or not; macro, micro,
 * weighted or per label; a 0/0 is 0, which is what both `zero_division=0` and
 * the default "warn" give), `balanced_accuracy_score`, `confusion_matrix` with
 * `normalize="all"`, and the multilabel forms behind `MultiLabelBinarizer`
 * (`f1_score`, subset `accuracy_score`, `hamming_loss`).
 * The generic classification metrics NeuroEval uses elsewhere live in
 * `metrics/classification.ts`; these are kept apart so that nothing the
 * benchmark's figures depend on changes when NeuroEval's own definitions do.
 */

import { pyCompareStr } from '../../../python/values.ts';

export type Average = 'macro' | 'micro' | 'weighted';

/**
 * A predicted value: a label, or a symbol standing for a value no label can
 * equal (the evaluator's `'__dummy__'` for an abstention, which its label
 * normalisation makes impossible in data; a symbol cannot collide with any
 * string at all).
 */
export type Predicted = string | symbol;

interface Counts {
  readonly tp: number[];
  readonly pred: number[];
  readonly truth: number[];
}

const div = (a: number, b: number): number => (b === 0 ? 0 : a / b);
const f1Of = (p: number, r: number): number => (p + r === 0 ? 0 : (2 * p * r) / (p + r));

/** Sorted distinct values, as `np.unique` / `sorted(set(...))` give them for strings: by code point. */
export function uniqueSorted(xs: Iterable<string>): string[] {
  return [...new Set(xs)].sort(pyCompareStr);
}

function counts(yTrue: readonly string[], yPred: readonly Predicted[], labels: readonly string[]): Counts {
  const index = new Map(labels.map((l, i) => [l, i]));
  const tp = labels.map(() => 0);
  const pred = labels.map(() => 0);
  const truth = labels.map(() => 0);
  yTrue.forEach((t, k) => {
    const p = yPred[k]!;
    const ti = index.get(t);
    const pi = typeof p === 'string' ? index.get(p) : undefined;
    if (ti !== undefined) truth[ti]!++;
    if (pi !== undefined) pred[pi]!++;
    if (ti !== undefined && t === p) tp[ti]!++;
  });
  return { tp, pred, truth };
}

interface Prf {
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

function fromCounts(c: Counts, average: Average): Prf {
  if (average === 'micro') {
    const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
    const p = div(sum(c.tp), sum(c.pred));
    const r = div(sum(c.tp), sum(c.truth));
    return { precision: p, recall: r, f1: f1Of(p, r) };
  }
  const per = perLabelFromCounts(c);
  if (average === 'macro') {
    // np.average of an empty array: NaN (labels=[]).
    const mean = (xs: number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
    return { precision: mean(per.precision), recall: mean(per.recall), f1: mean(per.f1) };
  }
  const total = c.truth.reduce((a, b) => a + b, 0);
  // With no true instance of any label scikit-learn returns the zero-division value, 0.
  if (total === 0) return { precision: 0, recall: 0, f1: 0 };
  const wmean = (xs: number[]): number => xs.reduce((a, x, i) => a + x * c.truth[i]!, 0) / total;
  return { precision: wmean(per.precision), recall: wmean(per.recall), f1: wmean(per.f1) };
}

function perLabelFromCounts(c: Counts): { precision: number[]; recall: number[]; f1: number[] } {
  const precision = c.tp.map((tp, i) => div(tp, c.pred[i]!));
  const recall = c.tp.map((tp, i) => div(tp, c.truth[i]!));
  return { precision, recall, f1: precision.map((p, i) => f1Of(p, recall[i]!)) };
}

/** `precision_recall_fscore_support(y_true, y_pred, labels=labels, average=average)`; labels default to every value seen. */
export function prf(yTrue: readonly string[], yPred: readonly Predicted[], average: Average, labels?: readonly string[]): Prf {
  const seen = (): string[] => uniqueSorted([...yTrue, ...yPred.filter((p): p is string => typeof p === 'string')]);
  return fromCounts(counts(yTrue, yPred, labels ?? seen()), average);
}

/** The same with `average=None`: one value per label of `labels`, in that order. */
export function prfPerLabel(yTrue: readonly string[], yPred: readonly Predicted[], labels: readonly string[]): { precision: number[]; recall: number[]; f1: number[] } {
  return perLabelFromCounts(counts(yTrue, yPred, labels));
}

/** `balanced_accuracy_score`: mean recall over the labels that occur in `y_true`. */
export function balancedAccuracy(yTrue: readonly string[], yPred: readonly string[]): number {
  const labels = uniqueSorted(yTrue);
  const c = counts(yTrue, yPred, labels);
  const recalls = c.tp.map((tp, i) => tp / c.truth[i]!);
  return recalls.length === 0 ? NaN : recalls.reduce((a, b) => a + b, 0) / recalls.length;
}

/** `confusion_matrix(y_true, y_pred, labels=labels, normalize="all")`: rows gold, columns answer, shares of all pairs counted. */
export function confusionAll(yTrue: readonly string[], yPred: readonly string[], labels: readonly string[]): number[][] {
  const index = new Map(labels.map((l, i) => [l, i]));
  const m = labels.map(() => labels.map(() => 0));
  let total = 0;
  yTrue.forEach((t, k) => {
    const ti = index.get(t);
    const pi = index.get(yPred[k]!);
    if (ti === undefined || pi === undefined) return;
    m[ti]![pi]!++;
    total++;
  });
  return m.map((row) => row.map((x) => x / total));
}

interface MultilabelFigures {
  readonly macroF1: number;
  readonly microF1: number;
  readonly weightedF1: number;
  /** Subset accuracy: rows whose label sets are equal. */
  readonly accuracy: number;
  readonly hammingLoss: number;
}

/**
 * `MultiLabelBinarizer().fit(y_true)` then the multilabel metrics on
 * `transform(y_true)` and `transform(y_pred)`: each row is the *set* of its
 * labels; a predicted label not seen in `y_true` is dropped by `transform`.
 */
export function multilabel(yTrue: readonly (readonly string[])[], yPred: readonly (readonly string[])[]): MultilabelFigures {
  const classes = uniqueSorted(yTrue.flat());
  const known = new Set(classes);
  const rowsT = yTrue.map((r) => new Set(r));
  const rowsP = yPred.map((r) => new Set(r.filter((l) => known.has(l))));
  const tp = classes.map(() => 0);
  const pred = classes.map(() => 0);
  const truth = classes.map(() => 0);
  let exact = 0;
  let differences = 0;
  rowsT.forEach((t, i) => {
    const p = rowsP[i]!;
    let same = true;
    classes.forEach((c, j) => {
      const a = t.has(c);
      const b = p.has(c);
      if (a) truth[j]!++;
      if (b) pred[j]!++;
      if (a && b) tp[j]!++;
      if (a !== b) {
        same = false;
        differences++;
      }
    });
    if (same) exact++;
  });
  const c = { tp, pred, truth };
  const n = rowsT.length;
  return {
    macroF1: fromCounts(c, 'macro').f1,
    microF1: fromCounts(c, 'micro').f1,
    weightedF1: fromCounts(c, 'weighted').f1,
    accuracy: n === 0 ? NaN : exact / n,
    hammingLoss: n * classes.length === 0 ? NaN : differences / (n * classes.length),
  };
}
