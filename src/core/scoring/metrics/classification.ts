/**
 * Single-label classification metrics with abstention handling, as
 * NeuroVLM-Bench reports them per answer field (docs/protocols.md#neurovlm-bench-neuroevals-own-analysis;
 * ChatMED/neurovlm-bench `evaluate_detailed.py`).
 *
 * Inputs are parallel arrays of gold and predicted label strings, already
 * normalised by the caller. A gold `null` (or a gold equal to the abstention
 * marker) is *not scorable*: the item is left out of every metric and counted
 * in `notScorable`. A predicted `null` is an abstention, like the marker.
 *
 * Precision/recall/F1 follow scikit-learn `precision_recall_fscore_support`
 * with `zero_division=0` (a 0/0 precision, recall or F1 is 0):
 * - `standard`: sklearn's default label set, every value present in gold or
 *   predictions, so the abstention marker and any out-of-vocabulary answer are
 *   classes of their own (an abstention is a wrong answer like any other).
 * - `withAbstention` ("F1 with abstention"): abstentions are relabelled to a
 *   dummy class outside `labels`; with sklearn's `labels=` they count as a
 *   false negative for the true class and never as a false positive. With the
 *   default `labels` this equals `evaluate_detailed.py`'s
 *   `f1_with_abstention(labels=np.unique(y_true))`.
 * Ratios with no scorable item are NaN ("no data"), never a thrown error.
 */
import { InvalidInputError } from '../../errors.ts';

/** The label abstentions normalise to in NeuroVLM-Bench. */
export const DEFAULT_ABSTENTION = 'undetermined';

interface ClassificationInput {
  readonly gold: readonly (string | null)[];
  readonly pred: readonly (string | null)[];
  /** Label set and order (confusion matrix, per-label rows). Default: sorted scorable gold labels. */
  readonly labels?: readonly string[];
  /** Prediction value meaning "abstained". Default {@link DEFAULT_ABSTENTION}. */
  readonly abstention?: string;
}

