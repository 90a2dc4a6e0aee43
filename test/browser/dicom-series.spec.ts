/**
 * A hospital study folder through the real app: DICOM files of two
 * patients (three series, file names out of slice order) are recognised
 * by themselves, the user picks which slices each case shows, and the
 * stored cases carry the scanner's technical tags and pseudonymous keys.
 * No patient identifier is stored, the key salt stays in the database and
 * out of the exported bundle, and a secondary capture is refused until the
 * user accepts burned-in text.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { unzipSync } from 'fflate';
import { PATIENT_A, PATIENT_B, secondaryCapture, SERIES_UIDS, twoPatientStudy } from '../support/dicom-studies.ts';
import { dumpDatabase } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';
import { makeTempDir, removeTempDirs } from '../support/temp-dir.ts';

test.afterAll(() => removeTempDirs());

const IDENTIFIERS = [PATIENT_A.name, PATIENT_A.id, PATIENT_A.studyUid, PATIENT_B.name, PATIENT_B.id, PATIENT_B.studyUid, ...SERIES_UIDS];
const latin1 = (bytes: Uint8Array) => new TextDecoder('latin1').decode(bytes);

function studyFolder(): string {
  const root = makeTempDir('study');
  for (const f of twoPatientStudy(5)) {
    mkdirSync(dirname(join(root, f.name)), { recursive: true });
    writeFileSync(join(root, f.name), f.bytes);
  }
  return join(root, 'study');
}


test('a study folder of two patients imports by itself, with the slices the user picks, technical tags and no identifier', async ({ page, server }) => {
  test.setTimeout(120_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });

  await page.getByTestId('import-folder').setInputFiles(studyFolder());
  const preview = page.getByTestId('import-preview');
  await expect(preview).toContainText('Ready to import: DICOM import (3 series, 2 patients)', { timeout: 30_000 });
  await expect(page.getByTestId('import-summary')).toContainText('3 cases');
  await expect(page.getByTestId('import-summary')).toContainText('3 images');
  const dropped = page.getByTestId('dropped-tags');
  await dropped.locator('summary').click();
  await expect(dropped).toContainText('PatientName');
  await expect(dropped).toContainText('SeriesInstanceUID');

  // Pick the first and the fourth slice of each series: read again, two images a case.
  const options = page.getByTestId('image-options');
  await options.locator('input[name="seriesSlices"]').fill('0, 3');
  await options.locator('input[name="seriesSlices"]').press('Tab');
  await expect(page.getByTestId('import-summary')).toContainText('6 images');
  await preview.getByRole('button', { name: /^Import 3 cases$/ }).click();
  await page.getByTestId('import-done').getByRole('link', { name: 'Browse the cases' }).click();

  // The 3 T series (patient B, GE): its case shows slices 1 and 4 and the scanner's tags.
  const cases = page.locator('a[data-case^="series-"]');
  await expect(cases).toHaveCount(3);
  let opened = false;
  for (let i = 0; i < 3 && !opened; i++) {
    await cases.nth(i).click();
    const view = page.getByTestId('case-view');
    await expect(view.getByRole('heading', { name: /Images \(2,/ })).toBeVisible();
    if ((await view.textContent())?.includes('dicom.fieldStrength3')) opened = true;
    else await page.getByRole('link', { name: '← All cases' }).click();
  }
  expect(opened).toBe(true);
  const view = page.getByTestId('case-view');
  await expect(view.getByText('Image 1 · axial 1/5')).toBeVisible();
  await expect(view.getByText('Image 2 · axial 4/5')).toBeVisible();
  const source = view.getByRole('table').last();
  await expect(source.getByRole('row', { name: /dicom\.manufacturer/ })).toContainText('GE MEDICAL SYSTEMS');
  // The agent's name is free text, kept only when asked: by default the case says that one was given.
  await expect(source.getByRole('row', { name: /dicom\.contrast/ })).toContainText('yes');
  await expect(source).not.toContainText('GADOVIST');
  await expect(source.getByRole('row', { name: /dicom\.patientKey/ })).toContainText(/[0-9a-f]{16}/);
  for (const s of IDENTIFIERS) expect((await page.content()).toUpperCase()).not.toContain(s.toUpperCase());

  // Stored: keys and tags, never the identifiers; the salt only on the benchmark's record.
  const database = await dumpDatabase(page);
  expect(database).toContain('dicom.seriesKey');
  for (const s of IDENTIFIERS) expect(database.toUpperCase()).not.toContain(s.toUpperCase());
  const salt = /"keySalt":"([0-9a-f]{32})"/.exec(database)?.[1];
  expect(salt).toBeDefined();
  expect(database.split(salt!).length - 1).toBe(1);

  // The bundle export carries the keys but not the salt.
  await page.goto(`${server.url}#/benchmarks`);
  const row = page.getByTestId('benchmark-list').getByRole('row', { name: /DICOM import/ });
  const download = page.waitForEvent('download');
  await row.getByRole('button', { name: 'Export' }).click();
  const entries = unzipSync(new Uint8Array(readFileSync(await (await download).path())));
  const exported = Object.entries(entries).map(([name, bytes]) => `${name}\n${latin1(bytes)}`).join('\n');
  expect(exported).toContain('dicom.patientKey');
  expect(exported).not.toContain(salt!);
  for (const s of IDENTIFIERS) expect(exported.toUpperCase()).not.toContain(s.toUpperCase());
});

test('a secondary capture is refused with its reason until the user accepts burned-in text', async ({ page, server }) => {
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await page.getByTestId('import-files').setInputFiles({ name: 'capture.dcm', mimeType: 'application/dicom', buffer: Buffer.from(secondaryCapture()) });
  await expect(page.getByTestId('import-errors')).toContainText('"capture.dcm" is a secondary capture');
  await expect(page.getByTestId('import-errors')).toContainText('SOP class Secondary Capture Image Storage');
  await page.getByTestId('accept-burned-in').getByRole('checkbox').check();
  await expect(page.getByTestId('import-preview')).toContainText('Ready to import: DICOM import (1 series, 1 patient)');
  await expect(page.getByTestId('import-warnings')).toContainText('"capture.dcm" may have text in its pixels (SOPClassUID); imported because you accepted burned-in annotation');
});
