/**
 * `neuroeval score --json` carries, per model, the benchmark evaluator's own
 * figures under its own names (`neurovlm_bench`), and the same per source
 * dataset (`neurovlm_bench_datasets`): checked against what the evaluator
 * printed for the committed parity files.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { parseJsonText } from '../../../src/core/scoring/io/json-text.ts';

const DIR = new URL('../../fixtures/neurovlm-parity/', import.meta.url);
const FILE = new URL('results-mixed.jsonl', DIR).pathname;
type Figures = Record<string, unknown>;
const expected = parseJsonText(readFileSync(new URL('evaluator-figures.json', DIR), 'utf8'), 'evaluator-figures.json', 1, 'numbers') as Record<
  string,
  { all: { per_model: Record<string, Figures> }; datasets: Record<string, { per_model: Record<string, Figures> }> }
>;

async function score(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const io = { out: { write: (t: string) => (out += t) }, err: { write: () => undefined } };
  const code = await main(['score', ...args], io);
  return { code, out };
}

/** JSON has no NaN: the CLI writes the benchmark's NaN figures as null. */
function close(got: unknown, want: unknown): boolean {
  if (typeof want === 'number') return Number.isNaN(want) ? got === null : typeof got === 'number' && Math.abs(got - want) <= 1e-9;
  if (Array.isArray(want)) return Array.isArray(got) && got.length === want.length && want.every((w, i) => close(got[i], w));
  return got === want;
}

describe('neuroeval score --json: the benchmark evaluator’s figures under its names', () => {
  it('puts every per-model figure of the evaluator under neurovlm_bench, and per dataset', async () => {
    const { code, out } = await score([FILE, '--json', '--resamples', '10']);
    expect(code).toBe(0);
    const json = JSON.parse(out) as { groups: { key: string; neurovlm_bench: Figures }[]; neurovlm_bench_datasets: Record<string, Record<string, Figures>> };
    const want = expected['results-mixed.jsonl']!;
    expect(json.groups.map((g) => g.key).sort()).toEqual(Object.keys(want.all.per_model).sort());
    for (const g of json.groups) {
      const figs = want.all.per_model[g.key]!;
      for (const name of ['accuracy', 'macro_f1', 'macro_f1_abstention', 'weighted_f1', 'weighted_f1_abstention', 'ece', 'brier', 'auc', 'json_valid_pct', 'median_latency_ms', 'overall_pl_f1_abstention', 'labels', 'per_class_f1', 'plane_labels']) {
        expect(g.neurovlm_bench, `${g.key} ${name}`).toHaveProperty([name]);
      }
      const wrong = Object.entries(figs).filter(([k, v]) => !close(g.neurovlm_bench[k], v)).map(([k]) => k);
      expect(wrong, g.key).toEqual([]);
    }
    expect(Object.keys(json.neurovlm_bench_datasets)).toEqual(Object.keys(want.datasets));
    for (const [d, models] of Object.entries(want.datasets)) {
      for (const [m, figs] of Object.entries(models.per_model)) {
        const wrong = Object.entries(figs).filter(([k, v]) => !close(json.neurovlm_bench_datasets[d]?.[m]?.[k], v)).map(([k]) => k);
        expect(wrong, `${d} ${m}`).toEqual([]);
      }
    }
  });

  it('prints the benchmark’s figures first, named as the evaluator’s, and NeuroEval’s own analysis apart', async () => {
    const { code, out } = await score([FILE, '--resamples', '10']);
    expect(code).toBe(0);
    const bench = out.indexOf("NeuroVLM-Bench figures: the benchmark's own evaluator");
    const own = out.indexOf("NeuroEval's own analysis (not the benchmark's figures)");
    expect(bench).toBeGreaterThan(-1);
    expect(own).toBeGreaterThan(bench);
    const medgemma = want('medgemma_4b');
    // The headline row carries the evaluator's balanced accuracy and JSON-valid percentage.
    const row = out.split('\n').find((l) => l.trim().startsWith('medgemma_4b'))!;
    expect(row).toContain((medgemma.accuracy as number).toFixed(4));
    expect(row).toContain(`${(medgemma.json_valid_pct as number).toFixed(2)} %`);
    expect(out).toContain('Per source dataset');
  });
});

function want(model: string): Figures {
  return expected['results-mixed.jsonl']!.all.per_model[model]!;
}