interface PrfAverages {
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

interface AveragedPrf {
  readonly macro: PrfAverages;
  readonly weighted: PrfAverages;
  readonly micro: PrfAverages;
}

interface LabelMetrics extends PrfAverages {
  readonly label: string;
  /** Scorable items whose gold is this label. */
  readonly support: number;
  /** One-vs-rest (TPR + TNR)/2; NaN when the label has no positives or no negatives. */
  readonly balancedAccuracy: number;
  /** Share of this label's items the model abstained on; NaN when support is 0. */
  readonly abstentionRate: number;
}

export interface ConfusionMatrix {
  readonly labels: readonly string[];
  /** matrix[i][j]: gold labels[i], predicted labels[j]. */
  readonly matrix: readonly (readonly number[])[];
  /** Per gold label: abstentions. */
  readonly abstained: readonly number[];
  /** Per gold label: predictions outside `labels` that are not abstentions. */
  readonly other: readonly number[];
}

interface ClassificationReport {
  readonly n: number;
  readonly scorable: number;
  readonly notScorable: number;
  readonly correct: number;
  readonly accuracy: number;
  readonly abstained: number;
  readonly abstentionRate: number;
  /** sklearn `balanced_accuracy_score`: mean recall over labels present in gold. */
  readonly balancedAccuracy: number;
  readonly labels: readonly string[];
  readonly perLabel: readonly LabelMetrics[];
  readonly confusion: ConfusionMatrix;
  readonly standard: AveragedPrf;
  readonly withAbstention: AveragedPrf;
}

const ratio = (num: number, den: number): number => (den === 0 ? 0 : num / den);
const f1Of = (tp: number, fp: number, fn: number): number => ratio(2 * tp, 2 * tp + fp + fn);

interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

function countsFor(gold: readonly string[], pred: readonly (string | null)[], label: string): Counts {
  const c: Counts = { tp: 0, fp: 0, fn: 0 };
  for (let i = 0; i < gold.length; i++) {
    const g = gold[i] === label;
    const p = pred[i] === label;
    if (g && p) c.tp++;
    else if (p) c.fp++;
    else if (g) c.fn++;
  }
  return c;
}

/**
 * sklearn `precision_recall_fscore_support(gold, pred, labels=classes,
 * zero_division=0)` for the macro, support-weighted and micro averages.
 * Values outside `classes` (and `null`) are ignored as classes but still make
 * their item a miss. No classes or no items → NaN.
 */
export function averagedPrf(gold: readonly string[], pred: readonly (string | null)[], classes: readonly string[]): AveragedPrf {
  if (classes.length === 0 || gold.length === 0) {
    const nan: PrfAverages = { precision: NaN, recall: NaN, f1: NaN };
    return { macro: nan, weighted: nan, micro: nan };
  }
  const macro = { precision: 0, recall: 0, f1: 0 };
  const weighted = { precision: 0, recall: 0, f1: 0 };
  const sum: Counts = { tp: 0, fp: 0, fn: 0 };
  let totalSupport = 0;
  for (const label of classes) {
    const c = countsFor(gold, pred, label);
    const support = c.tp + c.fn;
    const p = ratio(c.tp, c.tp + c.fp);
    const r = ratio(c.tp, support);
    const f = f1Of(c.tp, c.fp, c.fn);
    macro.precision += p / classes.length;
    macro.recall += r / classes.length;
    macro.f1 += f / classes.length;
    weighted.precision += p * support;
    weighted.recall += r * support;
    weighted.f1 += f * support;
    totalSupport += support;
    sum.tp += c.tp;
    sum.fp += c.fp;
    sum.fn += c.fn;
  }
  const w = (x: number): number => ratio(x, totalSupport);
  return {
    macro,
    weighted: { precision: w(weighted.precision), recall: w(weighted.recall), f1: w(weighted.f1) },
    micro: { precision: ratio(sum.tp, sum.tp + sum.fp), recall: ratio(sum.tp, sum.tp + sum.fn), f1: f1Of(sum.tp, sum.fp, sum.fn) },
  };
}

/** Share of equal pairs; NaN for empty input. */
export function accuracy(gold: readonly string[], pred: readonly (string | null)[]): number {
  if (gold.length === 0) return NaN;
  let correct = 0;
  for (let i = 0; i < gold.length; i++) if (gold[i] === pred[i]) correct++;
  return correct / gold.length;
}

const sortedUnique = (values: Iterable<string>): string[] => [...new Set(values)].sort();

/** Builds the full per-field report; see the module comment for the semantics. */
export function classificationReport(input: ClassificationInput): ClassificationReport {
  const { gold: rawGold, pred: rawPred } = input;
  if (rawGold.length !== rawPred.length) {
    throw new InvalidInputError(`Gold and predicted labels differ in length (${rawGold.length} vs ${rawPred.length}).`);
  }
  const marker = input.abstention ?? DEFAULT_ABSTENTION;
  const gold: string[] = [];
  const pred: string[] = [];
  for (let i = 0; i < rawGold.length; i++) {
    const g = rawGold[i];
    if (g === null || g === undefined || g === marker) continue;
    gold.push(g);
    pred.push(rawPred[i] ?? marker);
  }
  const labels = input.labels ? input.labels.filter((l) => l !== marker) : sortedUnique(gold);
  const labelIndex = new Map(labels.map((l, i) => [l, i]));
  const n = gold.length;
  const nanIfEmpty = (x: number): number => (n === 0 ? NaN : x);

  const matrix = labels.map(() => new Array<number>(labels.length).fill(0));
  const abstainedRow = new Array<number>(labels.length).fill(0);
  const otherRow = new Array<number>(labels.length).fill(0);
  let correct = 0;
  let abstained = 0;
  for (let i = 0; i < n; i++) {
    const g = gold[i]!;
    const p = pred[i]!;
    if (g === p) correct++;
    if (p === marker) abstained++;
    const row = labelIndex.get(g);
    if (row === undefined) continue;
    const col = labelIndex.get(p);
    if (col !== undefined) matrix[row]![col]!++;
    else if (p === marker) abstainedRow[row]!++;
    else otherRow[row]!++;
  }

  const perLabel = labels.map((label, i): LabelMetrics => {
    const c = countsFor(gold, pred, label);
    const support = c.tp + c.fn;
    const negatives = n - support;
    const tnr = negatives === 0 ? NaN : (negatives - c.fp) / negatives;
    const tpr = support === 0 ? NaN : c.tp / support;
    return {
      label,
      support,
      precision: nanIfEmpty(ratio(c.tp, c.tp + c.fp)),
      recall: nanIfEmpty(ratio(c.tp, support)),
      f1: nanIfEmpty(f1Of(c.tp, c.fp, c.fn)),
      balancedAccuracy: (tpr + tnr) / 2,
      abstentionRate: support === 0 ? NaN : abstainedRow[i]! / support,
    };
  });

  const goldClasses = sortedUnique(gold);
  const recalls = goldClasses.map((l) => {
    const c = countsFor(gold, pred, l);
    return c.tp / (c.tp + c.fn);
  });
  const standardClasses = [...labels, ...sortedUnique([...gold, ...pred]).filter((l) => !labelIndex.has(l))];
  const dummyPred = pred.map((p) => (p === marker ? null : p));

  return {
    n: rawGold.length,
    scorable: n,
    notScorable: rawGold.length - n,
    correct,
    accuracy: nanIfEmpty(correct / n),
    abstained,
    abstentionRate: nanIfEmpty(abstained / n),
    balancedAccuracy: recalls.length === 0 ? NaN : recalls.reduce((a, b) => a + b, 0) / recalls.length,
    labels,
    perLabel,
    confusion: { labels, matrix, abstained: abstainedRow, other: otherRow },
    standard: averagedPrf(gold, pred, standardClasses),
    withAbstention: averagedPrf(gold, dummyPred, labels),
  };
}
