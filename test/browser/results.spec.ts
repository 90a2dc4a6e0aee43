/**
 * The results flow a user walks: run part of the demo benchmark with the
 * self-test model, score it, open the results (leaderboard, two-axis chart,
 * breakdowns), drill into a case, review five answers by keyboard with one
 * override, export the HTML report and open it with the network blocked,
 * and export the run and import it on a fresh profile.
 */
import { readFileSync } from 'node:fs';
import { readStore } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';

test('run, score, results, drill-down, review with an override, offline HTML report, export and re-import', async ({ page, server, sharedBrowser }) => {
  test.setTimeout(300_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });

  // 1. A run of the classification and differential-diagnosis cases.
  await page.goto(`${server.url}#/runs`);
  const form = page.getByTestId('new-run');
  await expect(form.getByTestId('run-plan')).toContainText('requests');
  await form.locator('select[name="device"]').selectOption('wasm');
  await form.locator('[data-facet="taskFamily"] label', { hasText: 'classification' }).locator('input').check();
  await form.locator('[data-facet="taskFamily"] label', { hasText: 'differential-diagnosis' }).locator('input').check();
  // Each protocol's answer budget is shown; the run takes the largest its cases need.
  await expect(form.getByTestId('budget-basis')).toContainText('NeuroVLM-Bench structured JSON 192');
  await expect(form.locator('input[name="max-tokens"]')).toHaveValue('480');
  // A budget far too small for real answers: the random-weight model is cut off.
  await form.locator('input[name="max-tokens"]').fill('16');
  await expect(form.getByTestId('budget-basis')).toContainText('Your budget: 16 tokens');
  await form.getByRole('button', { name: 'Start the run' }).click();
  await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 180_000 });
  const planned = Number((await page.getByTestId('run-count').textContent())?.split(' ')[0]);
  expect(planned).toBeGreaterThan(10);

  // The next run's estimate uses the speed measured on this device, and says when there is none.
  const runUrl = page.url();
  await page.goto(`${server.url}#/runs`);
  const next = page.getByTestId('new-run');
  await next.locator('select[name="device"]').selectOption('wasm');
  await expect(next.getByTestId('estimate-basis')).toContainText(/from \d+ answers of Self-test \(random weights\) on WASM/);
  await expect(next.getByTestId('run-plan')).toContainText(/Estimated time: about/);
  await next.locator('select[name="device"]').selectOption('webgpu');
  await expect(next.getByTestId('estimate-basis')).toContainText('no measured speed yet for Self-test (random weights) on WebGPU: the estimate will appear after the first answers');
  await page.goto(runUrl);

  // 2. Score it (rules only) from the run page.
  await page.getByTestId('run-scores-link').click();
  await page.getByTestId('score-run').click();
  await expect(page.getByTestId('score-summary')).toHaveAttribute('data-version', '1', { timeout: 60_000 });
  // Answers that reached the budget are counted per model, with a warning past 5 %.
  const stored = await readStore<{ caseId: string; finishReason: string }>(page, 'responses');
  const truncated = stored.filter((r) => r.finishReason === 'length').length;
  expect(truncated).toBeGreaterThan(planned * 0.05);
  await expect(page.getByTestId('truncated-count')).toHaveText(` · ${truncated} truncated by the answer budget`);
  await expect(page.getByTestId('truncation-warning')).toContainText(`${truncated} of ${planned} answers`);
  // The NeuroVLM-Bench answers also get the benchmark's own figures, named as its evaluator's.
  const nvb = page.getByTestId('neurovlm-bench');
  await expect(nvb.getByTestId('neurovlm-bench-exact')).toHaveText('equal to its evaluator');
  await expect(nvb.locator('tr[data-model="self-test"] td[data-figure="json_valid_pct"]')).toHaveText(/^\d+\.\d%$/);

  // 3. The benchmark's results: leaderboard, two-axis chart, breakdowns, answers.
  await page.getByRole('link', { name: '← Benchmark results' }).click();
  const board = page.getByTestId('leaderboard');
  await expect(board.locator('tbody tr')).toHaveCount(1);
  await expect(board.locator('tbody tr').first()).toContainText('self-test');
  await expect(board.locator('td[data-metric="neurovlm.diagnosis_name"]')).toContainText('%');
  await expect(page.getByTestId('neurovlm-bench').locator('tr[data-model="Self-test (random weights)"]')).toBeVisible();
  await expect(page.getByTestId('two-axis').locator('svg circle')).toHaveCount(1);
  await expect(page.getByTestId('breakdown-chart').locator('svg')).toBeVisible();
  await page.getByTestId('breakdown-dimension').selectOption('diseaseGroup');
  await expect(page.getByTestId('breakdown-chart')).toContainText('by disease group');
  await expect(page.getByTestId('answers-total')).toHaveText(`${planned} answers`);
  await page.getByTestId('answers-search').fill('stroke');
  await expect(page.getByTestId('answers-total')).not.toHaveText(`${planned} answers`);

  // 4. Drill into a case from the answers table.
  const firstCase = page.getByTestId('answers-table').locator('tbody a').first();
  const caseId = (await firstCase.textContent())!.trim();
  await firstCase.click();
  const drill = page.getByTestId('drilldown');
  await expect(drill).toContainText(`Case ${caseId}`);
  await expect(drill.locator('img').first()).toBeVisible();
  await page.getByTestId('show-prompt').check();
  await expect(page.getByTestId('sent-prompt').first()).toContainText('user');
  const card = page.getByTestId('answer-card').first();
  await expect(card).toHaveAttribute('data-model-label', 'self-test');
  await expect(card.getByTestId('item-scores')).toBeVisible();
  // This case's answers are marked truncated exactly when they hit the budget.
  const cutHere = stored.filter((r) => r.caseId === caseId && r.finishReason === 'length').length;
  await expect(page.getByTestId('answer-truncated')).toHaveCount(cutHere);

  // 5. Review five answers by keyboard: four agreeing with the machine, one overriding it with a reason.
  // The machine's verdict shows only once the reviewer has given theirs.
  await page.goto(`${server.url}#/review`);
  await page.getByTestId('reviewer-name').fill('dr-test');
  await page.getByTestId('reviewer-name').press('Tab');
  await page.getByRole('link', { name: 'Start reviewing →' }).click();
  const session = page.getByTestId('review-session');
  await expect(session).toBeVisible();
  await expect(page.getByTestId('answer-card')).toHaveAttribute('data-model-label', 'Model A'); // identity hidden by default
  await expect(page.getByTestId('review-position')).toHaveText(`1 of ${planned}`);
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  const machineSays = async () => {
    await expect(page.getByTestId('machine-verdict')).toHaveText(/^Machine: /);
    return (await page.getByTestId('machine-verdict').locator('strong').textContent())!.trim();
  };
  for (let i = 0; i < 4; i++) {
    await page.keyboard.press('c');
    if ((await machineSays()) === 'incorrect') await page.keyboard.press('i');
    await page.keyboard.press('s');
    await expect(page.getByTestId('review-position')).toHaveText(`${i + 2} of ${planned}`);
  }
  await page.keyboard.press('c');
  const machineSaid = await machineSays();
  await page.keyboard.press(machineSaid === 'correct' ? 'i' : 'c');
  await expect(page.getByTestId('override-flag')).toBeVisible();
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('review-problem')).toContainText('needs a reason');
  await page.getByTestId('review-reason').fill('The image shows a clear lesion the model missed.');
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('review-position')).toHaveText(`6 of ${planned}`);
  const reviews = await readStore<{ reviewerId: string; verdict: string; reason: string }>(page, 'reviews');
  expect(reviews).toHaveLength(5);
  const override = reviews.filter((r) => r.reason);
  expect(override).toHaveLength(1);
  expect(override[0]!.verdict).toBe(machineSaid === 'correct' ? 'incorrect' : 'correct');
  await page.keyboard.press('k');
  await expect(page.getByTestId('audit-trail')).toContainText('dr-test: ');

  // The agreement between the machine and the reviewer shows on the results page at once.
  await page.goto(`${server.url}#/results`);
  await page.getByTestId('results-benchmarks').getByRole('link').first().click();
  await expect(page.getByTestId('agreement')).toContainText('5 reviews of 5 answers by 1 reviewer');
  await expect(page.getByTestId('agreement')).toContainText('1 verdict differs from the machine');

  // 6. The HTML report: downloaded, then opened with every request blocked.
  const [report] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-html').click()]);
  const reportPath = await report.path();
  const html = readFileSync(reportPath, 'utf8');
  expect(html).toContain('Leaderboard');
  expect(html).toContain("NeuroVLM-Bench: the benchmark's own figures");
  const offline = await sharedBrowser.newContext();
  const attempted: string[] = [];
  await offline.route('**/*', (route) => {
    attempted.push(route.request().url());
    return route.abort();
  });
  await offline.setOffline(true);
  const viewer = await offline.newPage();
  await viewer.setContent(html, { waitUntil: 'load' });
  await expect(viewer.locator('h1')).toContainText('NeuroEval report: NeuroEval demo (synthetic)');
  await expect(viewer.locator('svg').first()).toBeVisible();
  expect(await viewer.locator('table').first().locator('tbody tr').count()).toBe(1);
  expect(attempted).toEqual([]);
  await offline.close();

  // 7. Export the run and import it on a fresh profile.
  await page.goto(`${server.url}#/results`);
  await page.getByTestId('results-runs').getByRole('link').first().click();
  const [exported] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-run').click()]);
  const exportPath = await exported.path();
  const fresh = await sharedBrowser.newContext({ viewport: { width: 1280, height: 860 } });
  const other = await fresh.newPage();
  await openApp(other, server.url, '#/benchmarks');
  await expect(other.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await other.goto(`${server.url}#/results`);
  await other.getByTestId('import-run-file').setInputFiles(exportPath);
  await expect(other.getByTestId('import-run-preview')).toContainText(`${planned} answers and 5 reviews`);
  await other.getByTestId('import-run-go').click();
  await expect(other.getByTestId('import-run-done')).toContainText(`${planned} answers added`);
  await expect(other.getByTestId('import-run-done')).toContainText('5 reviews stored');
  expect(await readStore(other, 'responses')).toHaveLength(planned);
  // The reviews came with the run: the same reviewer's verdicts and the override's reason.
  const imported = await readStore<{ reviewerId: string; verdict: string; reason: string }>(other, 'reviews');
  expect(imported.map((r) => [r.reviewerId, r.verdict, r.reason]).sort()).toEqual(reviews.map((r) => [r.reviewerId, r.verdict, r.reason]).sort());
  await fresh.close();
});
