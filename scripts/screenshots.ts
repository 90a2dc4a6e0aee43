/**
 * Takes the README and docs screenshots from the real built app in headless
 * Chromium: `npm run screenshots` (builds first). Output: docs/screenshots/.
 */
import { chromium, type Page } from '@playwright/test';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, findChromium } from './chromium.ts';
import { startServer } from './serve.mjs';
import { smolVlmFolder } from '../test/support/catalogue-folder.ts';
import { writeCriteria } from '../test/support/criteria-form.ts';
import { demoTrainedRunForm, heldOutZip, importBundle } from '../test/support/demo-trained-run.ts';
import { removeTempDirs } from '../test/support/temp-dir.ts';
import { PRINT_MARGIN_MM } from '../src/core/results/report-html.ts';

const root = new URL('..', import.meta.url).pathname;
// `npm run screenshots -- --only committee` takes the committee's pictures alone (they need runs of their own).
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
if (only !== undefined && only !== 'committee') throw new Error(`--only takes "committee", not "${only}"`);
const out = `${root}docs/screenshots`;
mkdirSync(out, { recursive: true });

const server = await startServer({ root: `${root}dist` });
const executablePath = (await findChromium()) ?? undefined;
const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 820 }, deviceScaleFactor: 1 });
  await page.goto(server.url);
  await page.waitForSelector('html[data-ready="true"]');
  // Wait for the checks that fill in later: the worker compute test and the offline cache.
  await page.locator('[data-check="worker-gpu"]:not([data-verdict="info"])').waitFor();
  await page.locator('[data-check="offline"][data-verdict="ok"]').waitFor({ timeout: 30_000 });
  if (only !== 'committee') {
    await page.screenshot({ path: `${out}/home.png` });
    console.log('wrote docs/screenshots/home.png');
    await tour(page);
  }
  await committee(page);
} finally {
  await browser.close();
  await server.close();
  removeTempDirs();
}

/** From a run's page: its scores page, scored with the bundled judge and encoder (random weights). */
async function scoreWithBundledJudge(page: Page, timeout: number): Promise<void> {
  await page.getByTestId('run-scores-link').click();
  await page.getByTestId('score-judge').selectOption('self-test-text');
  await page.getByTestId('score-encoder').selectOption('self-test-embed');
  await page.getByTestId('score-run').click();
  await page.getByTestId('score-summary').waitFor({ timeout });
}

