/**
 * Offline use and updates: the service worker must serve the whole app with
 * the network gone, isolate the page for WASM threads, and offer an update
 * when a new version is deployed.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve.mjs';
import { DIST, expect, openApp, test, waitForOfflineReady } from '../support/fixtures.ts';
import { makeTempDir } from '../support/temp-dir.ts';

test('after the first visit the app works with the network off', async ({ page, server, context }) => {
  await openApp(page, server.url);
  const { cached, total } = await waitForOfflineReady(page);
  expect(cached).toBe(total);
  // Each file is cached with the isolation headers, so a request is answered with the cached response itself
  // (which keeps the compiled code Chromium stores beside a script cached at install), not a copy made per request.
  const headers = await page.evaluate(async () => {
    const name = (await caches.keys()).find((k) => k.startsWith('neuroeval-precache-'))!;
    const cache = await caches.open(name);
    const requests = await cache.keys();
    return Promise.all(requests.map(async (r) => {
      const res = (await cache.match(r))!;
      return `${res.headers.get('Cross-Origin-Opener-Policy')} ${res.headers.get('Cross-Origin-Embedder-Policy')}`;
    }));
  });
  expect(headers.length).toBe(total);
  expect(new Set(headers)).toEqual(new Set(['same-origin require-corp']));

  // The network goes away entirely: the server stops and the browser is offline.
  await server.close();
  await context.setOffline(true);
  await page.reload();
  await page.waitForSelector('html[data-ready="true"]');

  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Home');
  await expect(page.locator('[data-check="offline"]')).toHaveAttribute('data-verdict', 'ok');
  // The page came from the service worker, which also made it cross-origin isolated.
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  // Workers load offline too: the compute test runs in one.
  await expect(page.locator('[data-check="worker-gpu"]')).not.toHaveAttribute('data-verdict', 'info');
  // Every page still works, including the database-backed ones.
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Settings');
  await expect(page.getByRole('row', { name: /^Answers/ })).toContainText('0');
  await page.getByRole('button', { name: 'Test the worker boundary' }).click();
  await expect(page.getByTestId('ping')).toContainText('Round trip');
});

test('the app is served from a sub-path without a rebuild (GitHub Pages project sites)', async ({ page, context }) => {
  const server = await startServer({ root: DIST, base: '/hospital/tools/neuroeval/' });
  try {
    await openApp(page, server.url);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Home');
    await waitForOfflineReady(page);
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.scope);
    expect(scope).toBe(server.url);
    await server.close();
    await context.setOffline(true);
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    await page.getByRole('link', { name: 'Models' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Models');
  } finally {
    await server.close();
  }
});

test('a newly deployed version is offered with an update prompt', async ({ page }) => {
  // Deploy "version A" to a folder we can overwrite.
  const root = makeTempDir('deploy');
  cpSync(DIST, root, { recursive: true });
  const server = await startServer({ root });
  try {
    await openApp(page, server.url);
    await waitForOfflineReady(page);
    const before = await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL);
    await expect(page.getByRole('button', { name: 'Reload to update' })).toHaveCount(0);

    // Deploy "version B": a changed asset changes the precache manifest and therefore sw.js.
    const sw = readFileSync(join(root, 'sw.js'), 'utf8');
    const buildId = /"buildId":"([0-9a-f]+)"/.exec(sw)![1]!;
    writeFileSync(join(root, 'sw.js'), sw.replace(`"buildId":"${buildId}"`, '"buildId":"feedfacefeedface"'));

    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.update());
    const prompt = page.getByRole('button', { name: 'Reload to update' });
    await expect(prompt).toBeVisible({ timeout: 30_000 });
    await prompt.click();
    await page.waitForEvent('load');
    await page.waitForSelector('html[data-ready="true"]');
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect(page.getByText('Offline cache: build feedfacefeedface')).toBeVisible({ timeout: 20_000 });
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(before);
    await expect(page.getByRole('button', { name: 'Reload to update' })).toHaveCount(0);
  } finally {
    await server.close();
  }
});
