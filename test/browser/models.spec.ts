/**
 * The model manager in the real app: the catalogue's fit check on this
 * adapter, importing a model folder (air-gapped) and running it with the
 * network gone, downloading from an on-prem mirror with progress, verifying
 * and deleting.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve.mjs';
import { startFakeOpenAi } from '../support/fake-openai-server.ts';
import { expect, openApp, test, waitForOfflineReady } from '../support/fixtures.ts';
import { smolVlmFolder } from '../support/catalogue-folder.ts';
import { makeTempDir } from '../support/temp-dir.ts';

const SELF_TEST = new URL('../../public/models/self-test/', import.meta.url).pathname;

/** A copy of the self-test model as it would arrive on a USB stick. */
function usbCopy(name: string): string {
  const dir = join(makeTempDir('usb'), name);
  cpSync(SELF_TEST, dir, { recursive: true });
  return dir;
}

test('the catalogue says which models fit this adapter, and why not', async ({ page, server }) => {
  await openApp(page, server.url, '#/models');
  const catalogue = page.getByTestId('catalogue');
  const f16 = await page.evaluate(async () => (await navigator.gpu.requestAdapter())?.features.has('shader-f16') ?? false);
  const phi16 = catalogue.locator('tr[data-model="phi-3.5-vision-q4f16"] .fit');
  await expect(phi16).toHaveAttribute('data-fit', String(f16));
  if (!f16) await expect(phi16).toContainText('lacks shader-f16');
  await expect(catalogue.locator('tr[data-model="self-test"] .fit')).toHaveAttribute('data-fit', 'true');
});

test('the public-host opt-in opens next to the button that opened it, and Escape gives the focus back', async ({ page, server }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openApp(page, server.url, '#/models');
  // MedGemma's row is the tallest (its terms and fit notes): the panel must still open at its button, not below the row.
  const row = page.locator('[data-testid="catalogue"] tr[data-model="medgemma-4b-q4"]');
  const button = row.getByTestId('host-download');
  await button.scrollIntoViewIfNeeded();
  await button.click();
  const panel = row.getByTestId('host-optin');
  await expect(panel).toBeVisible();
  await expect(panel.locator('input[name="public-host"]')).toBeFocused();
  const b = (await button.boundingBox())!;
  const p = (await panel.boundingBox())!;
  const rowBox = (await row.boundingBox())!;
  expect(rowBox.height, 'the row should be taller than the gap allowed, or the check proves nothing').toBeGreaterThan(150);
  expect(p.y - (b.y + b.height)).toBeGreaterThanOrEqual(0);
  expect(p.y - (b.y + b.height)).toBeLessThan(16);
  // Under its button, inside the table's width and whole on the screen.
  expect(p.x).toBeLessThanOrEqual(b.x);
  expect(p.x + p.width).toBeGreaterThanOrEqual(b.x + b.width);
  expect(p.x + p.width).toBeLessThanOrEqual(rowBox.x + rowBox.width + 1);
  expect(p.x).toBeGreaterThanOrEqual(0);
  expect(p.x + p.width).toBeLessThanOrEqual(1280);
  await page.keyboard.press('Escape');
  await expect(panel).toHaveCount(0);
  await expect(button).toBeFocused();
});

