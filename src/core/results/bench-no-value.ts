/**
 * Why a NeuroVLM-Bench figure has no value. The benchmark's evaluator writes
 * NaN where a formula has nothing to work on; NeuroEval keeps that value (the
 * figure must equal the evaluator's) but says why in words, read from the
 * figures themselves, so it holds for any stored set and any harness file.
 */
import { NEUROVLM_BENCH_FIELDS, type NeuroVlmBenchFigures } from '../scoring/neurovlm/evaluator/index.ts';

/** The evaluator's per-label prefix of each field key (its `per_<…>_support` lists). */
const SUPPORT_PREFIX: Readonly<Record<string, string>> = { class: 'per_class', sub: 'per_subclass', mod: 'per_modality', mod_sub: 'per_modality_sub', pl: 'per_plane' };
/** Headline figures computed from the class series. */
const CLASS_FIGURES = new Set(['accuracy', 'macro_f1', 'micro_f1', 'weighted_f1', 'macro_f1_abstention', 'micro_f1_abstention', 'weighted_f1_abstention', 'uncertainty', 'ece', 'brier', 'auc']);
const CALIBRATION = new Set(['ece', 'brier', 'auc']);

/** The evaluator's field key a figure is computed from (`class`, `sub`, …), or null. */
function fieldOf(key: string): string | null {
  if (CLASS_FIGURES.has(key)) return 'class';
  const m = /^overall_(class|sub|mod_sub|mod|pl)_/.exec(key);
  return m ? m[1]! : null;
}

/** Why `figures[key]` is NaN; null when it has a value. */
export function benchNoValueReason(figures: NeuroVlmBenchFigures, key: string): string | null {
  const v = figures[key];
  if (typeof v !== 'number' || !Number.isNaN(v)) return null;
  if (key === 'median_latency_ms') return 'no answer recorded its latency (or one latency is not a number)';
  const field = fieldOf(key);
  if (field) {
    const support = figures[`${SUPPORT_PREFIX[field]}_support`];
    const name = NEUROVLM_BENCH_FIELDS.find((f) => f.key === field)?.field ?? field;
    if (!Array.isArray(support) || support.length === 0) {
      return figures.json_valid_pct === 0
        ? 'no call succeeded, so there is no answer to score'
        : `no answered case has a ground-truth ${name === 'diagnosis_name' ? 'class (diagnosis_name)' : name} to score against`;
    }
    const calibration = CALIBRATION.has(key) || /_(ece|brier|auc)$/.test(key);
    if (calibration && /auc$/.test(key) && !Number.isNaN(figures[key.replace(/auc$/, 'ece')] as number)) {
      return 'every answer was right, or every answer was wrong: the AUC needs both';
    }
    if (calibration) return 'a stated diagnosis_confidence is not a number';
  }
  return 'the evaluator has no value for it on these answers';
}

export interface BenchNoValueNote {
  readonly model: string;
  /** Figure keys, in the order asked. */
  readonly figures: readonly string[];
  readonly reason: string;
}

/** The NaN figures among `keys` for each model, grouped by reason. */
export function benchNoValueNotes(models: Readonly<Record<string, NeuroVlmBenchFigures>>, keys: readonly string[]): BenchNoValueNote[] {
  const out: BenchNoValueNote[] = [];
  for (const [model, figures] of Object.entries(models)) {
    const byReason = new Map<string, string[]>();
    for (const k of keys) {
      const reason = benchNoValueReason(figures, k);
      if (reason) byReason.set(reason, [...(byReason.get(reason) ?? []), k]);
    }
    for (const [reason, list] of byReason) out.push({ model, figures: list, reason });
  }
  return out;
}
