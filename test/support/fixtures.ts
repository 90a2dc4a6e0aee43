/**
 * Playwright fixtures for browser tests: system Chromium with WebGPU flags,
 * a static server per test serving the production build, a log of every
 * request the page, its workers and its service worker make, and the removal
 * of every temporary folder a test made with test/support/temp-dir.ts.
 */
import { test as base, chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { existsSync } from 'node:fs';
import { CHROMIUM_ARGS } from '../../scripts/chromium.ts';
import { removeTempDirs } from './temp-dir.ts';
import { startServer, type StaticServer } from '../../scripts/serve.mjs';

/** The build the specs serve: `dist/`, or another build folder (NEUROEVAL_DIST) so two checkouts' builds can be tested side by side. */
export const DIST = process.env.NEUROEVAL_DIST ?? new URL('../../dist/', import.meta.url).pathname;

export function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p): p is string => !!p && existsSync(p));
}

export interface Fixtures {
  server: StaticServer;
  context: BrowserContext;
  page: Page;
  /** Every URL requested in this test's context, in order. */
  requests: string[];
  /** Deletes the test's temporary folders (makeTempDir) when it ends; automatic. */
  tempDirs: void;
}

export const test = base.extend<Fixtures, { sharedBrowser: Browser }>({
  sharedBrowser: [
    async ({}, use) => {
      const executablePath = chromiumPath();
      const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS, headless: true });
      await use(browser);
      await browser.close();
    },
    { scope: 'worker' },
  ],
  server: async ({}, use) => {
    const server = await startServer({ root: DIST });
    await use(server);
    await server.close();
  },
  requests: async ({}, use) => {
    await use([]);
  },
  tempDirs: [
    async ({}, use) => {
      await use();
      removeTempDirs();
    },
    { auto: true },
  ],
  context: async ({ sharedBrowser, requests }, use) => {
    const context = await sharedBrowser.newContext({ viewport: { width: 1280, height: 860 } });
    context.on('request', (r) => requests.push(r.url()));
    await use(context);
    await context.close();
  },
  page: async ({ context }, use) => {
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error('[pageerror]', e.message));
    await use(page);
  },
});

export const expect = test.expect;

/**
 * Refuses every request not for `origin` and records it, so an attempt fails
 * a test even where the request would have failed anyway. Returns the list.
 */
export async function blockOtherOrigins(context: BrowserContext, origin: string): Promise<string[]> {
  const blocked: string[] = [];
  await context.route(
    (url) => url.origin !== origin,
    async (route) => {
      blocked.push(route.request().url());
      await route.abort();
    },
  );
  return blocked;
}

/** Requests that went (or tried to go) beyond `origin`; data: and blob: URLs never leave the page. */
export function foreignRequests(requests: readonly string[], origin: string): string[] {
  return requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:') && !u.startsWith('blob:'));
}

/** Opens the app and waits for the shell to be interactive. */
export async function openApp(page: Page, url: string, hash = ''): Promise<void> {
  await page.goto(url + hash);
  await page.waitForSelector('html[data-ready="true"]');
}

/** Waits until the service worker controls the page and has cached the whole build. */
export async function waitForOfflineReady(page: Page): Promise<{ cached: number; total: number }> {
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 });
  return page.evaluate(
    () =>
      new Promise<{ cached: number; total: number }>((resolve) => {
        const ask = () => navigator.serviceWorker.controller?.postMessage({ type: 'GET_STATUS' });
        navigator.serviceWorker.addEventListener('message', (e: MessageEvent) => {
          const d = e.data as { type?: string; cached: number; total: number };
          if (d?.type === 'STATUS' && d.cached === d.total && d.total > 0) resolve({ cached: d.cached, total: d.total });
          else setTimeout(ask, 200);
        });
        ask();
      }),
  );
}
