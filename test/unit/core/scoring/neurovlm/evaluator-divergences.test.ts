/**
 * NeuroVLM-Bench figures on the files where NeuroEval's figures and the
 * benchmark's evaluator used to part, one file per way (made by
 * scripts/parity/make-neurovlm-divergences.ts; `evaluate_detailed.py` run on
 * them by scripts/parity/neurovlm-evaluator.py wrote divergence-figures.json):
 *
 * - div-bad-line: a UTF-8 byte order mark, and line 16 cut short: the
 *   evaluator keeps a placeholder for each and scores the rest;
 * - div-line-ends: lone \r and \r\n line ends, and U+2028, U+0085 and \v
 *   inside records (Python's text mode splits at \r; splitlines() would split
 *   at the others too, and the evaluator does not use it);
 * - div-grouping: records with NeuroEval's `neuroeval.variant` key (ignored
 *   by the evaluator) and successful calls without `model_requested` (filed
 *   under UNKNOWN_MODEL, not under `api_response.model`);
 * - div-python-values: numeric ground truth (1.0, -0.0, an int beyond 2^53),
 *   lists as answers (str() with repr() escapes of U+00A0 and U+200B),
 *   confidences with U+0085, U+001C, Arabic-Indic digits and underscores,
 *   token counts in Arabic-Indic digits, model names and labels that UTF-16
 *   order sorts differently from code-point order;
 * - div-markers: gold labels equal to markers NeuroEval once used inside;
 * - div-mixed-export: `neuroeval export --format neurovlm-jsonl` of a run with
 *   NeuroVLM-Bench and Neural-MedBench answers, on which the evaluator stops
 *   (np.column_stack), so NeuroEval must show no figures either.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../../../src/core/scoring/io/json-text.ts';
import { neuroVlmBenchOfBytes, type NeuroVlmBenchFigures } from '../../../../../src/core/scoring/neurovlm/evaluator/index.ts';
import { evaluateNeuroVlmBench } from '../../../../../src/core/scoring/neurovlm/evaluator/evaluate.ts';
import { loadJsonl } from '../../../../../src/core/scoring/neurovlm/evaluator/load.ts';
import { readNeuroVlmJsonl } from '../../../../../src/core/scoring/io/neurovlm-jsonl.ts';

const DIR = new URL('../../../../fixtures/neurovlm-parity/', import.meta.url);
const bytes = (name: string): Uint8Array => new Uint8Array(readFileSync(new URL(name, DIR)));

interface Raised {
  raises: string;
  message: string;
}
interface Figures {
  per_model: Record<string, Record<string, unknown>>;
  field_results: Record<string, { accuracy_pct: number; correct: number; total: number }>;
  overall_accuracy: number;
  total_items: number;
}
type Entry = { all: Figures | Raised; datasets: Record<string, Figures | Raised> };
const expected = parseJsonText(readFileSync(new URL('divergence-figures.json', DIR), 'utf8'), 'divergence-figures.json', 1, 'numbers') as Record<string, Entry>;

const raised = (x: Figures | Raised): x is Raised => 'raises' in x;

function same(actual: unknown, want: unknown, path: string, problems: string[]): void {
  if (typeof want === 'number') {
    const ok = typeof actual === 'number' && (Number.isNaN(want) ? Number.isNaN(actual) : Math.abs(actual - want) <= 1e-9);
    if (!ok) problems.push(`${path}: ${String(actual)} ≠ evaluator ${String(want)}`);
  } else if (Array.isArray(want)) {
    if (!Array.isArray(actual) || actual.length !== want.length) problems.push(`${path}: ${JSON.stringify(actual)} ≠ evaluator ${JSON.stringify(want)}`);
    else want.forEach((w, i) => same(actual[i], w, `${path}[${i}]`, problems));
  } else if (actual !== want) problems.push(`${path}: ${JSON.stringify(actual)} ≠ evaluator ${JSON.stringify(want)}`);
}

function compareModels(got: Readonly<Record<string, NeuroVlmBenchFigures>>, want: Figures, where: string): { problems: string[]; figures: number } {
  const problems: string[] = [];
  let figures = 0;
  same(Object.keys(got), Object.keys(want.per_model), `${where} models (in the evaluator's order)`, problems);
  for (const [model, figs] of Object.entries(want.per_model)) {
    const mine = got[model] ?? {};
    same(Object.keys(mine).sort(), Object.keys(figs).sort(), `${where} ${model} figure names`, problems);
    for (const [k, v] of Object.entries(figs)) {
      same(mine[k], v, `${where} ${model} ${k}`, problems);
      figures++;
    }
  }
  return { problems, figures };
}

describe('NeuroVLM-Bench figures equal the evaluator on the files where they used to part', () => {
  for (const [file, want] of Object.entries(expected)) {
    it(`${file}: ${raised(want.all) ? `no figures, as the evaluator stops (${want.all.raises})` : 'every figure, whole file and per source dataset'}`, () => {
      const got = neuroVlmBenchOfBytes(bytes(file));
      if (raised(want.all)) {
        expect(got.failure?.kind).toBe('evaluator-fails');
        expect(got.failure?.message).toContain(want.all.raises);
        expect(got.all).toEqual({});
        return;
      }
      expect(got.failure).toBeUndefined();
      const all = compareModels(got.all, want.all, 'all');
      expect(all.problems).toEqual([]);
      expect(all.figures).toBeGreaterThan(100);
      // The file-level figures too: field agreement, all-fields accuracy, records read (placeholders included).
      const whole = evaluateNeuroVlmBench(loadJsonl(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes(file))));
      const problems: string[] = [];
      for (const [f, r] of Object.entries(want.all.field_results)) same(whole.fieldResults[f]?.correct, r.correct, `field_results ${f}`, problems);
      same(whole.overallAccuracy, want.all.overall_accuracy, 'overall_accuracy', problems);
      same(whole.totalItems, want.all.total_items, 'total_items', problems);
      expect(problems).toEqual([]);
      expect(Object.keys(got.datasets).sort()).toEqual(Object.keys(want.datasets).filter((d) => !raised(want.datasets[d]!)).sort());
      for (const [d, figs] of Object.entries(want.datasets)) {
        if (raised(figs)) expect(got.datasetFailures?.[d]?.message, d).toContain(figs.raises);
        else expect(compareModels(got.datasets[d] ?? {}, figs, d).problems).toEqual([]);
      }
    });
  }

  it('the files hold the cases they are meant to', () => {
    const text = (name: string): string => new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes(name));
    expect(text('div-bad-line.jsonl').startsWith('\uFEFF{')).toBe(true);
    expect(text('div-line-ends.jsonl')).toMatch(/\}\r\{/);
    expect(text('div-line-ends.jsonl')).toContain('\u2028');
    expect(text('div-grouping.jsonl')).toContain('"variant":"few-shot"');
    expect(text('div-python-values.jsonl')).toContain('"class":10000000000000001');
    expect(text('div-markers.jsonl')).toContain('\\u0000dummy');
    expect(text('div-mixed-export.jsonl')).toContain('"class":""');
  });

  it("NeuroEval's own analysis reads a file with a bad line, naming the line instead of rejecting the file", () => {
    const { items, warnings } = readNeuroVlmJsonl(new TextDecoder().decode(bytes('div-bad-line.jsonl')), 'div-bad-line.jsonl');
    expect(items).toHaveLength(23);
    expect(warnings.join('\n')).toMatch(/div-bad-line\.jsonl:16: not valid JSON.*left out of NeuroEval's own analysis/);
  });
});
