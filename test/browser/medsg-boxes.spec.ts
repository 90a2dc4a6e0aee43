/**
 * MedSG-Bench's Parquet upload (image sequences in binary columns, the box in
 * `answer_xyxy`), made by test/support/hf-datasets.ts: the mapping form
 * recognises the layout and fills its column map with the box's frame and
 * image, the preview imports each question with its sequence, seeded answers
 * (a model that writes boxes cannot run here) are scored by IoU, and the
 * drill-down draws the boxes on the sequence's last image.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { medSgFiles } from '../support/hf-datasets.ts';
import { putRows, readStore, seededProvenance } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';
import { makeTempDir } from '../support/temp-dir.ts';

const chosen = (page: Page, field: string) =>
  page.getByTestId('mapping-form').locator(`select[name="${field}"]`).evaluate((s: HTMLSelectElement) => [...s.selectedOptions].map((o) => o.value));

async function medSgParquet(): Promise<string> {
  const [file] = medSgFiles([
    { task: 'Registered_Diff', question: 'Compare these two images carefully and give me the coordinates of their difference.', box: [0, 0, 2, 2], images: [31, 32] },
    { task: 'Multi_View', question: 'Find the lesion of the first image in the last one.', box: [3, 3, 6, 6], images: [33, 34, 35] },
  ]);
  const path = join(makeTempDir('medsg'), 'MedSG-Bench-00000-of-00001.parquet');
  writeFileSync(path, await file!.bytes());
  return path;
}

test("MedSG-Bench's Parquet: recognised, imported with its image sequences, scored by IoU and drawn on the last image", async ({ page, server }, testInfo) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await page.getByTestId('import-files').setInputFiles(await medSgParquet());
  await page.getByTestId('import-format').selectOption('generic');
  const form = page.getByTestId('mapping-form');
  await expect(form).toBeVisible();

  const preset = page.getByTestId('mapping-preset');
  await expect(preset).toContainText("These columns are MedSG-Bench's published layout");
  await expect(preset.getByRole('link', { name: 'dataset card' })).toHaveAttribute('href', 'https://huggingface.co/datasets/MedSG-Bench/MedSG-Bench-parquet');
  await preset.getByRole('button', { name: "Use MedSG-Bench's column map" }).click();
  expect(await chosen(page, 'boxes')).toEqual(['answer_xyxy']);
  expect(await chosen(page, 'image')).toEqual(['image_bytes_1', 'image_bytes_2', 'image_bytes_3', 'image_bytes_4', 'image_bytes_5', 'image_bytes_6']);
  expect(await chosen(page, 'boxFrame')).toEqual(['pixels']);
  expect(await chosen(page, 'boxImage')).toEqual(['last']);
  // The benchmark's own task, for its per-task figures.
  expect(await chosen(page, 'subtask')).toEqual(['task']);
  await form.locator('select[name="subtask"]').evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: testInfo.outputPath('medsg-mapping-subtask.png') });
  await form.locator('select[name="boxFrame"]').evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: testInfo.outputPath('medsg-mapping.png') });
  await form.getByRole('button', { name: 'Preview' }).click();

  const preview = page.getByTestId('import-preview');
  await expect(preview.getByRole('button', { name: /^Import 2 cases$/ })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('import-warnings').filter({ hasText: 'not scored' })).toHaveCount(0);
  await preview.getByRole('button', { name: /^Import 2 cases$/ }).click();
  await page.getByTestId('import-done').waitFor({ timeout: 60_000 });

  // The case list filters by the benchmark's own task.
  await page.getByTestId('benchmark-list').getByRole('row', { name: /MedSG/ }).getByRole('link').click();
  const caseList = page.getByTestId('case-browser');
  await caseList.locator('select[data-facet="subtask"]').selectOption('Multi_View');
  await expect(caseList.getByTestId('case-count')).toHaveText('1 of 2 cases');
  await expect(caseList.locator('a[data-case]')).toContainText('bench · open-question · Multi_View');
  await page.screenshot({ path: testInfo.outputPath('medsg-case-list.png') });

  type C = { id: string; benchmarkId: string; subtask?: string; images: { width?: number }[]; questions: { reference?: { boxes?: { image?: number }[] } }[] };
  const benchmarks = await readStore<{ id: string; name: string }>(page, 'benchmarks');
  const benchmarkId = benchmarks.find((b) => b.name !== 'NeuroEval demo (synthetic)')!.id;
  const cases = (await readStore<C>(page, 'cases')).filter((c) => c.benchmarkId === benchmarkId).sort((a, b) => a.id.localeCompare(b.id));
  // What is stored: each question with its whole sequence, sized, and its box on the last image.
  expect(cases.map((c) => [c.id, c.subtask, c.images.length, c.images[0]!.width, c.questions[0]!.reference?.boxes?.[0]?.image])).toEqual([['1', 'Registered_Diff', 2, 6, 1], ['2', 'Multi_View', 3, 6, 2]]);

  const runId = 'medsg-run';
  // Case 1: exactly the reference (IoU 1, right); case 2: [4, 4, 7, 7] against [3, 3, 6, 6]: 4 ÷ 14 (wrong).
  const replies: Record<string, string> = { '1': 'The difference is at [0, 0, 2, 2].', '2': '<box>(4,4),(7,7)</box>' };
  const usage = { promptTokens: 50, completionTokens: 20, ttftMs: 10, prefillTps: 500, decodeTps: 40 };
  const responses = cases.map((c) => {
    const itemKey = `${c.id}#q1|model-x|none|s0`;
    return { id: `${runId}/${itemKey}`, runId, itemKey, caseId: c.id, questionId: 'q1', cacheKey: '', modelId: 'model-x', variant: 'none', sample: 0, rawText: replies[c.id]!, parsed: null, parseError: null, usage, latencyMs: 100, finishReason: 'stop', createdAt: Date.now() };
  });
  const run = { id: runId, benchmarkId, name: 'MedSG run', status: 'done', createdAt: Date.now(), updatedAt: Date.now(), config: null, provenance: seededProvenance({ id: benchmarkId }, ['model-x']), plan: { cases: 2, models: 1, variants: 1, samples: 1, items: 2 } };
  await putRows(page, { runs: [run], responses });
  await page.goto(`${server.url}#/results/run/${runId}`);
  await page.getByTestId('score-run').click();
  await expect(page.getByTestId('score-summary')).toHaveAttribute('data-version', '1', { timeout: 60_000 });
  const metrics = page.getByTestId('arm-metrics').first();
  await expect(metrics.locator('tr[data-metric="box.acc50"] td').first()).toHaveText(/^50(\.0)?\s?%$/);
  // Mean IoU (1 + 4/14) ÷ 2 = 0.643.
  await expect(metrics.locator('tr[data-metric="box.iou"] td').first()).toHaveText(/^0\.643|^64\.3/);

  // Acc@0.5 per task, as MedSG-Bench reports it: the registered difference right, the multi-view one wrong.
  await page.getByRole('link', { name: '← Benchmark results' }).click();
  await page.getByTestId('breakdown-dimension').selectOption({ label: "Sub-task (the benchmark's own)" });
  await page.getByTestId('breakdown-metric').selectOption('box.acc50');
  await page.getByText('As a table').click();
  const byTask = page.getByTestId('breakdown-table');
  await expect(byTask.locator('tbody th')).toHaveText(['Multi_View', 'Registered_Diff']);
  await expect(byTask.locator('tbody tr').nth(0).locator('td').first()).toContainText(/^0(\.0)?\s?%/);
  await expect(byTask.locator('tbody tr').nth(1).locator('td').first()).toContainText(/^100(\.0)?\s?%/);
  await byTask.evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: testInfo.outputPath('medsg-breakdown-by-task.png') });

  await page.goto(`${server.url}#/results/case/${runId}/2`);
  // The case's line names its task.
  await expect(page.getByTestId('drilldown').locator('p.muted').first()).toContainText('open-question · bench · Multi_View');
  await page.screenshot({ path: testInfo.outputPath('medsg-drilldown-head.png') });
  const overlay = page.getByTestId('box-overlay');
  await expect(overlay).toHaveCount(1);
  // Drawn on the third (last) image of the sequence, where the numbers say: the reference starts half way across.
  await expect(overlay.locator('img')).toHaveAttribute('alt', 'Image 3 with the boxes');
  const stage = await overlay.locator('.stage').boundingBox();
  const ref = await overlay.getByTestId('box-reference').boundingBox();
  const answer = await overlay.getByTestId('box-answer').boundingBox();
  expect(Math.abs((ref!.x - stage!.x) / stage!.width - 0.5)).toBeLessThan(0.02);
  expect(Math.abs(ref!.width / stage!.width - 0.5)).toBeLessThan(0.02);
  expect(Math.abs((answer!.x - stage!.x) / stage!.width - 4 / 6)).toBeLessThan(0.02);
  // The answer reaches past the image's edge (x2 = 7 of 6 pixels): drawn up to the edge, and said so.
  expect(answer!.x + answer!.width).toBeGreaterThan(stage!.x + stage!.width);
  expect(await overlay.locator('.stage').evaluate((e) => getComputedStyle(e).overflow)).toBe('hidden');
  await expect(overlay.locator('figcaption')).toContainText('model-x (reaches outside the image: drawn up to its edge)');
  await overlay.evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: testInfo.outputPath('medsg-drilldown.png') });
});
