/**
 * The benchmark library in the real app: importing each supported format
 * through the UI (all work in the import worker), refusing bad archives
 * without touching stored data, browsing cases, and exporting bundles.
 */
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { badArchives, imageMappingFolder, medicalFolder, neuralMedBenchFiles, neuroVlmFolder, vlmEvalKitTsv } from '../support/benchmark-files.ts';
import { expect, openApp, test } from '../support/fixtures.ts';

async function openBenchmarks(page: Page, url: string) {
  await openApp(page, url, '#/benchmarks');
  // The demo benchmark is loaded on first start.
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
}

async function storedBenchmarkCount(page: Page): Promise<number> {
  return page.getByTestId('benchmark-list').locator('tbody tr').count();
}

test('the demo benchmark is ready on first start, labelled synthetic, and its cases can be browsed', async ({ page, server }) => {
  await openBenchmarks(page, server.url);
  const row = page.getByTestId('benchmark-list').getByRole('row', { name: /NeuroEval demo/ });
  await expect(row.getByText('synthetic', { exact: true })).toBeVisible();
  await row.getByRole('link').click();
  await expect(page.getByRole('note')).toContainText('computer-generated');
  const browser = page.getByTestId('case-browser');
  const count = browser.getByTestId('case-count');
  await expect(count).toHaveText(/^(\d+) of \1 cases$/);
  const total = Number((await count.textContent())!.split(' ')[0]);
  expect(total).toBeGreaterThanOrEqual(40);

  // The demo has no sub-tasks of its own, so no such filter is offered.
  await expect(browser.locator('select[data-facet="subtask"]')).toHaveCount(0);
  await browser.locator('select[data-facet="taskFamily"]').selectOption('classification');
  await expect(count).not.toHaveText(`${total} of ${total} cases`);
  await browser.locator('select[data-facet="taskFamily"]').selectOption('differential-diagnosis');
  await browser.locator('a[data-case]').first().click();

  const view = page.getByTestId('case-view');
  await expect(view.getByRole('heading', { name: 'Structured EHR' })).toBeVisible();
  await expect(view.getByRole('heading', { name: /Images \(\d+, in the order the model sees them\)/ })).toBeVisible();
  // The answer key is not in the page until asked for.
  await expect(view.getByText('Differential', { exact: true })).toHaveCount(0);
  await view.getByTestId('reveal-answer').click();
  await expect(view.getByText('Differential', { exact: true })).toBeVisible();
  await view.getByTestId('reveal-answer').click();
  await expect(view.getByText('Differential', { exact: true })).toHaveCount(0);

  // Zoom into the first image.
  await view.getByRole('button', { name: /Open Image 1/ }).click();
  const viewer = page.getByTestId('image-viewer');
  await expect(viewer.locator('img')).toBeVisible();
  await viewer.getByRole('slider', { name: 'Zoom' }).fill('2');
  await expect(viewer).toContainText('200%');
  await viewer.getByRole('button', { name: 'Close' }).click();
});

test('imports the real NeuroVLM-Bench sample CSV with its image folder, few-shot list and prompt', async ({ page, server }) => {
  await openBenchmarks(page, server.url);
  await page.getByTestId('import-folder').setInputFiles(neuroVlmFolder());
  const preview = page.getByTestId('import-preview');
  await expect(preview).toContainText('Read as: NeuroVLM-Bench');
  await expect(page.getByTestId('import-summary')).toContainText('45 cases');
  await expect(preview.getByRole('table').filter({ hasText: 'Disease group' })).toContainText('multiple sclerosis');
  await preview.getByRole('button', { name: /^Import 45 cases$/ }).click();
  await expect(page.getByTestId('import-done')).toContainText('Imported 45 cases.');
  await page.getByTestId('import-done').getByRole('link', { name: 'Browse the cases' }).click();
  const browser = page.getByTestId('case-browser');
  await expect(browser.getByTestId('case-count')).toHaveText('45 of 45 cases');
  await browser.locator('select[data-facet="split"]').selectOption('few-shot');
  await expect(browser.getByTestId('case-count')).toHaveText('20 of 45 cases');
});

test('reads the full image_mapping.csv (29,504 rows) in the worker and reports rows whose image is missing', async ({ page, server }) => {
  await openBenchmarks(page, server.url);
  const { dir, present, rows } = imageMappingFolder(250);
  expect(rows).toBe(29_504);
  await page.getByTestId('import-folder').setInputFiles(dir);
  await expect(page.getByTestId('import-summary')).toContainText(`${present} cases`, { timeout: 60_000 });
  await expect(page.getByTestId('import-skipped')).toHaveText(`${rows - present} cases skipped`);
  await page.getByTestId('import-skipped').click();
  await expect(page.getByTestId('import-preview').getByText(/image not found: /).first()).toBeVisible();
});

test('imports a Neural-MedBench JSON with its answer key: real image types, Chinese text kept, placeholders skipped', async ({ page, server }) => {
  await openBenchmarks(page, server.url);
  const { json, key } = neuralMedBenchFiles();
  await page.getByTestId('import-files').setInputFiles([json, key]);
  const preview = page.getByTestId('import-preview');
  await expect(preview).toContainText('Read as: Neural-MedBench');
  await expect(page.getByTestId('import-summary')).toContainText('2 cases');
  await expect(page.getByTestId('import-skipped')).toHaveText('2 cases skipped');
  await preview.getByRole('button', { name: /^Import 2 cases$/ }).click();
  await page.getByTestId('import-done').getByRole('link', { name: 'Browse the cases' }).click();
  await page.locator('a[data-case="case_1"]').click();
  const view = page.getByTestId('case-view');
  await expect(view).toContainText('根据患者的症状和图片,对疾病进行诊断');
  await view.getByTestId('reveal-answer').click();
  await expect(view).toContainText('Alzheimer disease');
  await expect(view).toContainText('vascular dementia');
});

