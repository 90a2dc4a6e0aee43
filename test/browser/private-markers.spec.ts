/**
 * Nothing private slips through the real app's import: a bundle whose images
 * carry text chunks, EXIF and comments and whose DICOM carries the patient's
 * name in its free text is imported through the UI (in the import worker).
 * The preview lists the image metadata removed and offers to keep the DICOM
 * descriptions cleaned; the stored images still draw; no IndexedDB store
 * holds a planted value. A number that reads as infinity gets an error
 * naming its file, line and field at once.
 */
import { dumpDatabase } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';
import { infiniteNumber, PRIVATE_MARKER, privateProbe } from '../support/hostile-archives.ts';

const zipFile = (name: string, buffer: Uint8Array) => ({ name, mimeType: 'application/zip', buffer: Buffer.from(buffer) });
const PLANTED = [PRIVATE_MARKER, 'MÜLLER', 'JÜRGEN', 'MÃ\u009cLLER', 'SMITH', 'DOE JOHN'];
const planted = (text: string) => PLANTED.filter((s) => text.toUpperCase().includes(s.toUpperCase()));

test('image metadata and DICOM free text are removed on import, and the images still draw', async ({ page, server }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });

  await page.getByTestId('import-files').setInputFiles(zipFile('private-probe.zip', privateProbe().files.get('private-probe.zip')!));
  const preview = page.getByTestId('import-preview');
  await expect(preview).toContainText('Ready to import: Hostile private-probe');
  const removed = page.getByTestId('removed-metadata');
  await removed.locator('summary').click();
  await expect(removed).toContainText('PNG compressed text (zTXt) in 2 images');
  await expect(removed).toContainText('JPEG EXIF (APP1) in 1 image');

  // Free text is dropped unless asked; asked, it is kept cleaned, with a warning per value.
  const keep = page.getByTestId('keep-dicom-descriptions').getByRole('checkbox');
  await expect(keep).not.toBeChecked();
  await keep.check();
  await expect(page.getByTestId('import-warnings')).toContainText(`"images/scan.dcm": ProtocolName held the patient's name, an ID or a date; only the rest is kept.`);
  await page.screenshot({ path: test.info().outputPath('import-preview.png'), fullPage: true });
  await keep.uncheck();
  await expect(page.getByTestId('import-preview')).not.toContainText('ProtocolName held');
  expect(planted(await page.content())).toEqual([]);

  await preview.getByRole('button', { name: /^Import 3 cases$/ }).click();
  await page.getByTestId('import-done').getByRole('link', { name: 'Browse the cases' }).click();
  for (const id of ['c1', 'c2']) {
    await page.locator(`a[data-case="${id}"]`).click();
    const img = page.getByTestId('case-view').locator('img').first();
    await expect(img).toBeVisible();
    // The stored bytes (metadata removed) still decode in the browser.
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth)).toBe(16);
    await page.getByRole('link', { name: '← All cases' }).click();
  }

  const database = await dumpDatabase(page);
  expect(database).toContain('private-probe');
  expect(planted(database)).toEqual([]);
});

test('a number that reads as infinity is an error naming file, line and field', async ({ page, server }) => {
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await page.getByTestId('import-files').setInputFiles(zipFile('infinite.zip', infiniteNumber().files.get('infinite.zip')!));
  await expect(page.getByTestId('import-errors')).toContainText('cases.jsonl:2, field "ehr.age"');
  await expect(page.getByTestId('import-errors')).toContainText('"ehr.age" is a number too large to store (it reads as infinity, as 1e400 does)');
});
