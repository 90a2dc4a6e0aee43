/**
 * A NeuroVLM-Bench harness results file opens in the app (Results → import):
 * the benchmark's own figures per model equal what its evaluator printed for
 * the same file, per source dataset too, and NeuroEval's own analysis sits
 * apart under its own name.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseJsonText } from '../../src/core/scoring/io/json-text.ts';
import { expect, openApp, test } from '../support/fixtures.ts';

const DIR = new URL('../fixtures/neurovlm-parity/', import.meta.url);
type Figures = Record<string, number>;
const expected = parseJsonText(readFileSync(new URL('evaluator-figures.json', DIR), 'utf8'), 'evaluator-figures.json', 1, 'numbers') as Record<
  string,
  { all: { per_model: Record<string, Figures> }; datasets: Record<string, { per_model: Record<string, Figures> }> }
>;

test('a harness JSONL opens on the Results page with the evaluator’s figures, per model and per dataset', async ({ page, server }) => {
  await openApp(page, server.url, '#/results');
  await page.getByTestId('import-run-file').setInputFiles(fileURLToPath(new URL('results-mixed.jsonl', DIR)));
  const panel = page.getByTestId('neurovlm-bench');
  await expect(panel).toBeVisible();
  await expect(page.getByTestId('neurovlm-bench-exact')).toHaveText('equal to its evaluator');
  const want = expected['results-mixed.jsonl']!;
  const table = page.getByTestId('neurovlm-bench-table');
  await expect(table.locator('tbody tr')).toHaveCount(Object.keys(want.all.per_model).length);
  for (const [model, f] of Object.entries(want.all.per_model)) {
    const row = table.locator(`tr[data-model="${model}"]`);
    await expect(row.locator('td[data-figure="accuracy"]')).toHaveText(f.accuracy!.toFixed(3));
    await expect(row.locator('td[data-figure="macro_f1_abstention"]')).toHaveText(f.macro_f1_abstention!.toFixed(3));
    await expect(row.locator('td[data-figure="json_valid_pct"]')).toHaveText(`${f.json_valid_pct!.toFixed(1)}%`);
  }
  // The evaluator's dataset filter.
  await page.getByTestId('neurovlm-bench-dataset').selectOption('stroke');
  const stroke = want.datasets.stroke!.per_model.medgemma_4b!;
  await expect(table.locator('tr[data-model="medgemma_4b"] td[data-figure="accuracy"]')).toHaveText(stroke.accuracy!.toFixed(3));
  // NeuroEval's own analysis is there, named apart.
  await expect(page.getByTestId('harness-own').locator('tbody tr')).toHaveCount(3);
  await expect(page.getByTestId('harness-file')).toContainText("NeuroEval's own analysis (not the benchmark's figures)");
  // Every figure, downloadable.
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('neurovlm-bench-download').click()]);
  const saved = JSON.parse(readFileSync((await file.path())!, 'utf8')) as { all: Record<string, Figures> };
  expect(saved.all.qwen25vl_32b!.overall_pl_f1_abstention).toBeCloseTo(want.all.per_model.qwen25vl_32b!.overall_pl_f1_abstention!, 12);
});

test('a harness file with a broken line says which line and reads the rest, as the benchmark evaluator does', async ({ page, server }) => {
  await openApp(page, server.url, '#/results');
  await page.getByTestId('import-run-file').setInputFiles({ name: 'broken.jsonl', mimeType: 'application/json', buffer: Buffer.from('{"input": {}}\n{"input": \n') });
  const warnings = page.getByTestId('harness-warnings');
  await expect(warnings).toContainText('lines read with a warning');
  await warnings.locator('summary').click();
  await expect(warnings).toContainText("broken.jsonl:2: not valid JSON");
  await expect(page.getByTestId('neurovlm-bench')).toHaveCount(1);
});

test('a file with no readable line says which line and shows no figures', async ({ page, server }) => {
  await openApp(page, server.url, '#/results');
  await page.getByTestId('import-run-file').setInputFiles({ name: 'broken.jsonl', mimeType: 'application/json', buffer: Buffer.from('{"input": \n[1]\n') });
  await expect(page.getByTestId('import-run-error')).toContainText('broken.jsonl:1');
  await expect(page.getByTestId('neurovlm-bench')).toHaveCount(0);
});

test('a mixed run export the evaluator stops on shows why, and no benchmark figures', async ({ page, server }) => {
  await openApp(page, server.url, '#/results');
  const text = readFileSync(new URL('div-mixed-export.jsonl', DIR), 'utf8');
  await page.getByTestId('import-run-file').setInputFiles({ name: 'mixed.jsonl', mimeType: 'application/json', buffer: Buffer.from(text) });
  await expect(page.getByTestId('neurovlm-bench-failure')).toContainText("The benchmark's evaluator (evaluate_detailed.py) stops on this file");
  await expect(page.getByTestId('neurovlm-bench-failure')).toContainText('np.column_stack');
  await expect(page.getByTestId('neurovlm-bench-table').locator('tbody tr')).toHaveCount(0);
});
