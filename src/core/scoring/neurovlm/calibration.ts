/**
 * NeuroVLM-Bench's calibration figures as its evaluator computes them
 * (ChatMED/neurovlm-bench `evaluate_detailed.py`: the confidence series,
 * `ece_binned`, and the try/except around `brier_score_loss`):
 *
 * - a confidence is Python's `float(diagnosis_confidence)`, 0.0 when that
 *   raises: `true` → 1, `"0.9 "` → 0.9, `"inf"` → ∞, `"nan"` → NaN,
 *   `"90%"`, `null`, a list → 0;
 * - ECE bins have NumPy's `linspace(0, 1, 11)` edges (0.30000000000000004,
 *   0.6000000000000001, … as NumPy computes them), the first bin [0, e₁],
 *   then (eᵢ, eᵢ₊₁]; confidences are clipped to [0, 1] first;
 * - a NaN confidence makes scikit-learn's Brier score raise, and the
 *   evaluator then reports ECE, Brier and AUROC all as NaN.
 */
import { PyException, pyFloat } from '../../python/values.ts';

/** Python's `float(x)` for a JSON value, or null where Python raises (src/core/python has the rules). */
export function pythonFloat(x: unknown): number | null {
  if (typeof x !== 'boolean' && typeof x !== 'number' && typeof x !== 'string') return null;
  try {
    return pyFloat(x);
  } catch (error) {
    if (error instanceof PyException) return null;
    throw error;
  }
}

/** NumPy's `linspace(0, 1, bins + 1)`: step · i, the last edge exactly 1. */
export function linspaceEdges(bins: number): number[] {
  const step = 1 / bins;
  return Array.from({ length: bins + 1 }, (_, i) => (i === bins ? 1 : i * step));
}

/** `ece_binned`: confidences clipped to [0, 1]; a NaN confidence falls in no bin but counts in N. */
export function neuroVlmEce(confidences: readonly number[], correct: readonly boolean[], bins = 10): number {
  const n = confidences.length;
  if (n === 0) return NaN;
  const probs = confidences.map((c) => Math.min(1, Math.max(0, c)));
  const edges = linspaceEdges(bins);
  let ece = 0;
  for (let i = 0; i < bins; i++) {
    let count = 0;
    let hits = 0;
    let sum = 0;
    probs.forEach((p, k) => {
      const inBin = i > 0 ? p > edges[i]! && p <= edges[i + 1]! : p >= edges[i]! && p <= edges[i + 1]!;
      if (!inBin) return;
      count++;
      sum += p;
      if (correct[k]) hits++;
    });
    if (count > 0) ece += (count / n) * Math.abs(hits / count - sum / count);
  }
  return ece;
}
