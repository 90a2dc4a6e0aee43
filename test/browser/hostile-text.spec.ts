/**
 * Hostile inputs in the app, with the messages a user reads and stored data
 * untouched: run exports with an answer for a case the benchmark lacks, an
 * item answered twice, or other benchmark content; benchmark CSVs in Latin-1
 * and UTF-16; a header naming a column twice; a file past the size limit.
 * The CLI meets the same inputs in test/unit/cli/hostile-text.test.ts.
 */
import type { Page } from '@playwright/test';
import { readStore } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';
import { duplicateHeaderCsv, encodedBenchmark, hostileRunExports, hugeFile, MENIERE } from '../support/hostile-files.ts';

async function openDemo(page: Page, url: string, hash: string): Promise<void> {
  await openApp(page, url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await page.goto(`${url}${hash}`);
}

test('a run export is checked against the benchmark before anything is stored', async ({ page, server }) => {
  await openDemo(page, server.url, '#/results');
  const [benchmark] = await readStore<{ id: string; contentHash: string }>(page, 'benchmarks');
  const cases = (await readStore<{ id: string; questions: { id: string }[] }>(page, 'cases')).slice(0, 11);
  const files = hostileRunExports(benchmark!, cases);
  const input = page.getByTestId('import-run-file');

  // An item answered twice: refused on reading, naming the item.
  await input.setInputFiles(files.duplicate);
  await expect(page.getByTestId('import-run-error')).toHaveText(
    `duplicate.json: responses[11].itemKey: item "${cases[0]!.id}#${cases[0]!.questions[0]!.id}|m|none|s0" (case "${cases[0]!.id}") is answered twice, at responses[0] and responses[11]; a run has one answer per item, so the file cannot be used as it is.`,
  );
  await expect(page.getByTestId('import-run-preview')).toHaveCount(0);

  // Other benchmark content: the preview says so (it used to promise a match the import then refused).
  await input.setInputFiles(files.otherContent);
  await expect(page.getByTestId('import-run-error')).toContainText('other-content.json: provenance.benchmark.contentHash: the run was made on different content of "NeuroEval demo (synthetic)"');
  await expect(page.getByTestId('import-run-preview')).toHaveCount(0);

  // A ghost case: the preview names it, the import waits for the user's choice, then leaves it out with a count.
  await input.setInputFiles(files.ghost);
  const preview = page.getByTestId('import-run-preview');
  await expect(preview.getByTestId('import-run-unknown')).toContainText(`ghost.json: responses[11]: 1 answer is for items this run's plan on "NeuroEval demo (synthetic)" does not have (first: case "ghost-case" is not in`);
  await expect(preview.getByTestId('import-run-go')).toBeDisabled();
  expect(await readStore(page, 'runs')).toEqual([]);
  expect(await readStore(page, 'responses')).toEqual([]);
  await preview.getByTestId('import-run-drop-unknown').check();
  await preview.getByTestId('import-run-go').click();
  await expect(page.getByTestId('import-run-done')).toContainText(`Stored "Run ghost": ${files.items} answers added, 1 for items outside its plan left out; status done.`);
  const stored = await readStore<{ caseId: string }>(page, 'responses');
  expect(stored).toHaveLength(files.items);
  expect(stored.map((r) => r.caseId)).not.toContain('ghost-case');
});

test('benchmark CSVs in Latin-1 and UTF-16, a doubled header and a file too large get clear messages', async ({ page, server }) => {
  await openDemo(page, server.url, '#/benchmarks');
  const before = await readStore<{ id: string }>(page, 'benchmarks');

  const originalClasses = async () => (await readStore<{ meta?: Record<string, string> }>(page, 'cases')).map((c) => c.meta?.original_class).filter((v) => v !== undefined);

  // UTF-16 without a byte-order mark: found by its zero bytes, no warning, stored as written.
  await page.getByTestId('import-folder').setInputFiles(encodedBenchmark('utf-16be').dir);
  await expect(page.getByTestId('import-summary')).toContainText('2 cases');
  await expect(page.getByTestId('import-warnings')).toHaveCount(0);
  await page.getByRole('button', { name: 'Import 2 cases' }).click();
  await expect(page.getByTestId('import-done')).toContainText('Imported 2 cases.');
  expect(await originalClasses()).toContain(MENIERE);

  // Latin-1: read as Windows-1252, with a warning that shows how the line now reads; stored as the user wrote it.
  await page.getByTestId('import-folder').setInputFiles(encodedBenchmark('latin1').dir);
  await expect(page.getByTestId('import-warnings')).toContainText(`bench-latin1/index.csv:2 bench-latin1/index.csv is not UTF-8 (line 2 is the first with other bytes), so it was read as Windows-1252 (Latin-1): line 2 now reads "ent,a.png,stroke,${MENIERE},MRI,FLAIR,axi…".`);
  await page.getByRole('button', { name: 'Import 2 cases' }).click();
  await page.getByRole('button', { name: 'Import as a new benchmark' }).click();
  await expect(page.getByTestId('import-done')).toContainText('Imported 2 cases.');
  const classes = await originalClasses();
  expect(classes.filter((c) => c === MENIERE)).toHaveLength(2);
  expect(JSON.stringify(classes)).not.toContain('\uFFFD');
  const after = await readStore<{ id: string }>(page, 'benchmarks');
  expect(after).toHaveLength(before.length + 2);

  // A header naming a column twice: the error names the file, line and column.
  await page.getByTestId('import-files').setInputFiles(duplicateHeaderCsv());
  await expect(page.getByTestId('import-error')).toHaveText('cases.csv:1, field "question": The header names column "question" twice (columns 2 and 4).');

  // 2 GiB: refused by its size, named, before the browser tries to read it.
  await page.getByTestId('import-files').setInputFiles(hugeFile('huge.csv'));
  await expect(page.getByTestId('import-error')).toHaveText('huge.csv is 2.0 GB, larger than the 512 MB a text file can be (it is read whole, in this browser or by the CLI); nothing was read. Split it into smaller files.');
  expect(await readStore(page, 'benchmarks')).toHaveLength(after.length);
});