test('imports a VLMEvalKit TSV with a multi-image row', async ({ page, server }) => {
  await openBenchmarks(page, server.url);
  await page.getByTestId('import-files').setInputFiles(vlmEvalKitTsv());
  await expect(page.getByTestId('import-summary')).toContainText('3 cases');
  await expect(page.getByTestId('import-summary')).toContainText('4 images');
  await page.getByTestId('import-preview').getByRole('button', { name: /^Import 3 cases$/ }).click();
  await page.getByTestId('import-done').getByRole('link', { name: 'Browse the cases' }).click();
  await page.locator('a[data-case="1"]').click();
  const view = page.getByTestId('case-view');
  await expect(view.getByRole('heading', { name: /Images \(2,/ })).toBeVisible();
  await expect(view.getByText('B.', { exact: true })).toBeVisible();
});

test('imports DICOM and NIfTI cases through a column mapping, shows dropped tags, and windows the image', async ({ page, server }) => {
  await openBenchmarks(page, server.url);
  await page.getByTestId('import-folder').setInputFiles(medicalFolder());
  await page.getByTestId('import-format').selectOption('generic');
  const form = page.getByTestId('mapping-form');
  await form.locator('select[name="id"]').selectOption('case');
  await form.locator('select[name="question"]').selectOption('prompt');
  await form.locator('select[name="image"]').selectOption(['file']);
  await form.locator('select[name="diseaseGroup"]').selectOption('group');
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(page.getByTestId('import-summary')).toContainText('2 cases');
  const dropped = page.getByTestId('dropped-tags');
  await dropped.locator('summary').click();
  await expect(dropped).toContainText('PatientName');
  await expect(dropped).toContainText('InstitutionName');
  // Choose two coronal NIfTI slices: the preview is read again with the new options.
  const options = page.getByTestId('image-options');
  await options.locator('select[name="niftiPlane"]').selectOption('coronal');
  await options.locator('input[name="niftiSlices"]').fill('3, 5');
  await options.locator('input[name="niftiSlices"]').press('Tab');
  await expect(page.getByTestId('import-summary')).toContainText('3 images');
  await page.getByTestId('import-preview').getByRole('button', { name: /^Import 2 cases$/ }).click();
  await page.getByTestId('import-done').getByRole('link', { name: 'Browse the cases' }).click();
  await page.locator('a[data-case="mr-1"]').click();
  await expect(page.getByText('Image 2 · coronal · slice 5')).toBeVisible();
  await page.getByRole('link', { name: '← All cases' }).click();
  await page.locator('a[data-case="ct-1"]').click();
  await page.getByRole('button', { name: /Open Image 1/ }).click();
  const viewer = page.getByTestId('image-viewer');
  const canvas = viewer.getByTestId('wl-canvas');
  await expect(viewer.getByTestId('wl-center')).toHaveValue('40');
  const before = await canvas.evaluate((c: HTMLCanvasElement) => c.toDataURL());
  await viewer.getByRole('button', { name: 'bone' }).click();
  await expect(viewer.getByTestId('wl-width')).toHaveValue('2000');
  const after = await canvas.evaluate((c: HTMLCanvasElement) => c.toDataURL());
  expect(after).not.toBe(before);
});

test('bad archives are refused with a clear error and stored data is untouched', async ({ page, server }) => {
  await openBenchmarks(page, server.url);
  const before = await storedBenchmarkCount(page);
  const bad = badArchives();
  await page.getByTestId('import-files').setInputFiles(bad.traversal);
  await expect(page.getByTestId('import-errors')).toContainText('climbs out of the archive');
  await page.getByRole('button', { name: 'Start over' }).click();
  await page.getByTestId('import-files').setInputFiles(bad.truncated);
  await expect(page.getByTestId('import-errors')).toContainText('truncated.zip');
  await page.getByRole('button', { name: 'Start over' }).click();
  await page.getByTestId('import-files').setInputFiles(bad.notZip);
  await expect(page.getByTestId('import-errors')).toContainText('not a readable ZIP archive');
  expect(await storedBenchmarkCount(page)).toBe(before);
  // The page stayed responsive: navigation still works.
  await page.getByRole('link', { name: 'Home' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Home');
});

test('a stored benchmark exports as a bundle that re-imports with the same content hash', async ({ page, server }) => {
  await openBenchmarks(page, server.url);
  const row = page.getByTestId('benchmark-list').getByRole('row', { name: /NeuroEval demo/ });
  const hash = await row.locator('code').getAttribute('title');
  const download = page.waitForEvent('download');
  await row.getByRole('button', { name: 'Export' }).click();
  const file = await (await download).path();
  expect(readFileSync(file).subarray(0, 2).toString()).toBe('PK');
  await page.getByTestId('import-files').setInputFiles({ name: 'exported.zip', mimeType: 'application/zip', buffer: readFileSync(file) });
  await expect(page.getByTestId('import-preview')).toContainText('Ready to import: NeuroEval demo (synthetic)');
  await page.getByTestId('import-preview').getByRole('button', { name: /^Import \d+ cases$/ }).click();
  await expect(page.getByTestId('import-done')).toContainText('already stored');
  expect(hash).toMatch(/^[0-9a-f]{64}$/);
});
