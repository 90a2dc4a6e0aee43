/**
 * NeuroVLM-Bench parity: every figure the benchmark's own evaluator
 * (`evaluate_detailed.py`, run with Debian's scikit-learn 1.2 by
 * scripts/parity/neurovlm-evaluator.py) reported on the committed result
 * files, for the whole file and for each source dataset, equals NeuroEval's
 * port to 1e-9, under the same name. The files carry the answers on which the
 * two used to disagree: "coronal" planes (no such ground truth), "none"/"n/a"
 * on every field, British spellings, gold subtypes that normalise to
 * "undetermined", harness parse failures, failed calls, confidences such as
 * `true`, "inf", "90%", 85 and "nan", latencies in seconds, a NaN ground truth.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../../../src/core/scoring/io/json-text.ts';
import { evaluateNeuroVlmBench, type EvaluatorRecord } from '../../../../../src/core/scoring/neurovlm/evaluator/evaluate.ts';
import { datasetsIn, loadJsonl } from '../../../../../src/core/scoring/neurovlm/evaluator/load.ts';

const DIR = new URL('../../../../fixtures/neurovlm-parity/', import.meta.url);
const read = (name: string): string => readFileSync(new URL(name, DIR), 'utf8');

interface UpstreamFigures {
  per_model: Record<string, Record<string, unknown>>;
  field_results: Record<string, { accuracy_pct: number; correct: number; total: number }>;
  overall_accuracy: number;
  total_items: number;
}
const expected = parseJsonText(read('evaluator-figures.json'), 'evaluator-figures.json', 1, 'numbers') as Record<string, { all: UpstreamFigures; datasets: Record<string, UpstreamFigures> }>;

/** Numbers equal to 1e-9 (NaN equals NaN); lists element by element; labels exactly. */
function same(actual: unknown, want: unknown, path: string, problems: string[]): void {
  if (typeof want === 'number') {
    const ok = typeof actual === 'number' && (Number.isNaN(want) ? Number.isNaN(actual) : Math.abs(actual - want) <= 1e-9);
    if (!ok) problems.push(`${path}: ${String(actual)} ≠ evaluator ${String(want)}`);
  } else if (Array.isArray(want)) {
    if (!Array.isArray(actual) || actual.length !== want.length) problems.push(`${path}: ${JSON.stringify(actual)} ≠ evaluator ${JSON.stringify(want)}`);
    else want.forEach((w, i) => same(actual[i], w, `${path}[${i}]`, problems));
  } else if (actual !== want) problems.push(`${path}: ${JSON.stringify(actual)} ≠ evaluator ${JSON.stringify(want)}`);
}

function compare(records: readonly EvaluatorRecord[], want: UpstreamFigures, where: string): { problems: string[]; figures: number } {
  const got = evaluateNeuroVlmBench(records);
  const problems: string[] = [];
  let figures = 0;
  same(Object.keys(got.perModel), Object.keys(want.per_model), `${where} models`, problems);
  for (const [model, figs] of Object.entries(want.per_model)) {
    const mine = got.perModel[model] ?? {};
    same(Object.keys(mine).sort(), Object.keys(figs).sort(), `${where} ${model} figure names`, problems);
    for (const [k, v] of Object.entries(figs)) {
      same(mine[k], v, `${where} ${model} ${k}`, problems);
      figures++;
    }
  }
  for (const [f, r] of Object.entries(want.field_results)) {
    same(got.fieldResults[f]?.accuracy_pct, r.accuracy_pct, `${where} field_results ${f}`, problems);
    same(got.fieldResults[f]?.correct, r.correct, `${where} field_results ${f} correct`, problems);
  }
  same(got.overallAccuracy, want.overall_accuracy, `${where} overall_accuracy`, problems);
  same(got.totalItems, want.total_items, `${where} total_items`, problems);
  return { problems, figures };
}

describe('NeuroVLM-Bench figures equal the benchmark evaluator', () => {
  for (const file of Object.keys(expected)) {
    it(`${file}: every per-model figure, whole file and per source dataset`, () => {
      const text = read(file);
      const records = loadJsonl(text);
      const want = expected[file]!;
      const all = compare(records, want.all, 'all');
      expect(all.problems).toEqual([]);
      expect(all.figures).toBeGreaterThan(100);
      expect(datasetsIn(records)).toEqual(Object.keys(want.datasets).sort());
      for (const [d, figs] of Object.entries(want.datasets)) expect(compare(loadJsonl(text, d), figs, d).problems).toEqual([]);
    });
  }

  it('the fixture holds the triggers it is meant to (so parity is tested where it used to break)', () => {
    const text = read('results-mixed.jsonl');
    for (const trigger of ['"coronal"', '"tumour"', '"ischaemic', '"n/a"', '"none"', '"subclass":"other abnormalities"', '"raw_response"', '"status":"error"', '"latency_s"', '"diagnosis_confidence":true', '"diagnosis_confidence":"inf"']) {
      expect(text, trigger).toContain(trigger);
    }
  });
});
