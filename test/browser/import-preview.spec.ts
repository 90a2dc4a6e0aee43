/**
 * What the import preview tells before anything is stored: whether a
 * Neural-MedBench answer key was matched, the name and licence the benchmark
 * will carry (set there), and, for a changed file under a stored id, what differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { neuralMedBenchFiles, vlmEvalKitTsv } from '../support/benchmark-files.ts';
import { expect, openApp, test } from '../support/fixtures.ts';
import { makeTempDir } from '../support/temp-dir.ts';

test('the Neural-MedBench preview says whether the answer key was matched, and which cases it missed', async ({ page, server }) => {
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  const { json } = neuralMedBenchFiles();
  await page.getByTestId('import-files').setInputFiles(json);
  await expect(page.getByTestId('answer-key-match')).toContainText('No answer key.');

  // A key that covers case_1 only, with a row for a case the file does not have.
  const key = join(dirname(json), 'partial-key.csv');
  writeFileSync(key, 'case_id,question_number,diagnosis\ncase_1,1,Alzheimer disease\ncase_99,1,Migraine\n');
  await page.getByTestId('import-files').setInputFiles([json, key]);
  const match = page.getByTestId('answer-key-match');
  await expect(match).toContainText('Answer key partial-key.csv: 1 of 2 cases matched');
  await expect(match).toContainText('No row for case: case_2; it will not be scored.');
  await match.getByText('1 row matched no question').click();
  await expect(match).toContainText('there is no case "case_99"');
});

test('a benchmark takes the name and licence set in the preview; a changed file under its id says what differs', async ({ page, server }) => {
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  const tsv = vlmEvalKitTsv();
  await page.getByTestId('import-files').setInputFiles(tsv);
  const preview = page.getByTestId('import-preview');
  const identity = page.getByTestId('import-identity');
  await expect(identity.getByLabel('Licence')).toHaveValue('unknown');

  // An empty name is refused where it is typed.
  await identity.getByLabel('Name').fill('   ');
  await expect(identity).toContainText('The benchmark needs a name.');
  await identity.getByLabel('Name').fill('Ward 7 sequence quiz');
  await identity.getByLabel('Name').press('Enter');
  await expect(preview.getByRole('heading', { level: 3 })).toHaveText('Ready to import: Ward 7 sequence quiz');
  await identity.getByLabel('Licence').fill('CC-BY-NC-4.0');
  await identity.getByLabel('Licence').press('Enter');
  await expect(identity.getByLabel('Licence')).toHaveValue('CC-BY-NC-4.0');
  await expect(preview.getByRole('button', { name: /^Import 3 cases$/ })).toBeEnabled();
  await preview.getByRole('button', { name: /^Import 3 cases$/ }).click();
  await expect(page.getByTestId('import-done')).toContainText('Imported 3 cases');
  const row = page.getByTestId('benchmark-list').getByRole('row', { name: /Ward 7 sequence quiz/ });
  await expect(row).toContainText('CC-BY-NC-4.0');

  // The same file with one answer changed and a row added: same id, different content.
  await page.getByTestId('import-done').getByRole('button', { name: 'Import another' }).click();
  const changed = join(makeTempDir('vlm-changed'), 'MedBench.tsv');
  const b64 = readFileSync(tsv, 'utf8').split('\n')[1]!.split('\t')[1]!;
  writeFileSync(changed, readFileSync(tsv, 'utf8').replace('\tC\tMRI\tsequence', '\tD\tMRI\tsequence') + ['3', b64, 'Which side?', 'Left', 'Right', '', '', 'A', 'MRI', 'side'].join('\t') + '\n');
  await page.getByTestId('import-files').setInputFiles(changed);
  await preview.getByRole('button', { name: /^Import 4 cases$/ }).click();
  const error = page.getByTestId('import-error');
  await expect(error).toContainText('differs from the stored "Ward 7 sequence quiz"');
  await expect(error).toContainText('1 case changed, 1 added');
  await page.getByTestId('import-as-new').click();
  await expect(page.getByTestId('import-done')).toContainText('Imported 4 cases');
});
