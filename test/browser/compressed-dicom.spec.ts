/**
 * Compressed DICOM decoded inside the real import worker in Chromium: a
 * series converted by Debian's tools to JPEG 2000, JPEG-LS and JPEG lossless
 * imports through the UI (the codecs' WebAssembly served from the app's own
 * origin under its CSP) and each compressed slice shows exactly the image
 * of its uncompressed original.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, openApp, test } from '../support/fixtures.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import { convertWith, requireConversionTools, type SeriesSpec, writeSourceSeries } from '../support/transfer-syntax-series.ts';

const SPEC: SeriesSpec = { bitsAllocated: 16, bitsStored: 16, signed: false, slices: 1, rows: 64, columns: 48 };

/** One uncompressed slice and its conversions, with a CSV naming a case for each. */
function compressedFolder(): string {
  requireConversionTools();
  const work = makeTempDir('codecs');
  const [source] = writeSourceSeries(work, SPEC);
  const dir = join(work, 'scans');
  mkdirSync(dir);
  writeFileSync(join(dir, 'plain.dcm'), readFileSync(source!));
  convertWith('gdcmconv', ['--j2k'], source!, join(dir, 'j2k.dcm'));
  convertWith('dcmcjpls', ['+el'], source!, join(dir, 'jpegls.dcm'));
  convertWith('dcmcjpeg', ['+e1'], source!, join(dir, 'jpeg-lossless.dcm'));
  writeFileSync(join(dir, 'cases.csv'), 'case,prompt,file\nplain,Q,plain.dcm\nj2k,Q,j2k.dcm\njpegls,Q,jpegls.dcm\nlossless,Q,jpeg-lossless.dcm\n');
  return dir;
}

/** The viewer's canvas for a case's first image, as a data URL. */
async function shownImage(page: Page, caseId: string): Promise<string> {
  await page.locator(`a[data-case="${caseId}"]`).click();
  await page.getByRole('button', { name: /Open Image 1/ }).click();
  const viewer = page.getByTestId('image-viewer');
  await expect(viewer.getByTestId('wl-canvas')).toBeVisible();
  const url = await viewer.getByTestId('wl-canvas').evaluate((c: HTMLCanvasElement) => c.toDataURL());
  await page.keyboard.press('Escape');
  await page.getByRole('link', { name: '← All cases' }).click();
  return url;
}

test('JPEG 2000, JPEG-LS and JPEG lossless DICOM import in the worker and show the same image as the uncompressed file', async ({ page, server }) => {
  const folder = compressedFolder();
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await page.getByTestId('import-folder').setInputFiles(folder);
  await page.getByTestId('import-format').selectOption('generic');
  const form = page.getByTestId('mapping-form');
  await form.locator('select[name="id"]').selectOption('case');
  await form.locator('select[name="question"]').selectOption('prompt');
  await form.locator('select[name="image"]').selectOption(['file']);
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(page.getByTestId('import-summary')).toContainText('4 cases');
  await page.getByTestId('import-preview').getByRole('button', { name: /^Import 4 cases$/ }).click();
  await page.getByTestId('import-done').getByRole('link', { name: 'Browse the cases' }).click();

  const plain = await shownImage(page, 'plain');
  expect(plain.length).toBeGreaterThan(1000);
  for (const compressed of ['j2k', 'jpegls', 'lossless']) expect(await shownImage(page, compressed), compressed).toBe(plain);
});