/** The tour of the app: library, runs, results, review, harness files, models. */
async function tour(page: Page): Promise<void> {
    // The demo benchmark is loaded on first start: the library, the case browser and one case.
    await page.goto(`${server.url}#/benchmarks`);
    await page.getByTestId('benchmark-list').getByText('NeuroEval demo (synthetic)').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: `${out}/benchmarks.png` });
    await page.getByTestId('benchmark-list').getByRole('link', { name: /NeuroEval demo/ }).click();
    await page.getByTestId('case-count').waitFor();
    await page.locator('select[data-facet="split"]').selectOption('direct');
    await page.waitForTimeout(500);
    await page.screenshot({ path: `${out}/case-browser.png` });
    await page.locator('a[data-case="direct-stroke-01"]').click();
    await page.getByTestId('case-view').waitFor();
    await page.getByTestId('reveal-answer').click();
    await page.waitForTimeout(500);
    await page.screenshot({ path: `${out}/case-view.png`, fullPage: true });
    console.log('wrote docs/screenshots/benchmarks.png, case-browser.png, case-view.png');
    // Runs: the new-run form, then a run in progress.
    await page.goto(`${server.url}#/runs`);
    await page.getByTestId('run-plan').getByText('requests').waitFor({ timeout: 30_000 });
    await page.locator('select[name="device"]').selectOption('wasm');
    await page.locator('input[name="variant"][value="text-only"]').check();
    await page.getByTestId('prompt-preview').locator('summary').click();
    await page.screenshot({ path: `${out}/new-run.png`, fullPage: true });
    await page.getByRole('button', { name: 'Start the run' }).click();
    await page.getByTestId('latest-answers').waitFor({ timeout: 180_000 });
    await page.waitForTimeout(1500);
    await page.screenshot({ path: `${out}/run-in-progress.png` });
    await page.getByRole('button', { name: 'Pause' }).click();
    console.log('wrote docs/screenshots/new-run.png, run-in-progress.png');

    // Results: the paused run's answers scored with the bundled judge and encoder (random weights).
    await page.getByTestId('run-status').filter({ hasText: 'paused' }).waitFor({ timeout: 60_000 });
    await scoreWithBundledJudge(page, 120_000);
    await page.screenshot({ path: `${out}/scores.png`, fullPage: true });
    console.log('wrote docs/screenshots/scores.png');

    // Results: a finished run of the self-test model and the demo-trained model on the classification and
    // differential cases, with the image, without it, and with contrast reduced at three severities; scored with the
    // bundled judge and encoder. Then the leaderboard, the two-axis and degradation charts, a drill-down and review:
    // every figure is of these two models' real answers.
    await page.goto(`${server.url}#/runs`);
    await page.getByTestId('run-plan').getByText('requests').waitFor({ timeout: 30_000 });
    await page.locator('select[name="device"]').selectOption('wasm');
    await page.locator('input[name="name"]').fill('Self-test and demo-trained: classification and differentials');
    await page.locator('input[name="model"][value="demo-trained"]').check();
    for (const family of ['classification', 'differential-diagnosis']) await page.locator('[data-facet="taskFamily"] label', { hasText: family }).locator('input').check();
    for (const v of ['text-only', 'degrade:contrast:1', 'degrade:contrast:2', 'degrade:contrast:3']) await page.locator(`input[name="variant"][value="${v}"]`).check();
    await page.locator('input[name="max-tokens"]').fill('64');
    await page.getByRole('button', { name: 'Start the run' }).click();
    await page.getByTestId('run-status').filter({ hasText: 'done' }).waitFor({ timeout: 900_000 });
    await scoreWithBundledJudge(page, 600_000);
    await page.getByRole('link', { name: '← Benchmark results' }).click();
    await page.getByTestId('leaderboard').waitFor();
    await page.waitForTimeout(800);
    await page.screenshot({ path: `${out}/leaderboard.png` });
    await page.getByTestId('two-axis').screenshot({ path: `${out}/two-axis.png` });
    await page.getByTestId('degradation-chart').first().scrollIntoViewIfNeeded();
    await page.getByTestId('degradation-chart').first().screenshot({ path: `${out}/degradation.png` });
    await page.getByTestId('breakdown-dimension').selectOption('diseaseGroup');
    await page.getByTestId('breakdown-chart').filter({ hasText: 'by disease group' }).waitFor();
    await page.getByTestId('breakdown-chart').screenshot({ path: `${out}/breakdown.png` });
    // The HTML report as it prints on A4 portrait (the width between the report's print margins), first page.
    const [reportDownload] = await Promise.all([page.waitForEvent('download', { timeout: 120_000 }), page.getByTestId('export-html').click({ timeout: 120_000 })]);
    const report = await browser.newPage({ viewport: { width: 1280, height: 820 } });
    await report.setContent(readFileSync(await reportDownload.path(), 'utf8'));
    await report.emulateMedia({ media: 'print' });
    await report.setViewportSize({ width: Math.floor(((210 - 2 * PRINT_MARGIN_MM) * 96) / 25.4), height: 1123 });
    await report.screenshot({ path: `${out}/report-a4.png` });
    await report.close();
    console.log('wrote docs/screenshots/report-a4.png');
    await page.getByTestId('answers-table').locator('tbody a').first().click();
    await page.getByTestId('drilldown').waitFor();
    await page.getByTestId('show-prompt').check();
    await page.waitForTimeout(500);
    await page.screenshot({ path: `${out}/drilldown.png`, fullPage: true });
    await page.goto(`${server.url}#/review`);
    await page.getByTestId('reviewer-name').fill('dr-demo');
    await page.getByTestId('reviewer-name').press('Tab');
    await page.getByRole('link', { name: 'Start reviewing →' }).last().click();
    await page.getByTestId('review-form').waitFor();
    await page.getByRole('button', { name: 'Keyboard (?)' }).click();
    await page.waitForTimeout(500);
    await page.screenshot({ path: `${out}/review.png`, fullPage: true });
    console.log('wrote docs/screenshots/leaderboard.png, two-axis.png, degradation.png, breakdown.png, drilldown.png, review.png');

    // A blind reader study: a neutral case label, the case's own images, a question for a person.
    await page.goto(`${server.url}#/readers`);
    const start = page.getByTestId('reader-start');
    await start.locator('input[name="pseudonym"]').fill('R1');
    await start.locator('input[name="role"]').fill('neuroradiologist');
    await start.getByRole('button', { name: 'Start reading' }).click();
    await page.getByTestId('reader-form').waitFor();
    await page.waitForTimeout(800);
    await page.screenshot({ path: `${out}/reader-study.png`, fullPage: true });
    console.log('wrote docs/screenshots/reader-study.png');

    // A NeuroVLM-Bench harness results file opened from Results → import: the benchmark's own figures, then NeuroEval's.
    await page.goto(`${server.url}#/results`);
    await page.getByTestId('import-run-file').setInputFiles(`${root}test/fixtures/neurovlm-parity/results-mixed.jsonl`);
    await page.getByTestId('neurovlm-bench').waitFor();
    await page.getByTestId('neurovlm-bench').locator('details').first().evaluate((d) => ((d as HTMLDetailsElement).open = true));
    await page.getByRole('heading', { name: /Import a run, or open/ }).evaluate((e) => e.scrollIntoView({ block: 'start' }));
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${out}/harness-file.png` });
    console.log('wrote docs/screenshots/harness-file.png');

    // Models: the self-test run, then a download in progress from a (throttled) on-prem mirror.
    await page.goto(`${server.url}#/models`);
    await page.getByTestId('try-model').waitFor();
    await page.getByTestId('try-device').selectOption('wasm');
    await page.getByTestId('try-run').click();
    await page.getByTestId('try-usage').waitFor({ timeout: 60_000 });
    await page.screenshot({ path: `${out}/models.png`, fullPage: true });

    const mirrorRoot = mkdtempSync(join(tmpdir(), 'neuroeval-shot-mirror-'));
    const modelDir = join(mirrorRoot, 'HuggingFaceTB', 'SmolVLM-256M-Instruct');
    cpSync(`${root}public/models/self-test`, modelDir, { recursive: true });
    // A large stand-in weights file so the transfer lasts long enough to be seen.
    const big = Buffer.alloc(24 * 1024 * 1024, 7);
    mkdirSync(join(modelDir, 'onnx'), { recursive: true });
    writeFileSync(join(modelDir, 'onnx', 'decoder_model_merged.onnx_data'), big);
    const manifest = JSON.parse(readFileSync(join(modelDir, 'manifest.json'), 'utf8')) as { files: { path: string; bytes: number; sha256: string }[] };
    manifest.files.push({ path: 'onnx/decoder_model_merged.onnx_data', bytes: big.length, sha256: createHash('sha256').update(big).digest('hex') });
    writeFileSync(join(modelDir, 'manifest.json'), JSON.stringify(manifest));
    const mirror = await startServer({ root: mirrorRoot, base: '/hf/', cors: true });
    try {
      await page.goto(`${server.url}#/settings`);
      page.once('dialog', (d) => void d.accept());
      await page.getByTestId('allowed-origins').locator('input[name="origin"]').fill(new URL(mirror.url).origin);
      await page.getByTestId('allowed-origins').getByRole('button', { name: 'Allow…' }).click();
      await page.getByRole('button', { name: 'Reload to apply' }).click();
      await page.waitForSelector('html[data-ready="true"]');
      await page.goto(`${server.url}#/models`);
      await page.waitForSelector('html[data-ready="true"]');
      await page.locator('input[name="mirror"]').fill(mirror.url);
      await page.getByRole('button', { name: 'Save' }).click();
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: 4 * 1024 * 1024, uploadThroughput: 1024 * 1024 });
      await page.getByTestId('catalogue').locator('tr[data-model="smolvlm-256m"]').getByRole('button', { name: 'Download' }).click();
      const transfer = page.getByTestId('catalogue').locator('tr[data-detail-for="smolvlm-256m"]').getByTestId('transfer');
      await transfer.waitFor();
      await page.waitForTimeout(2500);
      await transfer.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${out}/model-download.png` });
      await transfer.getByRole('button', { name: 'Cancel' }).click();
      // The public-host opt-in of the medical VLM.
      const med = page.getByTestId('catalogue').locator('tr[data-model="medgemma-4b-q4"]');
      await med.getByTestId('host-download').click();
      await page.getByTestId('host-optin').evaluate((e) => e.scrollIntoView({ block: 'center' }));
      await page.screenshot({ path: `${out}/model-host-optin.png` });
      console.log('wrote docs/screenshots/models.png, model-download.png, model-host-optin.png');
    } finally {
      await mirror.close();
      rmSync(mirrorRoot, { recursive: true, force: true });
    }

    // Folder import (air-gapped): a folder laid out as SmolVLM-256M's repository (stand-in weights), imported as that catalogue model.
    const usb = mkdtempSync(join(tmpdir(), 'neuroeval-shot-usb-'));
    try {
      const folder = smolVlmFolder(join(usb, 'SmolVLM-256M-Instruct'));
      await page.goto(`${server.url}#/models`);
      await page.locator('select[name="importAs"]').selectOption('smolvlm-256m');
      await page.getByTestId('import-model-folder').setInputFiles(folder);
      await page.getByTestId('model-message').filter({ hasText: 'Imported' }).waitFor({ timeout: 60_000 });
      await page.getByRole('heading', { name: 'On this device' }).evaluate((e) => e.scrollIntoView({ block: 'start' }));
      await page.waitForTimeout(300);
      await page.screenshot({ path: `${out}/model-import.png` });
      console.log('wrote docs/screenshots/model-import.png');
    } finally {
      rmSync(usb, { recursive: true, force: true });
    }
}

