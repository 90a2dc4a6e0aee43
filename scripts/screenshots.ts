/**
 * Takes the README and docs screenshots from the real built app in headless
 * Chromium: `npm run screenshots` (builds first). Output: docs/screenshots/.
 */
import { chromium } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { CHROMIUM_ARGS, findChromium } from './chromium.ts';
import { startServer } from './serve.mjs';

const root = new URL('..', import.meta.url).pathname;
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
  await page.screenshot({ path: `${out}/home.png` });
  console.log('wrote docs/screenshots/home.png');

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
} finally {
  await browser.close();
  await server.close();
}
