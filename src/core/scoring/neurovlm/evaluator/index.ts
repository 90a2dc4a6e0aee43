/**
 * NeuroVLM-Bench's own figures for whatever NeuroEval holds: a harness
 * results file, or a local run written in the harness layout (what
 * `neuroeval export --format neurovlm-jsonl` writes). The figures are the
 * evaluator's on that file, for the whole file and for each source dataset
 * (the evaluator's `dataset` filter), keyed by the evaluator's model names;
 * where the evaluator stops on the file, there are no figures and `failure`
 * says why.
 */
import { armKey } from '../../run/types.ts';
import { neuroVlmJsonlRecords } from '../../io/neurovlm-jsonl.ts';
import type { BenchCase } from '../../../bundle/types.ts';
import type { ScorableResponse } from '../items.ts';
import { evaluateNeuroVlmBench, NeuroVlmBenchStop, type NeuroVlmBenchFigures } from './evaluate.ts';
import { datasetsIn, decodeLikePython, loadJsonl } from './load.ts';

export type { NeuroVlmBenchFigures } from './evaluate.ts';
export type { NeuroVlmBenchBreakdown, NeuroVlmBenchFailure } from './types.ts';
import type { NeuroVlmBenchBreakdown, NeuroVlmBenchFailure } from './types.ts';

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

function failureOf(error: unknown): NeuroVlmBenchFailure {
  if (error instanceof NeuroVlmBenchStop) return { kind: error.kind, message: error.message, ...(error.line === undefined ? {} : { line: error.line }) };
  throw error;
}

/** One line saying why a breakdown has no figures, for people. */
export function describeNeuroVlmBenchFailure(f: NeuroVlmBenchFailure): string {
  return f.kind === 'evaluator-fails'
    ? `The benchmark's evaluator (evaluate_detailed.py) stops on this file, so there are no NeuroVLM-Bench figures for it: ${f.message}`
    : `NeuroVLM-Bench figures are not shown: this file reaches a point of the benchmark's evaluator that NeuroEval does not reproduce exactly (${f.message})`;
}

/** The evaluator on a file's text (as Python decoded it). */
export function neuroVlmBenchOfText(text: string): NeuroVlmBenchBreakdown {
  let records;
  try {
    records = loadJsonl(text);
  } catch (error) {
    return { all: {}, datasets: {}, failure: failureOf(error) };
  }
  const datasets: Record<string, Record<string, NeuroVlmBenchFigures>> = {};
  const datasetFailures: Record<string, NeuroVlmBenchFailure> = {};
  for (const d of datasetsIn(records)) {
    try {
      datasets[d] = evaluateNeuroVlmBench(loadJsonl(text, d)).perModel;
    } catch (error) {
      datasetFailures[d] = failureOf(error);
    }
  }
  const extra = Object.keys(datasetFailures).length ? { datasetFailures } : {};
  try {
    return { all: evaluateNeuroVlmBench(records).perModel, datasets, ...extra };
  } catch (error) {
    return { all: {}, datasets: {}, failure: failureOf(error) };
  }
}

/** The evaluator on a file's bytes: it reads them as strict UTF-8 and stops on anything else. */
export function neuroVlmBenchOfBytes(bytes: Uint8Array): NeuroVlmBenchBreakdown {
  let text: string;
  try {
    text = decodeLikePython(bytes);
  } catch (error) {
    return { all: {}, datasets: {}, failure: failureOf(error) };
  }
  return neuroVlmBenchOfText(text);
}

/**
 * The same for a local run: the evaluator on the run's answers as
 * `neuroeval export --format neurovlm-jsonl` writes them (every answer of the
 * run, whatever its protocol). The evaluator knows no image variants: a run
 * with several is evaluated one variant's answers at a time, as a file each,
 * and the figures are keyed "model [variant]".
 */
export function neuroVlmBenchForRun(runId: string, responses: readonly ScorableResponse[], cases: readonly BenchCase[]): NeuroVlmBenchBreakdown {
  const variants = [...new Set(responses.map((r) => r.variant))].sort();
  const text = (list: readonly ScorableResponse[]): string =>
    neuroVlmJsonlRecords({ id: runId }, list, cases)
      .records.map((r) => `${JSON.stringify(r)}\n`)
      .join('');
  if (variants.length <= 1) return neuroVlmBenchOfText(text(responses));
  const all: Record<string, NeuroVlmBenchFigures> = {};
  const datasets: Record<string, Record<string, NeuroVlmBenchFigures>> = {};
  const datasetFailures: Record<string, NeuroVlmBenchFailure> = {};
  for (const v of variants) {
    const b = neuroVlmBenchOfText(text(responses.filter((r) => r.variant === v)));
    if (b.failure) return { all: {}, datasets: {}, failure: { ...b.failure, message: `variant "${v}": ${b.failure.message}` } };
    for (const [m, f] of Object.entries(b.all)) all[armKey(m, v)] = f;
    for (const [d, models] of Object.entries(b.datasets)) for (const [m, f] of Object.entries(models)) (datasets[d] ??= {})[armKey(m, v)] = f;
    for (const [d, f] of Object.entries(b.datasetFailures ?? {})) datasetFailures[d] = { ...f, message: `variant "${v}": ${f.message}` };
  }
  const sorted = Object.fromEntries(Object.keys(datasets).sort().map((d) => [d, datasets[d]!]));
  return { all, datasets: sorted, ...(Object.keys(datasetFailures).length ? { datasetFailures } : {}) };
}
