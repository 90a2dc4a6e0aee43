/**
 * Cohen's κ between two raters, as scikit-learn `cohen_kappa_score`:
 *   κ = 1 − Σ w·O ÷ Σ w·E
 * where O is the confusion matrix over `labels` (pairs with a label outside
 * the list are dropped), E = outer(row sums, column sums) ÷ Σ O, and the
 * disagreement weights are 1 − I (unweighted), |i − j| (linear) or (i − j)²
 * (quadratic) by position in `labels`. Default labels: the sorted union of
 * both raters' values (numbers ascending, otherwise string order).
 * Σ w·E = 0 (e.g. one category only, or no pairs) → NaN (undefined).
 */
import { InvalidInputError } from '../../errors.ts';

type KappaWeights = 'none' | 'linear' | 'quadratic';
type Rating = string | number;

interface KappaOptions {
  readonly labels?: readonly Rating[];
  readonly weights?: KappaWeights;
}

function sortedLabels(values: readonly Rating[]): Rating[] {
  const unique = [...new Set(values)];
  if (unique.every((v) => typeof v === 'number')) return (unique as number[]).sort((a, b) => a - b);
  return unique.sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
}

/** Cohen's κ (unweighted, linear or quadratic). */
export function cohenKappa(y1: readonly Rating[], y2: readonly Rating[], options: KappaOptions = {}): number {
  if (y1.length !== y2.length) throw new InvalidInputError(`The two raters rated different numbers of items (${y1.length} vs ${y2.length}).`);
  const labels = options.labels ?? sortedLabels([...y1, ...y2]);
  const index = new Map<Rating, number>();
  labels.forEach((l, i) => {
    if (!index.has(l)) index.set(l, i);
  });
  const k = labels.length;
  const observed = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let i = 0; i < y1.length; i++) {
    const a = index.get(y1[i]!);
    const b = index.get(y2[i]!);
    if (a !== undefined && b !== undefined) observed[a]![b]!++;
  }
  const rows = observed.map((r) => r.reduce((s, x) => s + x, 0));
  const cols = labels.map((_, j) => observed.reduce((s, r) => s + r[j]!, 0));
  const total = rows.reduce((s, x) => s + x, 0);
  const weights = options.weights ?? 'none';
  let wo = 0;
  let we = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const w = weights === 'none' ? (i === j ? 0 : 1) : weights === 'linear' ? Math.abs(i - j) : (i - j) ** 2;
      wo += w * observed[i]![j]!;
      if (total > 0) we += (w * rows[i]! * cols[j]!) / total;
    }
  }
  return we === 0 ? NaN : 1 - wo / we;
}
