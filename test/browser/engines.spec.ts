/**
 * The transformers.js engine in the built app: the self-test model (random
 * weights) runs in the transformers worker on WASM and on WebGPU (SwiftShader
 * here), image in and tokens out, with its usage figures; a run can be
 * cancelled; nothing leaves the app's origin while it runs.
 */
import type { Locator, Page } from '@playwright/test';
import { blockOtherOrigins, expect, foreignRequests, openApp, test } from '../support/fixtures.ts';

/** SwiftShader WebGPU is slow: a few tokens are enough to prove generation works. */
const MAX_TOKENS = 8;
const RUN_TIMEOUT_MS = 40_000;

async function openTryModel(page: Page, url: string): Promise<Locator> {
  await openApp(page, url, '#/models');
  const box = page.getByTestId('try-model');
  await expect(box).toBeVisible();
  return box;
}

async function runSelfTest(box: Locator, device: 'wasm' | 'webgpu', maxTokens = MAX_TOKENS): Promise<void> {
  await box.getByTestId('try-device').selectOption(device);
  await box.getByTestId('try-max-tokens').fill(String(maxTokens));
  await box.getByTestId('try-run').click();
}

/** The usage figures are filled in with numbers, and the device is the one asked for. */
async function expectUsage(box: Locator, device: 'wasm' | 'webgpu'): Promise<void> {
  const usage = box.getByTestId('try-usage');
  await expect(usage).toBeVisible({ timeout: RUN_TIMEOUT_MS });
  await expect(box.getByTestId('try-status')).toHaveAttribute('data-phase', 'done');
  await expect(usage).toHaveAttribute('data-finish', /^(length|stop)$/);
  const figure = (name: string) => usage.locator(`[data-usage="${name}"]`);
  // 64×64 image → 2×2 frames + the global frame, 16 image tokens each, plus the question.
  // "N tokens: T text, I image (1 image, K tiles)": the whole prompt, then its parts.
  const promptText = (await figure('promptTokens').textContent()) ?? '';
  expect(promptText).toMatch(/^[\d,]+ tokens: [\d,]+ text, [\d,]+ image \(1 image/);
  const prompt = Number(/^[\d,]+/.exec(promptText)![0].replaceAll(',', ''));
  expect(prompt).toBeGreaterThan(5 * 16);
  const completion = Number(await figure('completionTokens').textContent());
  expect(completion).toBeGreaterThan(0);
  expect(completion).toBeLessThanOrEqual(MAX_TOKENS);
  await expect(figure('ttft')).toHaveText(/^\d+(\.\d)? (ms|s)$/);
  await expect(figure('prefill')).toHaveText(/^\d+\.\d tokens\/s$/);
  // Decode speed needs two tokens; random weights may stop after one.
  await expect(figure('decode')).toHaveText(completion > 1 ? /^\d+\.\d tokens\/s$/ : /tokens\/s$/);
  await expect(figure('total')).toHaveText(/^\d+(\.\d)? (ms|s)$/);
  await expect(figure('device')).toHaveAttribute('data-device', device);
  await expect(figure('device')).toContainText(device === 'webgpu' ? 'WebGPU' : 'WASM');
  await expect(figure('runtime')).toContainText('onnxruntime-web');
}

test('the self-test model answers an image on WASM: tokens stream out, usage is measured', async ({ page, server }) => {
  const box = await openTryModel(page, server.url);
  await expect(box.getByTestId('try-note')).toContainText('random weights');
  await runSelfTest(box, 'wasm');
  await expectUsage(box, 'wasm');
  await expect(box.getByTestId('try-output')).not.toBeEmpty();
  // Our server sends COOP/COEP, so ORT's wasm gets threads.
  await expect(box.locator('[data-usage="device"]')).toContainText(/\d+ threads?\)/);
});

test('the self-test model answers an image on WebGPU (SwiftShader)', async ({ page, server }) => {
  const { adapter, fallback } = await (async () => {
    await openApp(page, server.url);
    return page.evaluate(async () => {
      const a = await navigator.gpu.requestAdapter();
      return { adapter: a?.info.architecture ?? null, fallback: a?.info.isFallbackAdapter === true };
    });
  })();
  expect(adapter, 'Chromium runs with --enable-unsafe-webgpu: an adapter must exist').not.toBeNull();
  const box = await openTryModel(page, server.url);
  // WebGPU is offered when an adapter exists; it is the default only on a real GPU (a software adapter is slower than WASM).
  await expect(box.getByTestId('try-device')).toHaveValue(fallback ? 'wasm' : 'webgpu');
  await expect(box.getByTestId('try-device').locator('option[value="webgpu"]')).toBeEnabled();
  await expect(box.getByTestId('try-webgpu-reason')).toHaveCount(0);
  await runSelfTest(box, 'webgpu');
  await expectUsage(box, 'webgpu');
  await expect(box.getByTestId('try-output')).not.toBeEmpty();
  if (adapter) await expect(box.locator('[data-usage="device"]')).toContainText(adapter);
});

