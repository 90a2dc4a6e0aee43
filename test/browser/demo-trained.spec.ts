/**
 * The known-answer check of the whole image-to-score path. The demo-trained
 * model (public/models/demo-trained/, learned the demo generator's phantoms
 * drawn with seeds 1000 and 1001) answers a held-out set drawn with seed 7
 * through the real app: import, run form, runner, model host, transformers.js
 * on WASM and on the software WebGPU adapter, NeuroEval's NeuroVLM scorer. Its
 * accuracy, JSON validity and calibration must be those of a model that sees
 * the image; and the check has teeth: with the image hidden (text-only) or
 * scrambled before the processor (inverted, a test-only switch in the
 * transformers worker) accuracy falls to chance (0.2: five classes in equal
 * measure).
 */
import { expect, openApp, test } from '../support/fixtures.ts';
import type { Page } from '@playwright/test';
import { heldOutZip, importBundle, runDemoTrained } from '../support/demo-trained-run.ts';

/** The app with its demo loaded and a held-out set of `cases` imported beside it. */
async function withHeldOut(page: Page, url: string, cases: number): Promise<void> {
  await openApp(page, url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await importBundle(page, heldOutZip(cases), cases);
}

test('on WASM the demo-trained model sees the held-out images: accurate, valid JSON, calibrated; hidden or scrambled images fall to chance', async ({ page, server }) => {
  test.setTimeout(600_000);
  const cases = 50;
  await withHeldOut(page, server.url, cases);

  const run = await runDemoTrained(page, server.url, { device: 'wasm', variants: ['text-only'] });
  const full = run.arms.find((a) => a.variant === 'none')!;
  const textOnly = run.arms.find((a) => a.variant === 'text-only')!;
  expect(full.scored).toBe(cases);
  expect(full.accuracy, JSON.stringify(full)).toBeGreaterThanOrEqual(0.8);
  expect(full.jsonValid).toBeGreaterThanOrEqual(0.95);
  expect(full.ece).toBeLessThan(0.15);
  // Without the image the model cannot know the class.
  expect(textOnly.accuracy, JSON.stringify(textOnly)).toBeLessThanOrEqual(0.35);

  // The benchmark's results page shows this model's own figures.
  await page.getByRole('link', { name: '← Benchmark results' }).click();
  await expect(page.getByTestId('leaderboard')).toContainText('Demo-trained model');

  // A deliberately wrong image path: every image inverted before the processor.
  const worker = page.workers().find((w) => /transformers/.test(w.url()));
  expect(worker, 'the transformers worker is running').toBeDefined();
  await worker!.evaluate(() => {
    (globalThis as unknown as { neuroevalDiagnostics: { imageTransform: string | null } }).neuroevalDiagnostics.imageTransform = 'invert';
  });
  const scrambled = (await runDemoTrained(page, server.url, { device: 'wasm', force: true })).arms.find((a) => a.variant === 'none')!;
  expect(scrambled.accuracy, JSON.stringify(scrambled)).toBeLessThanOrEqual(0.4);
});

test('on the software WebGPU adapter the demo-trained model answers the held-out images as on WASM', async ({ page, server }) => {
  test.setTimeout(600_000);
  const cases = 20;
  await withHeldOut(page, server.url, cases);
  const full = (await runDemoTrained(page, server.url, { device: 'webgpu' })).arms.find((a) => a.variant === 'none')!;
  expect(full.scored).toBe(cases);
  expect(full.accuracy, JSON.stringify(full)).toBeGreaterThanOrEqual(0.8);
  expect(full.jsonValid).toBeGreaterThanOrEqual(0.95);
});
