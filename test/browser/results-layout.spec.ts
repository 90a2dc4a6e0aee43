/**
 * The benchmark's results page at 1280 px, as a newcomer reads it: the
 * leaderboard names models by their display names and never clips its test
 * column, a tie names no leader, the answers table fits its box with the score
 * and confidence in view, the chart pickers say what they show, and new
 * reviews can be folded in with a re-score button where they are reported.
 */
import type { Locator } from '@playwright/test';
import { putRows } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';
import { seedScoredRun } from '../support/scored-run.ts';

const LONG_ID = 'on-prem-endpoint-model-with-a-very-long-identifier-q4f16';

/** The element lies inside the box horizontally (not clipped, not scrolled out of view). */
async function expectInside(inner: Locator, box: Locator): Promise<void> {
  const [a, b] = [await inner.boundingBox(), await box.boundingBox()];
  expect(a && b).toBeTruthy();
  expect(a!.x).toBeGreaterThanOrEqual(b!.x - 1);
  expect(a!.x + a!.width).toBeLessThanOrEqual(b!.x + b!.width + 1);
}

test('a tie names no leader; display names, no clipped columns, chart pickers that show their choice, re-score beside new reviews', async ({ page, server }) => {
  test.setTimeout(180_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  // Both models right on every case: every figure is tied.
  const { runId, benchmarkId } = await seedScoredRun(page, server.url, { models: ['self-test', LONG_ID], right: () => true });
  await page.goto(`${server.url}#/results/b/${benchmarkId}`);
  const board = page.getByTestId('leaderboard');
  await expect(board.locator('tbody tr')).toHaveCount(2);
  // The demo's name and its "synthetic data" badge read as two words, with a visible gap between them.
  await expect(page.locator('#bench-title')).toHaveText('NeuroEval demo (synthetic) synthetic data');
  const nameEnd = await page.locator('#bench-title').evaluate((h) => {
    const range = document.createRange();
    range.selectNodeContents(h.firstChild!);
    return range.getBoundingClientRect().right;
  });
  expect((await page.locator('#bench-title .badge').boundingBox())!.x - nameEnd).toBeGreaterThanOrEqual(3);

  // A tie: both rows say "tied", none says "leader", and the page says there is no leader.
  await expect(board.getByTestId('versus')).toHaveText(['tied', 'tied']);
  await expect(page.getByTestId('all-tied')).toContainText('there is no leader');
  // Display names, with the id beside.
  const selfTest = board.locator('tbody tr').filter({ hasText: 'Self-test (random weights)' });
  await expect(selfTest.getByTestId('model-name')).toHaveText('Self-test (random weights)');
  await expect(selfTest).toContainText('self-test · Seeded run');
  await expect(page.getByTestId('random-weights-caveat')).toContainText('meaningless as medical performance');
  // Nothing clipped: the test column sits inside the leaderboard's box, with every column it has.
  await page.getByText('More columns').click();
  for (const box of await page.locator('.more input[type="checkbox"]').all()) await box.check();
  for (const cell of await board.getByTestId('versus').all()) await expectInside(cell, board.locator('..'));

  // The answers table fits its box; score and confidence are in view even beside a long model id.
  const viewport = page.getByTestId('answers-viewport');
  await expect(page.getByTestId('answers-table').locator('tbody td[title]').first()).toBeVisible();
  const widths = await viewport.evaluate((v) => ({ scroll: v.scrollWidth, client: v.clientWidth }));
  expect(widths.scroll).toBeLessThanOrEqual(widths.client);
  for (const name of ['Score', 'Confidence', 'Decided by']) await expectInside(page.getByTestId('answers-table').getByRole('columnheader', { name }), viewport);
  await expect(page.getByTestId('answers-table').locator(`td[title="${LONG_ID}"]`).first()).toBeVisible();

  // The reliability diagram's picker shows the model it is drawn for.
  const picker = page.getByLabel('Reliability diagram for');
  const chosen = await picker.evaluate((s) => (s as HTMLSelectElement).selectedOptions[0]?.textContent ?? '');
  expect(chosen.trim()).not.toBe('');
  await expect(page.getByTestId('reliability-chart')).toContainText(chosen.trim());

  // The run's page: the random-weights caveat, and what the BERTScore options do.
  await page.goto(`${server.url}#/results/run/${runId}`);
  await expect(page.getByTestId('random-weights-caveat')).toContainText('Self-test (random weights): its weights are random numbers');
  const help = page.getByTestId('bertscore-help');
  await expect(help).toContainText('IDF weights each word by how rare it is');
  await expect(help).toContainText('Baseline rescales each score as (raw − b) / (1 − b)');
  await expect(help).toContainText('Which matches the paper? Neural-MedBench does not publish its encoder, IDF or rescaling');
  await page.goto(`${server.url}#/results/b/${benchmarkId}`);

  // A review after the score: the page offers the re-score right there, and says when it is done.
  await putRows(page, { reviews: [{ id: 'seeded-review', responseId: 'x', runId, reviewerId: 'dr-late', verdict: 'incorrect', errorClasses: [], rationaleRating: null, reason: 'late', createdAt: Date.now() + 1000, previous: [] }] });
  await page.reload();
  const stale = page.getByTestId('stale-reviews');
  await expect(stale).toContainText('1 new review');
  await stale.getByRole('button', { name: 'Re-score Seeded run' }).click();
  await expect(page.getByTestId('rescored')).toHaveText('Re-scored with the new reviews: Seeded run: version 2. The figures below include them.', { timeout: 60_000 });
  await expect(stale).toHaveCount(0);
});

test('the drill-down walks the run case by case and says in words who scored and how each answer ended', async ({ page, server }) => {
  test.setTimeout(120_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  const { runId, caseIds } = await seedScoredRun(page, server.url);
  const ordered = [...caseIds].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  await page.goto(`${server.url}#/results/case/${runId}/${ordered[0]}`);
  const nav = page.getByTestId('case-nav');
  await expect(nav).toContainText(`case 1 of ${ordered.length}`);
  await expect(nav).toContainText('first case');
  await nav.getByTestId('next-case').click();
  await expect(page.getByTestId('drilldown').locator('h2')).toHaveText(`Case ${ordered[1]}`);
  await expect(nav).toContainText(`case 2 of ${ordered.length}`);
  await nav.getByTestId('previous-case').click();
  await expect(page.getByTestId('drilldown').locator('h2')).toHaveText(`Case ${ordered[0]}`);

  // Who decided, in words; the answer's length and time, explained.
  const card = page.getByTestId('answer-card').first();
  await expect(card.getByTestId('item-scores')).not.toContainText('rule:');
  await expect(card.getByTestId('item-scores')).toContainText(/exact-match rule|no rule matched/);
  await expect(card.getByTestId('answer-length')).toHaveText(/^20 tokens, the model finished on its own · answered in 100 ms$/);
});
