/**
 * Hostile archives and files through the app's import panel (all work in the
 * import worker): each gets its message naming the entry, file, line or
 * field, the zip bombs are refused by the budget without unpacking their
 * gigabytes, the preview counts every file it will store, and a benchmark
 * stored before is exactly as it was afterwards.
 */
import type { Page } from '@playwright/test';
import { bundleWithAsset, nvbFormula, nvbOffLabels, pngLiar, ratioBomb, writeHostile, zeroCompressedSize, type HostileInput } from '../support/hostile-archives.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import { expect, openApp, test } from '../support/fixtures.ts';

async function openBenchmarks(page: Page, url: string) {
  await openApp(page, url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
}

/** Picks a hostile archive (as files) or folder (as a folder) in the import panel. */
async function choose(page: Page, input: HostileInput): Promise<void> {
  const path = writeHostile(input, makeTempDir('hostile-ui'));
  await page.getByTestId(input.input.endsWith('/') ? 'import-folder' : 'import-files').setInputFiles(path);
}

async function startOver(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Start over' }).click();
}

test('hostile archives are refused with the entry named, and the benchmark stored before is untouched', async ({ page, server }) => {
  await openBenchmarks(page, server.url);

  // A valid bundle that carries a file besides its image: the preview says so before anything is stored.
  await choose(page, bundleWithAsset());
  await expect(page.getByTestId('import-summary')).toHaveText(/^1 cases, 1 questions, 1 images \(\d+ bytes\), 1 other file \(293 KiB\)\.\s*$/);
  await page.getByTestId('import-preview').getByRole('button', { name: /^Import 1 cases$/ }).click();
  await expect(page.getByTestId('import-done')).toContainText('Imported 1 cases.');
  const list = page.getByTestId('benchmark-list');
  const stored = list.getByRole('row', { name: /Hostile with-asset/ });
  const hash = await stored.locator('code').getAttribute('title');
  const count = await list.locator('tbody tr').count();

  await choose(page, zeroCompressedSize());
  await expect(page.getByTestId('import-errors')).toHaveText(
    'zero-size.zip, field "assets/big.bin" "assets/big.bin" declares 1,073,741,824 bytes from 0 compressed bytes, which looks like a zip bomb; refusing the archive.',
  );
  await startOver(page);

  await choose(page, ratioBomb());
  await expect(page.getByTestId('import-errors')).toHaveText(
    'ratio-bomb.zip, field "assets/part0.bin" "assets/part0.bin" is compressed 444:1 (1000 MiB from 2.3 MiB), which looks like a zip bomb: files over 16 MiB may be compressed at most 100:1.',
  );
  await startOver(page);

  await choose(page, pngLiar());
  await expect(page.getByTestId('import-errors')).toHaveText(
    'png-liar.zip, field "images/liar.png" This PNG image is damaged or incomplete: its header says 10000 × 10000 pixels, but its pixel data holds only 72 of the 100,010,000 bytes that size needs.',
  );
  await startOver(page);

  await choose(page, nvbFormula());
  await expect(page.getByTestId('import-errors')).toHaveText(
    'nvb-formula/subset_hostile.csv:3, field "class" class "=HYPERLINK("x")" looks like a spreadsheet formula, not a NeuroVLM-Bench label; the index was altered, so it is refused.',
  );
  // Shown as text, never as markup.
  await expect(page.getByTestId('import-errors').locator('a')).toHaveCount(0);
  await startOver(page);

  // Labels outside the set are warnings: the preview is ready, with file, line and field.
  await choose(page, nvbOffLabels());
  await expect(page.getByTestId('import-summary')).toContainText('3 cases');
  await expect(page.getByTestId('import-warnings')).toContainText(
    'nvb-off-labels/subset_hostile.csv:3, field "plane" plane "diagonal" is not one of NeuroVLM-Bench\'s planes (axial, sagittal, coronal); the case is imported, but the benchmark\'s prompt never offers this answer.',
  );
  await page.getByRole('button', { name: 'Cancel' }).click();

  // Nothing was added, removed or changed.
  await expect(list.locator('tbody tr')).toHaveCount(count);
  await expect(stored.locator('code')).toHaveAttribute('title', hash!);
});
