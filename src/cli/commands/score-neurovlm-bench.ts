/**
 * `neuroeval score`'s NeuroVLM-Bench section: the benchmark evaluator's own
 * figures (src/core/scoring/neurovlm/evaluator), per model and per source
 * dataset, printed under the evaluator's names so they can be compared with
 * its CSV line by line.
 */
import { describeNeuroVlmBenchFailure, NEUROVLM_BENCH_FIELDS, NEUROVLM_BENCH_HEADLINE, type NeuroVlmBenchFigures } from '../../core/scoring/neurovlm/evaluator/index.ts';
import type { NeuroVlmBenchBreakdown } from '../../core/scoring/neurovlm/evaluator/types.ts';

function cell(x: unknown, kind: 'share' | 'percent' | 'ms' | 'number' = 'number'): string {
  if (typeof x !== 'number') return '–';
  if (Number.isNaN(x)) return 'NaN';
  if (kind === 'ms') return `${Math.round(x)} ms`;
  if (kind === 'percent') return `${x.toFixed(2)} %`;
  return x.toFixed(4);
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]?.length ?? 0)));
  return rows.map((r) => r.map((v, c) => (c === 0 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join('  ').trimEnd());
}

function headline(models: Readonly<Record<string, NeuroVlmBenchFigures>>, indent: string): string[] {
  return table([
    [`${indent}model`, ...NEUROVLM_BENCH_HEADLINE.map((h) => h.key)],
    ...Object.entries(models).map(([m, f]) => [`${indent}${m}`, ...NEUROVLM_BENCH_HEADLINE.map((h) => cell(f[h.key], h.kind))]),
  ]);
}

function perField(models: Readonly<Record<string, NeuroVlmBenchFigures>>): string[] {
  const metrics = ['accuracy', 'f1', 'f1_abstention', 'weighted_f1', 'weighted_f1_abstention', 'precision', 'recall'];
  return Object.entries(models).flatMap(([m, f]) => [
    `  ${m}:`,
    ...table([
      ['    field', ...metrics.map((x) => `overall_<field>_${x}`)],
      ...NEUROVLM_BENCH_FIELDS.map(({ key, field }) => [`    ${key} (${field})`, ...metrics.map((x) => cell(f[`overall_${key}_${x}`]))]),
    ]),
  ]);
}

/** The section's lines. */
export function neuroVlmBenchLines(b: NeuroVlmBenchBreakdown): string[] {
  if (b.failure) return [describeNeuroVlmBenchFailure(b.failure), ''];
  const datasets = Object.entries(b.datasets);
  const failed = Object.entries(b.datasetFailures ?? {});
  return [
    "NeuroVLM-Bench figures: the benchmark's own evaluator (evaluate_detailed.py) reproduced exactly, its names, label sets and rules",
    '("accuracy" is balanced accuracy; json_valid_pct counts successful calls over all calls). --json prints every figure under "neurovlm_bench".',
    '',
    ...headline(b.all, '  '),
    '',
    'Per field (balanced accuracy; F1 plain and with abstention; macro precision/recall with abstention):',
    ...perField(b.all),
    '',
    ...(datasets.length
      ? ['Per source dataset (input.metadata.dataset, as the evaluator\'s dataset filter):', ...datasets.flatMap(([d, models]) => [`  ${d}:`, ...headline(models, '    ')]), '']
      : []),
    ...(failed.length ? ['No figures for these source datasets (the evaluator stops on their records):', ...failed.map(([d, f]) => `  ${d}: ${f.message}`), ''] : []),
  ];
}
