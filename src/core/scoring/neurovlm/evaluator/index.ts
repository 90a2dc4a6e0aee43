/**
 * NeuroVLM-Bench's own figures for whatever NeuroEval holds: a harness
 * results file, or a local run turned into the harness layout. One set of
 * figures per arm (model, or model and image variant), for the whole input
 * and for each source dataset (the evaluator's `dataset` filter).
 */
import { armKey } from '../../run/types.ts';
import { neuroVlmJsonlRecords } from '../../io/neurovlm-jsonl.ts';
import type { BenchCase } from '../../../bundle/types.ts';
import type { ScorableResponse } from '../items.ts';
import { datasetsOf, evaluateNeuroVlmBench, filterDataset, type NeuroVlmBenchFigures } from './evaluate.ts';
import { pyDict, pyTruthy } from './python.ts';

export type { NeuroVlmBenchFigures } from './evaluate.ts';

export interface NeuroVlmBenchBreakdown {
  /** Figures per arm key over every record. */
  readonly all: Readonly<Record<string, NeuroVlmBenchFigures>>;
  /** Per source dataset (sorted), figures per arm key over that dataset's records. */
  readonly datasets: Readonly<Record<string, Readonly<Record<string, NeuroVlmBenchFigures>>>>;
}

/** The figures NeuroEval shows first, in this order, with what they are (benchmark names). */
export const NEUROVLM_BENCH_HEADLINE: readonly { readonly key: string; readonly label: string; readonly kind: 'share' | 'percent' | 'ms' | 'number' }[] = [
  { key: 'accuracy', label: 'accuracy (balanced, class)', kind: 'share' },
  { key: 'macro_f1', label: 'macro_f1 (class)', kind: 'share' },
  { key: 'macro_f1_abstention', label: 'macro_f1_abstention (class)', kind: 'share' },
  { key: 'weighted_f1', label: 'weighted_f1 (class)', kind: 'share' },
  { key: 'ece', label: 'ece', kind: 'number' },
  { key: 'brier', label: 'brier', kind: 'number' },
  { key: 'auc', label: 'auc', kind: 'number' },
  { key: 'json_valid_pct', label: 'json_valid_pct', kind: 'percent' },
  { key: 'median_latency_ms', label: 'median_latency_ms', kind: 'ms' },
];

/** The evaluator's field names in figure keys (`overall_<field>_…`), with the answer field each one scores. */
export const NEUROVLM_BENCH_FIELDS: readonly { readonly key: string; readonly field: string }[] = [
  { key: 'class', field: 'diagnosis_name' },
  { key: 'sub', field: 'diagnosis_detailed' },
  { key: 'mod', field: 'modality' },
  { key: 'mod_sub', field: 'specialized_sequence' },
  { key: 'pl', field: 'plane' },
];

/**
 * Evaluates `records` with each record filed under `armOf(index)` as its
 * model (a harness file without variants: its own `model_requested`, so the
 * figures are the evaluator's per-model figures). A failed call that names no
 * model is left out, as the evaluator leaves it out.
 */
export function neuroVlmBenchBreakdown(records: readonly unknown[], armOf: (index: number) => string): NeuroVlmBenchBreakdown {
  const filed = records.flatMap((r, i) => {
    const rec = pyDict(r) ?? {};
    const input = pyDict(rec.input) ?? {};
    if (pyDict(rec.output)?.status !== 'success' && !pyTruthy(input.model_requested)) return [];
    return [{ ...rec, input: { ...input, model_requested: armOf(i) } }];
  });
  const datasets: Record<string, Record<string, NeuroVlmBenchFigures>> = {};
  for (const d of datasetsOf(filed)) datasets[d] = evaluateNeuroVlmBench(filterDataset(filed, d)).perModel;
  return { all: evaluateNeuroVlmBench(filed).perModel, datasets };
}

/** The same for a local run: its answers in the harness layout, one arm per model and variant. */
export function neuroVlmBenchForRun(runId: string, responses: readonly ScorableResponse[], cases: readonly BenchCase[]): NeuroVlmBenchBreakdown {
  const { records } = neuroVlmJsonlRecords({ id: runId }, responses, cases);
  return neuroVlmBenchBreakdown(records, (i) => armKey(responses[i]!.modelId, responses[i]!.variant));
}
