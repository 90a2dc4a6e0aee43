/**
 * No patient data anywhere it can hide, in the real app: a bundle with DICOM
 * in `sources/` and a case image named after the patient is imported through
 * the UI (in the import worker); every IndexedDB store and the exported
 * bundle are searched for each planted value and none is found, while the
 * cases still browse. Each hostile input that cannot be de-identified is
 * refused with its message, and burned-in annotation passes only when the
 * user ticks the box.
 */
import { readFileSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { phiBundle, PLANTED_STRINGS, refusedInputs } from '../support/hostile-bundles.ts';
import { dumpDatabase } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';

const latin1 = (bytes: Uint8Array) => new TextDecoder('latin1').decode(bytes);

function planted(text: string): string[] {
  const upper = text.toUpperCase();
  return PLANTED_STRINGS.filter((s) => upper.includes(s.toUpperCase()));
}


const zipFile = (name: string, buffer: Uint8Array) => ({ name, mimeType: 'application/zip', buffer: Buffer.from(buffer) });

test('a bundle with DICOM in sources/ and a patient-named image is stored and exported with no planted value', async ({ page, server }) => {
  test.setTimeout(120_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });

  await page.getByTestId('import-files').setInputFiles(zipFile('phi-probe.zip', phiBundle()));
  const preview = page.getByTestId('import-preview');
  await expect(preview).toContainText('Ready to import: PHI probe');
  const warnings = page.getByTestId('import-warnings');
  await expect(warnings).toContainText('"sources/export-0001" is a DICOM file: only a de-identified copy of its pixels and rendering fields is kept');
  await expect(warnings).toContainText('"sources/ZZTOPNAME_QUENTIN_MRN77441122_series2.dcm" is a DICOM file');
  await preview.getByRole('button', { name: /^Import 2 cases$/ }).click();
  await page.getByTestId('import-done').getByRole('link', { name: 'Browse the cases' }).click();

  // The case made from the patient-named DICOM still browses and opens.
  await page.locator('a[data-case="case-1"]').click();
  const view = page.getByTestId('case-view');
  await expect(view.getByRole('heading', { name: /Images \(1,/ })).toBeVisible();
  await view.getByRole('button', { name: /Open Image 1/ }).click();
  await expect(page.getByTestId('image-viewer').getByTestId('wl-canvas')).toBeVisible();
  await page.getByTestId('image-viewer').getByRole('button', { name: 'Close' }).click();
  expect(planted(await page.content())).toEqual([]);

  const database = await dumpDatabase(page);
  expect(database).toContain('phi-probe');
  expect(planted(database)).toEqual([]);

  // The bundle export: entry names and bytes.
  await page.goto(`${server.url}#/benchmarks`);
  const row = page.getByTestId('benchmark-list').getByRole('row', { name: /PHI probe/ });
  const download = page.waitForEvent('download');
  await row.getByRole('button', { name: 'Export' }).click();
  const exported = readFileSync(await (await download).path());
  const entries = unzipSync(new Uint8Array(exported));
  expect(Object.keys(entries)).toContain('cases.jsonl');
  expect(planted(Object.entries(entries).map(([name, bytes]) => `${name}\n${latin1(bytes)}`).join('\n'))).toEqual([]);
});

test('hostile inputs that cannot be de-identified are refused with their reason; burned-in annotation only when accepted', async ({ page, server }) => {
  test.setTimeout(120_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  const before = await dumpDatabase(page);
  const [burned, ...others] = refusedInputs();
  for (const r of others) {
    await page.getByTestId('import-files').setInputFiles(zipFile('hostile.zip', r.zip));
    await expect(page.getByTestId('import-errors')).toContainText(r.message);
    await page.getByRole('button', { name: 'Start over' }).click();
  }
  expect(await dumpDatabase(page)).toBe(before);

  await page.getByTestId('import-files').setInputFiles(zipFile('burned.zip', burned!.zip));
  await expect(page.getByTestId('import-errors')).toContainText(burned!.message);
  await page.getByTestId('accept-burned-in').getByRole('checkbox').check();
  await expect(page.getByTestId('import-preview')).toContainText('Ready to import: PHI probe');
  await expect(page.getByTestId('import-warnings')).toContainText('"images/scan.dcm" has burned-in annotation (BurnedInAnnotation YES); imported because you accepted burned-in annotation');
});
