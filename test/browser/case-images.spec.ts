/**
 * The case drill-down shows the case it names: walking a run's cases with
 * "next case", the pixels on screen at each step are the stored images of the
 * case in the heading (an image kept from the case before would fail here).
 */
import { expect, openApp, test } from '../support/fixtures.ts';
import { seedScoredRun } from '../support/scored-run.ts';
import { shownImageHashes, storedCaseImageHashes } from '../support/shown-images.ts';

test("walking a run's cases in the drill-down, each step shows the named case's own images", async ({ page, server }) => {
  test.setTimeout(180_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  const { runId, benchmarkId, caseIds } = await seedScoredRun(page, server.url, { models: ['model-x'] });
  const first = [...caseIds].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))[0]!;
  await page.goto(`${server.url}#/results/case/${runId}/${encodeURIComponent(first)}`);
  const drill = page.getByTestId('drilldown');
  const seen = new Set<string>();
  for (let step = 0; step < 5; step++) {
    const caseId = (await drill.locator('h2').textContent())!.replace(/^Case /, '');
    const stored = await storedCaseImageHashes(page, benchmarkId, caseId);
    await expect(drill.locator('ol img')).toHaveCount(stored.length);
    await expect.poll(() => shownImageHashes(drill.locator('ol')), { message: `the images shown under case ${caseId}` }).toEqual(stored);
    seen.add(caseId);
    await drill.getByTestId('next-case').click();
    await expect(drill.locator('h2')).not.toHaveText(`Case ${caseId}`);
  }
  expect(seen.size).toBe(5);
});