test('a model imported from a folder is hashed, stored, and runs after a reload with the network off', async ({ page, server, context }) => {
  await openApp(page, server.url, '#/models');
  await waitForOfflineReady(page);
  await page.getByTestId('import-model-folder').setInputFiles(usbCopy('smolvlm-usb'));
  // The outcome shows in the card of the action: the import's under the import, the check's beside the stored models.
  await expect(page.locator('section[aria-labelledby="import-model-title"]').getByTestId('model-message')).toContainText('Imported smolvlm-usb');
  const row = page.getByTestId('stored-models').locator('tr[data-model="imported-smolvlm-usb"]');
  await expect(row).toContainText('imported');

  await server.close();
  await context.setOffline(true);
  await page.reload();
  await page.waitForSelector('html[data-ready="true"]');
  await row.getByRole('button', { name: 'Test' }).click();
  const tryModel = page.getByTestId('try-model');
  // The test runs in the check card at the top: the click brings it into view.
  await expect(tryModel).toBeInViewport();
  await tryModel.getByTestId('try-device').selectOption('wasm');
  await tryModel.getByTestId('try-run').click();
  await expect(tryModel.getByTestId('try-usage')).toContainText(/completion tokens/i, { timeout: 45_000 });
  await expect(tryModel.getByTestId('try-output')).not.toBeEmpty();
  // Verify re-hashes the stored copy.
  await row.getByRole('button', { name: 'Verify' }).click();
  await expect(page.locator('section[aria-labelledby="stored-title"]').getByTestId('model-message')).toContainText('files match their recorded SHA-256');
});

test('a folder imported as a catalogue model must hold the files the catalogue lists, where the repository keeps them', async ({ page, server }) => {
  await openApp(page, server.url, '#/models');
  await page.locator('select[name="importAs"]').selectOption('smolvlm-256m');
  // The self-test folder is not laid out as SmolVLM-256M's repository: the first missing file is named, with the count of the rest.
  await page.getByTestId('import-model-folder').setInputFiles(usbCopy('not-smolvlm'));
  await expect(page.getByTestId('model-error')).toContainText('"not-smolvlm": chat_template.json is missing: SmolVLM 256M Instruct');
  await expect(page.getByTestId('model-error')).toContainText('more problems after this one');
  await expect(page.getByTestId('stored-models').locator('tr[data-model="smolvlm-256m"]')).toHaveCount(0);

  await page.getByTestId('import-model-folder').setInputFiles(smolVlmFolder(join(makeTempDir('usb'), 'SmolVLM-256M-Instruct')));
  await expect(page.getByTestId('model-message')).toContainText('Imported SmolVLM 256M Instruct');
  await expect(page.getByTestId('stored-models').locator('tr[data-model="smolvlm-256m"]')).toContainText('imported');
});

test('a damaged copy is refused and nothing is kept', async ({ page, server }) => {
  const dir = usbCopy('damaged');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(dir, 'onnx', 'embed_tokens.onnx'), 'not the real file');
  await openApp(page, server.url, '#/models');
  await page.getByTestId('import-model-folder').setInputFiles(dir);
  await expect(page.getByTestId('model-error')).toContainText('does not match its manifest');
  await expect(page.getByTestId('stored-models').locator('tr[data-model="imported-damaged"]')).toHaveCount(0);
});

test('a catalogue model downloads from an allowed on-prem mirror with progress, then can be deleted', async ({ page, server }) => {
  const mirrorRoot = makeTempDir('mirror');
  cpSync(SELF_TEST, join(mirrorRoot, 'HuggingFaceTB', 'SmolVLM-256M-Instruct'), { recursive: true });
  const mirror = await startServer({ root: mirrorRoot, base: '/hf/', cors: true });
  try {
    const mirrorOrigin = new URL(mirror.url).origin;
    await openApp(page, server.url, '#/settings');
    await waitForOfflineReady(page);
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('allowed-origins').locator('input[name="origin"]').fill(mirrorOrigin);
    await page.getByTestId('allowed-origins').getByRole('button', { name: 'Allow…' }).click();
    await page.getByRole('button', { name: 'Reload to apply' }).click();
    await page.waitForSelector('html[data-ready="true"]');
    await expect(page.getByTestId('connect-src')).toContainText(mirrorOrigin);

    await page.goto(`${server.url}#/models`);
    await page.waitForSelector('html[data-ready="true"]');
    await page.locator('input[name="mirror"]').fill(mirror.url);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('catalogue').locator('tr[data-model="smolvlm-256m"]').getByRole('button', { name: 'Download' }).click();
    // The outcome shows in the row whose button started the download.
    await expect(page.getByTestId('catalogue').locator('tr[data-detail-for="smolvlm-256m"]').getByTestId('row-status')).toContainText('Downloaded SmolVLM 256M Instruct');
    const row = page.getByTestId('stored-models').locator('tr[data-model="smolvlm-256m"]');
    await expect(row).toContainText('catalogue');
    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Delete' }).click();
    await expect(row).toHaveCount(0);
  } finally {
    await mirror.close();
  }
});

