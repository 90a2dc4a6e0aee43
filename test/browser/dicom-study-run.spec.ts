/**
 * A hospital's study, start to finish: a folder of DICOM series of two
 * patients (one scanned at 1.5 T, one at 3 T) with an answer key naming each
 * series by its folder is imported by itself; the user picks the slice each
 * case shows; the demo-trained model answers with NeuroVLM-Bench's
 * structured protocol; the results break the scores down by scanner field
 * strength, and the leaderboard's intervals resample the two patients
 * rather than the six series — they change when the per-answer view is
 * chosen instead.
 */
import { readFileSync } from 'node:fs';
import { demoStudyFolder } from '../support/dicom-demo-study.ts';
import { runAndScore } from '../support/app-run.ts';
import { demoTrainedRunForm } from '../support/demo-trained-run.ts';
import { dumpDatabase } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';
import { removeTempDirs } from '../support/temp-dir.ts';

test.afterAll(() => removeTempDirs());

test('a study folder with an answer key: pick slices, run, break down by field strength, intervals by patient', async ({ page, server }) => {
  test.setTimeout(600_000);
  const study = demoStudyFolder({ seriesPerPatient: 3, slices: 3, misLabelSecond: true });
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });

  await page.getByTestId('import-folder').setInputFiles(study.folder);
  const preview = page.getByTestId('import-preview');
  await expect(preview).toContainText('Ready to import: DICOM import (6 series, 2 patients)', { timeout: 60_000 });
  // The user picks the second slice of each series (slice 1, counting from 0).
  const options = page.getByTestId('image-options');
  await options.locator('input[name="seriesSlices"]').fill('1');
  await options.locator('input[name="seriesSlices"]').press('Tab');
  await expect(page.getByTestId('import-summary')).toContainText('6 cases');
  await expect(page.getByTestId('import-summary')).toContainText('6 images');
  await expect(preview.getByText(/no row in the answer key/)).toHaveCount(0);
  await preview.getByRole('button', { name: /^Import 6 cases$/ }).click();
  await expect(page.getByTestId('import-done')).toBeVisible({ timeout: 30_000 });

  // Run the demo-trained model with the structured protocol the answer key's labels are for.
  const form = await demoTrainedRunForm(page, server.url, 'wasm', 'DICOM import (6 series, 2 patients)');
  await form.locator('select[name="protocol"]').selectOption('neurovlm-structured');
  await runAndScore(page, form);
  await expect(page.getByTestId('score-summary').getByTestId('patient-note')).toHaveCount(1);
  await page.getByRole('link', { name: '← Benchmark results' }).click();

  // Six series of two patients: n counts patients, and the interval is theirs.
  const board = page.getByTestId('leaderboard');
  const cell = board.locator('td[data-metric="neurovlm.diagnosis_name"]');
  await expect(cell).toContainText('n=2 patients (6 cases, 6 answers)', { timeout: 30_000 });
  const interval = async () => (await cell.locator('div').textContent())!.trim().split(' · ')[0]!;
  const byPatient = await interval();
  await page.getByTestId('leaderboard-unit').selectOption('sample');
  await expect(cell).toContainText('n=6 answers');
  expect(await interval()).not.toBe(byPatient);

  // Scanner field strength is a breakdown dimension, one patient per row.
  await page.getByTestId('leaderboard-unit').selectOption('question');
  await page.getByTestId('breakdown-dimension').selectOption({ label: 'Scanner field strength' });
  await expect(page.getByTestId('breakdown-chart')).toContainText('by scanner field strength');
  await page.getByText('As a table').click();
  const table = page.getByTestId('breakdown-table');
  await expect(table.locator('tbody th')).toHaveText(['1.5 T', '3 T']);
  await expect(table.locator('tbody tr').first()).toContainText('n=1 patient (3 cases, 3 answers)');

  // Nothing that names a patient, or the folders' names, was stored.
  const database = await dumpDatabase(page);
  for (const s of [...study.identifiers, 'patient1/series', 'answer-key.csv']) expect(database.toUpperCase()).not.toContain(s.toUpperCase());
  expect(readFileSync(`${study.folder}/answer-key.csv`, 'utf8')).toContain('patient1/series1');
});
