/**
 * SLAKE as published (test.json beside imgs.zip) reaches the short-answer
 * figures: the mapping form recognises the layout and fills SLAKE's column
 * map, the preview imports five cases, the self-test model answers them under
 * the short-answer protocol, and Results show exact match overall and for
 * open and closed questions apart, with their counts.
 */
import type { Page } from '@playwright/test';
import { expect, openApp, test } from '../support/fixtures.ts';
import { confirmImport, openRunForm, runAndScore } from '../support/app-run.ts';
import { slakeFolder } from '../support/slake-folder.ts';

const chosen = (page: Page, field: string) =>
  page.getByTestId('mapping-form').locator(`select[name="${field}"]`).evaluate((s: HTMLSelectElement) => [...s.selectedOptions].map((o) => o.value));

test("SLAKE's published files: recognised, imported, run and scored with open and closed questions apart", async ({ page, server }, testInfo) => {
  test.setTimeout(420_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await page.getByTestId('import-folder').setInputFiles(await slakeFolder());
  await page.getByTestId('import-format').selectOption('generic');
  const form = page.getByTestId('mapping-form');
  await expect(form).toBeVisible();

  const preset = page.getByTestId('mapping-preset');
  await expect(preset).toContainText("These columns are SLAKE's published layout");
  await expect(preset.getByRole('link', { name: 'dataset card' })).toHaveAttribute('href', 'https://huggingface.co/datasets/BoKelvin/SLAKE');
  await preset.getByRole('button', { name: "Use SLAKE's column map" }).click();
  expect(await chosen(page, 'shortAnswer')).toEqual(['answer']);
  expect(await chosen(page, 'answerType')).toEqual(['answer_type']);
  expect(await chosen(page, 'image')).toEqual(['img_name']);
  expect(await chosen(page, 'answer')).toEqual(['']);
  await form.evaluate((e) => e.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: testInfo.outputPath('slake-mapping.png') });
  await form.getByRole('button', { name: 'Preview' }).click();

  await expect(page.getByTestId('import-preview').getByRole('button', { name: /^Import 5 cases$/ })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('import-warnings')).not.toContainText('not scored');
  await page.screenshot({ path: testInfo.outputPath('slake-preview.png'), fullPage: true });
  await confirmImport(page, 5);

  await runAndScore(page, await openRunForm(page, server.url, 'test', { device: 'wasm', models: ['self-test'] }));

  const metrics = page.getByTestId('arm-metrics').first();
  const row = (metric: string) => metrics.locator(`tr[data-metric="${metric}"]`);
  await expect(row('short.exact').locator('th')).toHaveText('Short answer: exact match');
  // n per row: 5 questions, 3 of them open and 2 closed (the answer_type column).
  await expect(row('short.exact').locator('td').nth(2)).toHaveText('5');
  await expect(row('short.exact.open').locator('td').nth(2)).toHaveText('3');
  await expect(row('short.exact.closed').locator('td').nth(2)).toHaveText('2');
  await expect(row('short.recall.open').locator('td').nth(2)).toHaveText('3');
  await expect(page.getByTestId('score-summary')).toContainText('Short answer (VQA: a word or phrase)');
  expect(await page.getByTestId('score-summary').innerText()).not.toContain('NaN');
  await metrics.evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: testInfo.outputPath('short-answer-results.png') });
});
