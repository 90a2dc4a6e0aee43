/**
 * A hospital team adds its own benchmark without code: lesion volumes in a
 * CSV beside their scans, imported through the column mapping with the task
 * declared in the form (numeric answers, their own prompt, a tolerance). The
 * run form's preview and the drill-down's "exact prompt sent" show their
 * prompt, the run's provenance records its hash, and the answers are scored
 * as numbers.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, openApp, test } from '../support/fixtures.ts';
import { confirmImport, openRunForm, runAndScore } from '../support/app-run.ts';
import { ownCasesFolder } from '../support/own-cases.ts';

const PROMPT = 'Estimate the volume of the main lesion. {{question}}\nReply as JSON: {"answer": volume in mL}';

test('a benchmark whose task is declared in the import form is asked with its prompt and scored as numbers', async ({ page, server }, testInfo) => {
  test.setTimeout(420_000);
  const { dir } = ownCasesFolder(3);
  rmSync(join(dir, 'cases.csv'));
  writeFileSync(join(dir, 'volumes.csv'), ['case_id,Question,Scan,Volume (mL)', ...[1, 2, 3].map((i) => `lesion-${i},What is the volume?,scans/patient-0${i}.png,${10 * i}.5`)].join('\n'));

  await page.setViewportSize({ width: 1280, height: 800 });
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await page.getByTestId('import-folder').setInputFiles(dir);
  await page.getByTestId('import-format').selectOption('generic');
  const form = page.getByTestId('mapping-form');
  await expect(form).toBeVisible();
  await form.locator('select[name="numericAnswer"]').selectOption('Volume (mL)');
  const task = page.getByTestId('task-declaration');
  await task.locator('select[name="taskAnswerType"]').selectOption('numeric');
  await expect(task).toContainText('Asked and scored under');
  await task.locator('input[name="toleranceAbsolute"]').fill('0.5');
  await task.getByText(/^Prompt \(empty:/).click();
  await task.locator('textarea[name="taskUser"]').fill(PROMPT);
  await task.evaluate((e) => e.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: testInfo.outputPath('task-declaration.png') });
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(page.getByTestId('import-preview').getByRole('button', { name: /^Import 3 cases$/ })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('import-warnings').filter({ hasText: /not scored|no score/ })).toHaveCount(0);
  await confirmImport(page, 3);

  // The run form asks with the declared prompt.
  const run = await openRunForm(page, server.url, 'volumes', { device: 'wasm', models: ['self-test'] });
  await expect(run.getByTestId('run-plan')).toContainText('3 cases');
  await run.getByTestId('prompt-preview').locator('summary').click();
  await expect(run.getByTestId('prompt-preview')).toContainText('Number, date or duration');
  await expect(run.getByTestId('prompt-preview')).toContainText('Estimate the volume of the main lesion. What is the volume?');
  await run.getByTestId('prompt-preview').evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: testInfo.outputPath('run-form-declared-prompt.png') });
  const runId = await runAndScore(page, run);
  const metrics = page.getByTestId('arm-metrics').first();
  await expect(metrics.locator('tr[data-metric="numeric.match"] td').nth(2)).toHaveText('3');

  // What was sent is the declared prompt.
  await page.goto(`${server.url}#/results/case/${runId}/lesion-1`);
  await page.getByTestId('show-prompt').check();
  await expect(page.getByTestId('sent-prompt')).toContainText('Estimate the volume of the main lesion. What is the volume?');
  await page.getByTestId('sent-prompt').evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: testInfo.outputPath('declared-prompt-sent.png') });
});