test('an on-prem OpenAI-compatible server is added only after confirming its host, then answers a test', async ({ page, server }) => {
  const api = await startFakeOpenAi(['medgemma-4b-it']);
  try {
    await openApp(page, server.url, '#/models');
    await waitForOfflineReady(page);
    const box = page.getByTestId('endpoints');
    await expect(box).toContainText('No inference servers');
    await box.locator('input[name="endpoint-url"]').fill(api.baseUrl);
    await box.locator('input[name="endpoint-model"]').fill('medgemma-4b-it');
    let shown = '';
    page.once('dialog', (d) => {
      shown = d.message();
      void d.accept();
    });
    await box.getByRole('button', { name: 'Add server…' }).click();
    await expect(box.getByRole('button', { name: 'Reload to allow the connection' })).toBeVisible();
    expect(shown).toContain(new URL(api.baseUrl).host);
    await box.getByRole('button', { name: 'Reload to allow the connection' }).click();
    await page.waitForSelector('html[data-ready="true"]');
    await page.getByTestId('endpoints').getByRole('button', { name: 'Test connection' }).click();
    await expect(page.getByTestId('endpoint-check')).toContainText('Answer: “Connected.”');
    await expect(page.getByTestId('endpoint-check')).toContainText('97 prompt / 2 completion tokens');
    const sent = api.received[0] as { messages: { content: { type: string; image_url?: { url: string } }[] }[] };
    // The test image goes first, then the question (the user turn's images-then-text order).
    expect(sent.messages[0]!.content.map((p) => p.type)).toEqual(['image_url', 'text']);
    expect(sent.messages[0]!.content[0]!.image_url!.url).toMatch(/^data:image\/png;base64,/);
  } finally {
    await api.close();
  }
});

test('WebLLM: an f16 model is refused before any download without shader-f16; a failed download says why', async ({ page, server, requests }) => {
  await openApp(page, server.url, '#/models');
  const panel = page.getByTestId('webllm');
  const f16 = await page.evaluate(async () => (await navigator.gpu.requestAdapter())?.features.has('shader-f16') ?? false);
  await expect(panel.getByTestId('webllm-cached')).toHaveText('no');
  const before = requests.length;
  await panel.locator('select[name="webllm-model"]').selectOption('phi-3.5-vision-q4f16');
  await panel.getByRole('button', { name: 'Load' }).click();
  if (f16) {
    // A GPU with shader-f16 may load it: it gets as far as the (blocked) download.
    await expect(panel.getByTestId('webllm-error')).toContainText('could not be downloaded', { timeout: 30_000 });
  } else {
    await expect(panel.getByTestId('webllm-fit')).toContainText('lacks shader-f16');
    await expect(panel.getByTestId('webllm-error')).toContainText('needs shader-f16');
    const origin = new URL(server.url).origin;
    expect(requests.slice(before).filter((u) => !u.startsWith(origin))).toEqual([]);
  }

  // The f32 variant is allowed, but its weights cannot be fetched: the public host is not allowed here.
  await panel.locator('select[name="webllm-model"]').selectOption('phi-3.5-vision-q4f32');
  await panel.getByRole('button', { name: 'Load' }).click();
  await expect(panel.getByTestId('webllm-error')).toContainText('could not be downloaded', { timeout: 30_000 });
  await expect(panel.getByTestId('webllm-cached')).toHaveText('no');
});