/**
 * For the committee: the demo-trained model on 20 held-out drawn cases, with
 * the image and without it, under two pre-registered criteria; then the
 * go/no-go table, the safety view and the failure gallery of those answers.
 */
async function committee(page: Page): Promise<void> {
  await page.goto(`${server.url}#/benchmarks`);
  await page.getByTestId('benchmark-list').getByText('NeuroEval demo (synthetic)').waitFor({ timeout: 30_000 });
  await importBundle(page, heldOutZip(20), 20);
  const form = await demoTrainedRunForm(page, server.url, 'wasm');
  await form.locator('input[name="name"]').fill('Demo-trained on 20 held-out cases: pilot criteria');
  await form.locator('input[name="variant"][value="text-only"]').check();
  await writeCriteria(form, [{ metric: 'json_valid', statistic: 'mean', threshold: 98, subgroup: 'all' }, { threshold: 70 }]);
  await form.getByRole('button', { name: 'Start the run' }).click();
  await page.getByTestId('run-status').filter({ hasText: 'done' }).waitFor({ timeout: 900_000 });
  await page.getByTestId('run-scores-link').click();
  await page.getByTestId('score-run').click();
  await page.getByTestId('score-summary').waitFor({ timeout: 120_000 });
  const panel = page.getByTestId('criteria-panel');
  await panel.getByTestId('criteria-table').waitFor();
  await panel.scrollIntoViewIfNeeded();
  await panel.screenshot({ path: `${out}/criteria.png` });
  await page.getByRole('link', { name: '← Benchmark results' }).click();
  const safety = page.getByTestId('safety');
  await safety.scrollIntoViewIfNeeded();
  await safety.getByTestId('safety-arms').waitFor({ timeout: 120_000 });
  await page.waitForTimeout(500);
  await safety.screenshot({ path: `${out}/safety.png` });
  const gallery = page.getByTestId('failures');
  await gallery.scrollIntoViewIfNeeded();
  await gallery.getByTestId('failure-card').first().waitFor({ timeout: 60_000 });
  // The normal controls: where the model that sees the images makes its confident mistakes (false findings).
  await gallery.getByTestId('failure-group').selectOption('normal');
  await page.waitForTimeout(500);
  await gallery.screenshot({ path: `${out}/failure-gallery.png` });
  console.log('wrote docs/screenshots/criteria.png, safety.png, failure-gallery.png');
}
