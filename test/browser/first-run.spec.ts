/**
 * The newcomer's path: Home's getting-started steps follow what is stored,
 * and an unknown address shows a page that says so instead of Home.
 */
import { putRows, readStore, seededProvenance } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';

test("Home's getting-started steps show what is stored, and each leads to where to act", async ({ page, server }) => {
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await page.goto(`${server.url}#/`);
  const path = page.getByTestId('first-run-path');
  // Fresh start: the demo is loaded but nothing is done, and Home no longer asks to import a benchmark first.
  await expect(path.locator('[data-step="demo"]')).toContainText('is loaded');
  await expect(path).toContainText('0 of 6 steps done');
  await expect(page.getByTestId('recent-runs')).not.toContainText('Import a benchmark and a model');
  await path.locator('[data-step="demo"]').getByRole('link', { name: 'Start a demo run' }).click();
  await expect(page).toHaveURL(/#\/runs\/new\/demo$/);

  // A finished demo run, a downloaded model and an older run: the steps and the recent runs follow.
  const [demo] = await readStore<{ id: string }>(page, 'benchmarks');
  const now = Date.now();
  const run = (id: string, name: string, createdAt: number, updatedAt: number) => ({ id, benchmarkId: demo!.id, name, status: 'done', createdAt, updatedAt, config: null, provenance: seededProvenance({ id: demo!.id }, ['m']), plan: { cases: 1, models: 1, variants: 1, samples: 1, items: 1 } });
  const model = { id: 'smolvlm', runtime: 'transformers', modelId: 'smolvlm', label: 'SmolVLM 256M Instruct', sizeBytes: 1, files: [], source: 'catalogue', addedAt: now };
  // Created in the other order from their last activity: the list goes by activity.
  await putRows(page, { runs: [run('older', 'Run resumed yesterday', now - 90_000_000, now - 86_400_000), run('newer', 'Run finished just now', now - 100_000_000, now)], models: [model] });
  await page.goto(`${server.url}#/`);
  await page.reload();
  await expect(path.locator('[data-step="demo"]')).toHaveAttribute('data-state', 'done');
  await expect(path.locator('[data-step="model"]')).toHaveAttribute('data-state', 'done');
  await expect(path.locator('[data-step="model"]')).toContainText('SmolVLM 256M Instruct');
  await expect(path.locator('[data-step="run"]')).toHaveAttribute('data-state', 'done');
  await expect(path.locator('[data-step="import"]')).toHaveAttribute('data-state', 'todo');
  await expect(path).toContainText('3 of 6 steps done');
  await expect(page.getByTestId('recent-runs').locator('tbody tr').first()).toContainText('Run finished just now');
  await expect(page.getByTestId('recent-runs').locator('tbody tr').nth(1)).toContainText('Run resumed yesterday');
});

test('"Start a demo run" keeps its promise: the demo-trained model on the cases it can answer, run to the end and scored', async ({ page, server }) => {
  test.setTimeout(300_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await page.goto(`${server.url}#/`);
  await page.getByTestId('first-run-path').getByRole('link', { name: 'Start a demo run' }).click();
  const form = page.getByTestId('new-run');
  // Filled in: the demo-trained model alone, the protocol it was trained on, the classification cases.
  await expect(form.locator('input[name="model"][value="demo-trained"]')).toBeChecked();
  await expect(form.locator('input[name="model"][value="self-test"]')).not.toBeChecked();
  await expect(form.locator('select[name="protocol"]')).toHaveValue('neurovlm-structured');
  await expect(form.locator('[data-facet="taskFamily"]').getByLabel('classification')).toBeChecked();
  await expect(form.getByTestId('run-plan')).toContainText('25 requests: 25 cases');
  await expect(form.getByTestId('ability-warning')).toHaveCount(0);
  // Asked under every case's own protocol instead, the model card's limits are said before anything runs.
  await form.locator('select[name="protocol"]').selectOption('auto');
  await form.locator('[data-facet="taskFamily"]').getByLabel('classification').uncheck();
  await expect(form.getByTestId('ability-warning')).toContainText('was trained to answer only NeuroVLM-Bench structured JSON and Neural-MedBench lesion recognition');
  await expect(form.getByTestId('ability-warning')).toContainText('questions under Neural-MedBench differential diagnosis');
  // Back to the preset as it was.
  await page.reload();
  await expect(form.getByTestId('run-plan')).toContainText('25 requests: 25 cases');
  await form.locator('select[name="device"]').selectOption('wasm');
  await form.getByRole('button', { name: 'Start the run' }).click();
  await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 240_000 });
  await page.getByTestId('run-scores-link').click();
  await page.getByTestId('score-run').click();
  const accuracy = page.getByTestId('score-summary').locator('tr[data-metric="neurovlm.diagnosis_name"] td').first();
  await expect(accuracy).toBeVisible({ timeout: 120_000 });
  // The demo-trained model names the class it sees on the demo's own drawings: its accuracy means something.
  expect(parseFloat((await accuracy.textContent())!)).toBeGreaterThanOrEqual(60);
  const answers = await readStore<{ modelId: string }>(page, 'responses');
  expect(answers).toHaveLength(25);
  expect(new Set(answers.map((a) => a.modelId))).toEqual(new Set(['demo-trained']));
});

test('an unknown address shows a not-found page with a way home; the skip link stays on the page', async ({ page, server }) => {
  await openApp(page, server.url, '#/settings');
  await page.goto(`${server.url}#/resutls/run/x`);
  await expect(page.getByTestId('not-found')).toContainText('#/resutls/run/x');
  await expect(page).toHaveTitle('Page not found · NeuroEval');
  await expect(page.getByRole('navigation', { name: 'Main' }).locator('[aria-current="page"]')).toHaveCount(0);
  await page.getByTestId('not-found-home').click();
  await expect(page.getByTestId('first-run-path')).toBeVisible();

  await page.goto(`${server.url}#/runs`);
  await page.keyboard.press('Tab');
  await page.getByRole('link', { name: 'Skip to content' }).press('Enter');
  await expect(page.locator('main h1')).toHaveText('Runs');
});
