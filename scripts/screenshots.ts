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
} finally {
  await browser.close();
  await server.close();
}
