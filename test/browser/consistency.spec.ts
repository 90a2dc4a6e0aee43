/**
 * The mirror consistency probe through the app: the demo-trained model
 * answers a held-out benchmark with its images as stored and mirrored left
 * to right; the mirrored requests carry other image bytes, and the run's
 * scores page reports, per model, how many answer pairs name the same class
 * — the count the stored answers give.
 */
import { heldOutZip, importBundle } from '../support/demo-trained-run.ts';
import { expect, openApp, test } from '../support/fixtures.ts';
import { removeTempDirs } from '../support/temp-dir.ts';

test.afterAll(() => removeTempDirs());

test('mirrored images as a consistency probe: pairs and same-class counts as the stored answers give them', async ({ page, server }) => {
  test.setTimeout(480_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await importBundle(page, heldOutZip(6), 6);

  await page.goto(`${server.url}#/runs`);
  const form = page.getByTestId('new-run');
  await expect(form.getByTestId('run-plan')).toBeVisible({ timeout: 30_000 });
  const benchmark = await form.locator('select[name="benchmark"] option', { hasText: 'seed 7' }).getAttribute('value');
  await form.locator('select[name="benchmark"]').selectOption(benchmark!);
  await form.locator('input[name="model"][value="self-test"]').uncheck();
  await form.locator('input[name="model"][value="demo-trained"]').check();
  await form.locator('select[name="device"]').selectOption('wasm');
  await form.locator('input[name="variant"][value="probe:mirror"]').check();
  await expect(form.getByText('mirrored left–right (consistency probe)')).toBeVisible();
  await form.getByRole('button', { name: 'Start the run' }).click();
  await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 300_000 });

  // What the model said with and without the mirror, from the stored answers.
  type Stored = { caseId: string; variant: string; parsed: { diagnosis_name?: string } | null; parseError: string | null; cacheKey: string };
  const answers = await page.evaluate(
    () =>
      new Promise<Stored[]>((resolve, reject) => {
        const open = indexedDB.open('neuroeval');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const req = open.result.transaction('responses').objectStore('responses').getAll();
          req.onsuccess = () => (open.result.close(), resolve(req.result as Stored[]));
          req.onerror = () => reject(req.error);
        };
      }),
  );
  const byVariant = (v: string) => new Map(answers.filter((r) => r.variant === v && !r.parseError).map((r) => [r.caseId, r]));
  const [plain, mirrored] = [byVariant('none'), byVariant('probe:mirror')];
  const pairs = [...plain.keys()].filter((c) => mirrored.has(c));
  const same = pairs.filter((c) => plain.get(c)!.parsed?.diagnosis_name?.trim().toLowerCase() === mirrored.get(c)!.parsed?.diagnosis_name?.trim().toLowerCase()).length;
  expect(pairs.length).toBeGreaterThan(0);
  // The mirrored request is another request (other image bytes): its answer is not the original's reused.
  for (const c of pairs) expect(mirrored.get(c)!.cacheKey).not.toBe(plain.get(c)!.cacheKey);

  await page.getByTestId('run-scores-link').click();
  await page.getByTestId('score-run').click();
  await expect(page.getByTestId('score-summary')).toHaveAttribute('data-version', '1', { timeout: 60_000 });
  const row = page.getByTestId('consistency').locator('tbody tr');
  await expect(row).toHaveCount(1);
  await expect(row.locator('td').nth(0)).toHaveText(String(pairs.length));
  await expect(row.locator('td').nth(1)).toHaveText(`${same} of ${pairs.length}`);
  // The demo-trained model answers NeuroVLM-Bench's fields, which have no side: nothing to flip.
  await expect(row.locator('td').nth(2)).toHaveText('no side stated');
});
