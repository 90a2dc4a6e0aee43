/**
 * Results that travel, in the real app: a VLMEvalKit prediction file (made by
 * pandas and xlsxwriter, as VLMEvalKit writes it) is imported on the Results
 * page as a run of the benchmark it answers, after a mapping step for an item
 * whose id is not a case; the run is scored like any run and downloads as an
 * Inspect AI log; the benchmark itself downloads as a bundle that holds its cases.
 */
import { strFromU8, unzipSync } from 'fflate';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, openApp, test } from '../support/fixtures.ts';

const DIR = fileURLToPath(new URL('../fixtures/interchange/vlmevalkit/', import.meta.url));

test('a VLMEvalKit xlsx imports as a run (with a mapping for an unknown id), is scored, and downloads for Inspect AI; the benchmark downloads as a bundle', async ({ page, server }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await page.getByTestId('import-files').setInputFiles(`${DIR}NeuroMCQ.tsv`);
  await expect(page.getByTestId('import-summary')).toContainText('6 cases');
  await page.getByTestId('import-preview').getByRole('button', { name: /^Import 6 cases$/ }).click();
  await expect(page.getByTestId('import-done')).toBeVisible();

  // The bundle export: a ZIP with the manifest and the six cases.
  const row = page.getByTestId('benchmark-list').getByRole('row', { name: /NeuroMCQ/ });
  const [bundleFile] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: 'Export' }).click()]);
  const bundle = unzipSync(readFileSync((await bundleFile.path())!));
  expect(JSON.parse(strFromU8(bundle['manifest.json']!))).toMatchObject({ format: 'neuroeval-bundle', name: 'NeuroMCQ', caseCount: 6 });
  expect(strFromU8(bundle['cases.jsonl']!).trim().split('\n')).toHaveLength(6);

  // The prediction file, with row 6's index changed to one the benchmark does not have and its question reworded.
  const xlsx = unzipSync(readFileSync(`${DIR}DemoVLM_NeuroMCQ.xlsx`));
  const sheet = strFromU8(xlsx['xl/worksheets/sheet1.xml']!).replace('<c r="A7"><v>6</v></c>', '<c r="A7" t="inlineStr"><is><t>row-six</t></is></c>').replace('<c r="B7" t="s"><v>14</v></c>', '<c r="B7" t="inlineStr"><is><t>Normal or not?</t></is></c>');
  expect(sheet).toContain('row-six');
  const { zipSync, strToU8 } = await import('fflate');
  const edited = zipSync({ ...xlsx, 'xl/worksheets/sheet1.xml': strToU8(sheet) });

  await page.getByRole('link', { name: 'Results' }).click();
  await page.getByTestId('import-run-file').setInputFiles({ name: 'DemoVLM_NeuroMCQ.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: Buffer.from(edited) });
  const preview = page.getByTestId('foreign-preview');
  await expect(page.getByTestId('foreign-summary')).toContainText('VLMEvalKit answers of DemoVLM');
  await expect(page.getByTestId('foreign-summary')).toContainText('5 matched to cases of "NeuroMCQ"');
  await expect(page.getByTestId('foreign-unmatched')).toContainText('row-six');
  await expect(page.getByTestId('foreign-unmatched')).toContainText('DemoVLM_NeuroMCQ.xlsx:7');
  await page.getByTestId('foreign-unmatched').scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('foreign-import.png') });
  await page.getByTestId('foreign-map').fill('6');
  await page.getByTestId('foreign-map').dispatchEvent('change');
  await page.getByTestId('foreign-apply-mapping').click();
  await expect(page.getByTestId('foreign-summary')).toContainText('6 matched to cases of "NeuroMCQ" (1 by your mapping)');
  await expect(page.getByTestId('foreign-unmatched')).toHaveCount(0);
  await preview.getByTestId('foreign-import').click();
  await expect(page.getByTestId('foreign-done')).toContainText('6 answers added');

  // Scored like any run: 4 of the 5 answered questions right (the failed call is left out).
  await page.getByTestId('foreign-done').getByRole('link', { name: 'Score it →' }).click();
  await page.getByTestId('score-run').click();
  await expect(page.getByTestId('score-summary')).toHaveAttribute('data-version', '1', { timeout: 60_000 });
  await expect(page.getByTestId('score-summary')).toContainText('80.0%');

  await page.getByTestId('export-run-as').scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('export-run-as.png') });

  // Downloaded for Inspect AI: the .eval ZIP with its header and one sample per answer.
  await page.getByTestId('export-run-format').selectOption('inspect-eval');
  const [log] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-run-as').click()]);
  expect(log.suggestedFilename()).toMatch(/\.eval$/);
  const entries = unzipSync(readFileSync((await log.path())!));
  const header = JSON.parse(strFromU8(entries['header.json']!)) as { eval: { model: string }; results: { scores: { name: string; metrics: { mean: { value: number } } }[] } };
  expect(header.eval.model).toBe('vlmevalkit:DemoVLM');
  expect(header.results.scores.find((s) => s.name === 'mcq.correct')!.metrics.mean.value).toBeCloseTo(0.8, 12);
  expect(Object.keys(entries).filter((n) => n.startsWith('samples/'))).toHaveLength(6);
});
