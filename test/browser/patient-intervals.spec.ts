/**
 * Hospital slices through the app: two benchmarks of the same ten slices with
 * the technical tags a DICOM export carries, one where the slices belong to
 * two patients (five each, one scanned at 1.5 T, one at 3 T) and one where
 * every slice is its own patient. The demo-trained model answers both; the
 * results page breaks the scores down by scanner field strength, and the
 * leaderboard's intervals resample patients (n = 2 patients) only where
 * slices share one — otherwise they are the per-slice figures, unchanged.
 */
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { demoTrainedRunForm, importBundle } from '../support/demo-trained-run.ts';
import { expect, openApp, test } from '../support/fixtures.ts';
import { patientSlicesZip } from '../support/patient-bundles.ts';

/** Runs the demo-trained model on one benchmark from the Runs page, scores it, and opens the benchmark's results. */
async function runAndScore(page: Page, url: string, benchmark: string, byPatient: boolean): Promise<void> {
  const form = await demoTrainedRunForm(page, url, 'wasm', benchmark);
  await form.getByRole('button', { name: 'Start the run' }).click();
  await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 240_000 });
  await page.getByTestId('run-scores-link').click();
  await page.getByTestId('score-run').click();
  await expect(page.getByTestId('score-summary')).toHaveAttribute('data-version', '1', { timeout: 60_000 });
  // The run's own scores say whether intervals are by patient.
  await expect(page.getByTestId('score-summary').getByTestId('patient-note')).toHaveCount(byPatient ? 1 : 0);
  await page.getByRole('link', { name: '← Benchmark results' }).click();
  await expect(page.getByTestId('leaderboard')).toContainText('demo-trained');
}

/** The interval shown under the class accuracy of the leaderboard's only row, and its count. */
async function classCell(page: Page): Promise<{ interval: string; count: string }> {
  const text = (await page.getByTestId('leaderboard').locator('td[data-metric="neurovlm.diagnosis_name"] div').textContent())!.trim();
  const [interval, count] = text.split(' · ');
  return { interval: interval!, count: count! };
}

test('slices of two patients: breakdown by scanner field strength, and intervals by patient only where slices share one', async ({ page, server }) => {
  test.setTimeout(600_000);
  const shared = patientSlicesZip(2, 5, true);
  const single = patientSlicesZip(2, 5, false);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await importBundle(page, shared.file, shared.cases);
  await page.goto(`${server.url}#/benchmarks`);
  await importBundle(page, single.file, single.cases);

  // Every slice its own patient: the per-slice figures, with nothing said about patients.
  await runAndScore(page, server.url, single.name, false);
  const board = page.getByTestId('leaderboard');
  await expect(board.locator('td[data-metric="neurovlm.diagnosis_name"]')).toContainText('n=10');
  const perSlice = await classCell(page);
  expect(perSlice.count).toBe('n=10');
  await expect(page.getByTestId('patient-note')).toHaveCount(0);

  // Five slices per patient: the same answers, resampled by patient.
  await runAndScore(page, server.url, shared.name, true);
  await expect(board.locator('td[data-metric="neurovlm.diagnosis_name"]')).toContainText('n=2 patients (10 cases, 10 answers)');
  const byPatient = await classCell(page);
  expect(byPatient.interval).not.toBe(perSlice.interval);
  await expect(page.getByTestId('patient-note')).toContainText('Intervals are by patient.');
  await expect(page.getByTestId('patient-note')).toContainText('n counts patients');
  // The per-answer view is the per-slice figure of the other benchmark.
  await page.getByTestId('leaderboard-unit').selectOption('sample');
  await expect(board.locator('td[data-metric="neurovlm.diagnosis_name"]')).toContainText('n=10 answers');
  expect((await classCell(page)).interval).toBe(perSlice.interval);
  await expect(page.getByTestId('patient-note')).toContainText('Per-answer view');
  await page.getByTestId('leaderboard-unit').selectOption('question');
  await expect(board.locator('td[data-metric="neurovlm.diagnosis_name"]')).toContainText('n=2 patients');

  // The technical tags are breakdown dimensions with words for labels, field strength grouped by nominal tesla.
  const dims = page.getByTestId('breakdown-dimension');
  await expect(dims.locator('option')).toContainText(['Scanner manufacturer', 'Scanner model', 'Scanner field strength', 'Slice thickness', 'Sequence name (scanner)', 'Protocol name (scanner)']);
  await expect(dims.locator('option', { hasText: 'Contrast agent' })).toHaveCount(0);
  await dims.selectOption({ label: 'Scanner field strength' });
  await expect(page.getByTestId('breakdown-chart')).toContainText('by scanner field strength');
  await page.getByText('As a table').click();
  const table = page.getByTestId('breakdown-table');
  await expect(table.locator('thead th').first()).toHaveText('Scanner field strength');
  await expect(table.locator('tbody th')).toHaveText(['1.5 T', '3 T']);
  await expect(table.locator('tbody tr').first()).toContainText('n=1 patient (5 cases, 5 answers)');
  await expect(page.getByTestId('breakdown-patients')).toContainText('Intervals by patient');

  // The report says so too.
  const [report] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-html').click()]);
  const html = readFileSync(await report.path(), 'utf8');
  expect(html).toContain('<strong>Intervals are by patient.</strong>');
  expect(html).toContain('n=2 patients (10 cases, 10 answers)');
  expect(html).toMatch(/<caption>Class \(diagnosis_name\) by scanner field strength \(intervals by patient\)<\/caption>/);
  expect(html).toContain('<th scope="row">3 T</th>');
});
