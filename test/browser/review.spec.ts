/**
 * Review mode judges blind: the machine's verdict and the scores behind it
 * stay hidden until the reviewer has given a verdict, and a saved verdict
 * belongs to its own answer (the next answer starts unreviewed).
 */
import { expect, openApp, test } from '../support/fixtures.ts';
import { seedScoredRun } from '../support/scored-run.ts';
import { shownImageHashes, storedCaseImageHashes } from '../support/shown-images.ts';

test('the machine verdict is hidden until the reviewer answers, and saving moves on to an unreviewed answer', async ({ page, server }) => {
  test.setTimeout(120_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  const { runId, answers } = await seedScoredRun(page, server.url, { reviewer: 'dr-blind' });
  await page.goto(`${server.url}#/review/${runId}`);
  const form = page.getByTestId('review-form');
  await expect(page.getByTestId('review-position')).toHaveText(`1 of ${answers}`);

  // Before any verdict: neither the machine's verdict nor the scores show.
  const machine = page.getByTestId('machine-verdict');
  await expect(machine).toHaveText('Machine verdict and scores: hidden until you give yours.');
  await expect(page.getByTestId('item-scores')).toHaveCount(0);
  await expect(page.getByTestId('verdicts')).toHaveCount(0);
  await expect(page.getByTestId('scores-hidden')).toBeVisible();
  // Saving without a verdict asks for one instead of taking the machine's.
  await page.getByTestId('review-save').click();
  await expect(page.getByTestId('review-problem')).toContainText('Give your verdict first');
  await expect(page.getByTestId('review-position')).toHaveText(`1 of ${answers}`);

  // The reviewer's verdict reveals the machine's.
  const caseTitle = (await page.locator('section[aria-label="Case"] h3').textContent())!;
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('i');
  await expect(machine).toHaveText(/^Machine: (correct|incorrect) \(decided by (a rule|the local judge)\)/);
  await expect(page.getByTestId('item-scores')).toBeVisible();
  if (await page.getByTestId('override-flag').isVisible()) await page.getByTestId('review-reason').fill('The answer names a different disease.');
  await expect(page.getByTestId('review-unsaved')).toBeVisible();
  await page.getByTestId('review-save').click();

  // The next answer: nothing saved for it, the machine hidden again, no verdict chosen.
  await expect(page.getByTestId('review-position')).toHaveText(`2 of ${answers}`);
  await expect(page.getByTestId('review-message')).toHaveCount(0);
  await expect(page.getByTestId('review-unsaved')).toHaveText('Not reviewed by you yet.');
  await expect(form).not.toContainText('Saved');
  await expect(machine).toHaveText('Machine verdict and scores: hidden until you give yours.');
  await expect(form.getByLabel('Correct (c)')).not.toBeChecked();
  await expect(form.getByLabel('Incorrect (i)')).not.toBeChecked();
  // What was stored is said of the answer it was stored for.
  const savedCase = caseTitle.match(/^Case (\S+)/)![1]!;
  await expect(page.getByTestId('review-previous')).toContainText(`Stored your verdict on case ${savedCase}`);
  await expect(page.getByTestId('review-previous')).toContainText(': incorrect');

  // Back on the first answer, its saved verdict shows, and so does the machine's.
  await page.getByRole('button', { name: '← Previous' }).click();
  await expect(page.getByTestId('review-position')).toHaveText(`1 of ${answers}`);
  await expect(page.getByTestId('review-message')).toContainText('Saved: incorrect');
  await expect(machine).toHaveText(/^Machine: /);
  await expect(form.getByLabel('Incorrect (i)')).toBeChecked();
});

test('every review item shows its own case: the images on screen are the stored images of the case named above them, step by step', async ({ page, server }) => {
  test.setTimeout(180_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  // One model: every step of the queue is another case, so a stale image cannot hide behind a second model's answer to the same case.
  const { runId, benchmarkId, answers } = await seedScoredRun(page, server.url, { reviewer: 'dr-images', models: ['model-x'] });
  await page.goto(`${server.url}#/review/${runId}`);
  const caseSection = page.locator('section[aria-label="Case"]');
  const heading = caseSection.locator('h3');
  const seen = new Set<string>();

  /** The case named on screen, once its images are drawn, and what they are. */
  async function check(position: number): Promise<void> {
    await expect(page.getByTestId('review-position')).toHaveText(`${position} of ${answers}`);
    const caseId = (await heading.textContent())!.match(/^Case (\S+)/)![1]!;
    const stored = await storedCaseImageHashes(page, benchmarkId, caseId);
    expect(stored.length, `case ${caseId} has images`).toBeGreaterThan(0);
    await expect(caseSection.locator('img')).toHaveCount(stored.length);
    await expect.poll(() => shownImageHashes(caseSection), { message: `the images shown under case ${caseId}` }).toEqual(stored);
    seen.add(caseId);
  }

  await check(1);
  const body = page.locator('body');
  // j: next.
  await body.click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('j');
  await check(2);
  // c then s: a verdict saved with the keyboard moves on.
  await page.keyboard.press('c');
  if (await page.getByTestId('override-flag').isVisible()) await page.getByTestId('review-reason').fill('Same disease, other words.');
  await body.click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('s');
  await check(3);
  // The "Next →" button.
  await page.getByRole('button', { name: 'Next →' }).click();
  await check(4);
  // "Save and next" with a verdict given by its radio button.
  await page.getByTestId('review-form').getByLabel('Incorrect (i)').check();
  if (await page.getByTestId('override-flag').isVisible()) await page.getByTestId('review-reason').fill('The answer names a different disease.');
  await page.getByTestId('review-save').click();
  await check(5);
  expect(seen.size, 'five steps, five cases').toBe(5);
});