test('without WebGPU, the WebGPU choice is disabled with the reason and WASM is chosen', async ({ page, server, context }) => {
  await context.addInitScript(() => Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true }));
  const box = await openTryModel(page, server.url);
  await expect(box.getByTestId('try-webgpu-reason')).toContainText('WebGPU is unavailable');
  await expect(box.getByTestId('try-device').locator('option[value="webgpu"]')).toBeDisabled();
  await expect(box.getByTestId('try-device')).toHaveValue('wasm');
});

test('a run can be cancelled mid-generation on WASM and on WebGPU; the next run works', async ({ page, server }) => {
  const box = await openTryModel(page, server.url);
  // Random weights rarely hit end-of-sequence, so a long budget keeps generation going until the cancel.
  const budget = 1800;
  for (const device of ['wasm', 'webgpu'] as const) {
    await runSelfTest(box, device, budget);
    await expect(box.getByTestId('try-status')).toHaveAttribute('data-phase', 'generating', { timeout: RUN_TIMEOUT_MS });
    await expect(box.getByTestId('try-output')).not.toBeEmpty();
    await box.getByTestId('try-cancel').click();
    await expect(box.getByTestId('try-status')).toHaveAttribute('data-phase', 'cancelled');
    await expect(box.getByTestId('try-status')).toHaveText('Cancelled.');
    await expect(box.getByTestId('try-cancel')).toHaveCount(0);
    const usage = box.getByTestId('try-usage');
    await expect(usage).toHaveAttribute('data-finish', 'abort');
    await expect(usage.locator('[data-usage="device"]')).toHaveAttribute('data-device', device);
    const completion = Number(await usage.locator('[data-usage="completionTokens"]').textContent());
    expect(completion).toBeGreaterThan(0);
    expect(completion).toBeLessThan(budget);
  }
  // The worker stopped generating: a new run is answered promptly.
  await runSelfTest(box, 'wasm');
  await expectUsage(box, 'wasm');
});

test('no request leaves the app origin while a model loads and runs', async ({ page, server, context, requests }) => {
  const origin = new URL(server.url).origin;
  const blocked = await blockOtherOrigins(context, origin);
  const box = await openTryModel(page, server.url);
  await runSelfTest(box, 'wasm');
  await expectUsage(box, 'wasm');
  await runSelfTest(box, 'webgpu');
  await expectUsage(box, 'webgpu');

  expect(blocked).toEqual([]);
  const foreign = foreignRequests(requests, origin);
  expect(foreign).toEqual([]);
  // The model and the self-hosted ORT wasm pair came from the app itself (the worker's own fetches).
  expect(requests.some((u) => u.startsWith(`${origin}/models/self-test/onnx/decoder_model_merged.onnx`))).toBe(true);
  expect(requests.some((u) => /\/assets\/ort-wasm-simd-threaded\.asyncify-[\w-]+\.wasm$/.test(u))).toBe(true);
  expect(requests.some((u) => /\/assets\/ort-wasm-simd-threaded\.asyncify-[\w-]+\.mjs$/.test(u))).toBe(true);
  expect(requests.some((u) => /\/assets\/transformers\.worker-[\w-]+\.js$/.test(u))).toBe(true);
});

test('the judge text model and the similarity encoder run in the worker', async ({ page, server }) => {
  await openApp(page, server.url, '#/models');
  const box = page.getByTestId('try-text-models');
  await box.getByTestId('judge-run').click();
  await expect(box.getByTestId('judge-usage')).toHaveText(/^\d+ tokens(, the model finished on its own|: reached the answer budget, so the answer is cut off) · answered in /, { timeout: 45_000 });
  await expect(box.getByTestId('judge-output')).not.toBeEmpty();
  await box.getByTestId('sim-run').click();
  await expect(box.getByTestId('sim-result')).toContainText('with encoder self-test-embed (32 dimensions', { timeout: 45_000 });
  const value = Number((await box.getByTestId('sim-result').locator('strong').textContent()) ?? 'NaN');
  expect(value).toBeGreaterThan(-1);
  expect(value).toBeLessThan(1);
  // A random-weight encoder's number carries its caveat beside it.
  await expect(box.getByTestId('sim-caveat')).toContainText('Random weights: this number says the encoder runs on this machine');
  // The same text twice is identical.
  await box.locator('input[name="sim-b"]').fill(await box.locator('input[name="sim-a"]').inputValue());
  await box.getByTestId('sim-run').click();
  await expect(box.getByTestId('sim-result').locator('strong')).toHaveText('1.000');
});

test('on a software WebGPU adapter the run form picks WASM and says why', async ({ page, server }) => {
  await openApp(page, server.url, '#/runs');
  const fallback = await page.evaluate(async () => (await navigator.gpu.requestAdapter())?.info.isFallbackAdapter === true);
  const form = page.getByTestId('new-run');
  const reason = form.getByTestId('device-reason');
  if (fallback) {
    await expect(reason).toContainText('software fallback');
    await expect(form.locator('select[name="device"]')).toHaveValue('wasm');
  } else {
    await expect(reason).toContainText("this machine's GPU");
    await expect(form.locator('select[name="device"]')).toHaveValue('webgpu');
  }
});
