/**
 * Pre-registered acceptance criteria through the app: three criteria written
 * in the new-run form are locked with the run (their hash in its provenance);
 * after scoring, the run's page says GO for the one the demo-trained model
 * meets and NO-GO for the one it fails, each with the figures behind it, and
 * decides the third, on the safety view's false-finding rate, as the stored
 * answers say; so does the HTML report. Changing them afterwards needs a reason and is
 * shown as a deviation from the pre-registered set, in the page and the report.
 */
import { readFileSync } from 'node:fs';
import { dumpDatabase, readStore } from '../support/app-db.ts';
import { writeCriteria } from '../support/criteria-form.ts';
import { demoTrainedRunForm, heldOutZip, importBundle } from '../support/demo-trained-run.ts';
import { expect, openApp, test } from '../support/fixtures.ts';
import { removeTempDirs } from '../support/temp-dir.ts';

test.afterAll(() => removeTempDirs());

test('criteria locked with a run: go and no-go with the evidence, in the page and the report; a later change is a deviation', async ({ page, server }) => {
  test.setTimeout(480_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await importBundle(page, heldOutZip(10), 10);

  const form = await demoTrainedRunForm(page, server.url, 'wasm');

  // Criterion 1: JSON valid at least 90 % on the whole run. Criterion 2: class accuracy's lower bound at least 99 % in every disease group,
  // which two answers per group cannot reach (Wilson's lower bound for 2 of 2 is 34 %). Criterion 3: the safety view's false-finding
  // rate on normal controls at most 50 % on the whole run.
  const rows = await writeCriteria(form, [
    { metric: 'json_valid', statistic: 'mean', threshold: 90, subgroup: 'all' },
    { threshold: 99 },
    { metric: 'safety.false_finding', subgroup: 'all', statistic: 'mean', comparator: '<=', threshold: 50 },
  ]);
  // A safety figure has no modality breakdown: the form offers the whole run and disease groups only.
  await expect(rows.nth(2).locator('select[name="criterion-subgroup"] option')).toHaveText(['Whole run', 'every disease group']);
  await form.getByRole('button', { name: 'Start the run' }).click();
  await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 300_000 });

  const database = await dumpDatabase(page);
  expect(database).toMatch(/"criteria":\{"sha256":"[0-9a-f]{64}","count":3\}/);
  // The false-finding rate the stored answers give: normal controls whose answer names another class.
  type Stored = { caseId: string; parsed: { diagnosis_name?: string } | null; parseError: string | null; error: unknown };
  const normals = new Set((await readStore<{ id: string; diseaseGroup: string }>(page, 'cases')).filter((c) => c.diseaseGroup === 'normal').map((c) => c.id));
  const onNormals = (await readStore<Stored>(page, 'responses')).filter((r) => normals.has(r.caseId) && !r.error && !r.parseError && r.parsed?.diagnosis_name);
  const findings = onNormals.filter((r) => r.parsed!.diagnosis_name!.trim().toLowerCase() !== 'normal').length;
  expect(onNormals.length).toBeGreaterThan(0);
  const ffPercent = `${(Math.round((findings / onNormals.length) * 1000) / 10).toLocaleString('en')} %`;

  await page.getByTestId('run-scores-link').click();
  const panel = page.getByTestId('criteria-panel');
  await expect(panel).toContainText('Score the run to decide them.');
  await page.getByTestId('score-run').click();
  await expect(page.getByTestId('score-summary')).toHaveAttribute('data-version', '1', { timeout: 60_000 });
  await expect(panel.getByTestId('criteria-lock')).toContainText('Pre-registered with the run and unchanged');
  const table = panel.getByTestId('criteria-table');
  const go = table.locator('tr', { hasText: 'JSON valid: value ≥ 90 % on the whole run' });
  const noGo = table.locator('tr', { hasText: 'Class (diagnosis_name): 95 % lower bound ≥ 99 % in every disease group' });
  await expect(go).toHaveAttribute('data-status', 'go');
  await expect(go).toContainText(/Met: 100 % \(100 %, 95 % CI [\d.]+ %–100 %, n=10\)/);
  await expect(noGo).toHaveAttribute('data-status', 'no-go');
  await expect(noGo).toContainText(/Not met in 5 of 5 groups/);
  const ff = table.locator('tr', { hasText: 'False-finding rate (normal controls): value ≤ 50 % on the whole run' });
  await expect(ff).toHaveAttribute('data-status', findings / onNormals.length <= 0.5 ? 'go' : 'no-go');
  await expect(ff).toContainText(`${findings / onNormals.length <= 0.5 ? 'Met' : 'Not met'}: ${ffPercent} (${ffPercent}, 95 % CI`);
  await expect(ff).toContainText(`n=${onNormals.length})`);

  // The report says the same.
  await page.getByRole('link', { name: '← Benchmark results' }).click();
  const [report] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-html').click()]);
  const html = readFileSync(await report.path(), 'utf8');
  expect(html).toContain('<h2>Acceptance criteria</h2>');
  expect(html).toContain('Pre-registered with the run and unchanged');
  expect(html).toMatch(/JSON valid: value ≥ 90 % on the whole run<\/td><td>[^<]+<\/td><td><strong>GO<\/strong>/);
  expect(html).toMatch(/in every disease group<\/td><td>[^<]+<\/td><td><strong>NO-GO<\/strong>/);
  expect(html).toContain(`False-finding rate (normal controls): value ≤ 50 % on the whole run</td>`);
  expect(html).toContain(`${findings / onNormals.length <= 0.5 ? 'Met' : 'Not met'}: ${ffPercent} (${ffPercent}, 95 % CI`);

  // A change afterwards needs a reason and is kept as a deviation.
  await page.goBack();
  await panel.getByTestId('criteria-edit-button').click();
  const edit = panel.getByTestId('criteria-edit');
  await edit.getByTestId('criterion-row').nth(1).locator('input[name="criterion-threshold"]').fill('20');
  await edit.getByRole('button', { name: 'Save as a deviation' }).click();
  await expect(edit.getByRole('alert')).toContainText('Say why the criteria change');
  await edit.locator('textarea[name="criteria-reason"]').fill('Two answers per group cannot carry a 99 % bound.');
  await edit.getByRole('button', { name: 'Save as a deviation' }).click();
  await expect(panel.getByTestId('criteria-lock')).toContainText('Changed after the run was created');
  await expect(panel.getByTestId('criteria-deviations')).toContainText('1 change after the run was created');
  await panel.getByTestId('criteria-deviations').locator('summary').click();
  await expect(panel.getByTestId('criteria-deviations')).toContainText('Two answers per group cannot carry a 99 % bound.');
  await expect(panel.getByTestId('criteria-deviations')).toContainText('Replaced: JSON valid: value ≥ 90 % on the whole run; Class (diagnosis_name): 95 % lower bound ≥ 99 % in every disease group');
});
