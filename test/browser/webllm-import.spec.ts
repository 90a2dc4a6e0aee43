/**
 * A WebLLM model imported from a folder (the MLC layout, as it would arrive on
 * a USB stick) loads with the network off: its files are hashed and stored in
 * this browser, the service worker serves them, and the WebLLM worker fetches
 * the config, the tensor cache, every weight shard and the model library from
 * the app's own origin. WebLLM itself cannot run a model here, so its worker
 * is the app's worker API over a stand-in engine that fetches those files as
 * WebLLM does (test/browser/support/webllm-stand-in.worker.ts).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StaticServer } from '../../scripts/serve.mjs';
import { expect, foreignRequests, openApp, test, waitForOfflineReady } from '../support/fixtures.ts';
import { makeTempDir, removeTempDirs } from '../support/temp-dir.ts';
import { appWithStandIn } from './support/stand-in-app.ts';

const LIB = 'Phi-3.5-vision-instruct-q4f32_1-ctx4k_cs2k-webgpu.wasm';

/** A small folder in WebLLM's MLC layout. */
function mlcFolder(): string {
  const dir = join(makeTempDir('mlc'), 'Phi-3.5-vision-instruct-q4f32_1-MLC');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'mlc-chat-config.json'), JSON.stringify({ model_type: 'phi3_v', context_window_size: 4096, conv_template: { name: 'phi-3-vision' } }));
  writeFileSync(join(dir, 'tensor-cache.json'), JSON.stringify({ metadata: {}, records: [{ dataPath: 'params_shard_0.bin', format: 'raw-shard', nbytes: 4096, records: [] }, { dataPath: 'params_shard_1.bin', format: 'raw-shard', nbytes: 2048, records: [] }] }));
  writeFileSync(join(dir, 'params_shard_0.bin'), Buffer.alloc(4096, 1));
  writeFileSync(join(dir, 'params_shard_1.bin'), Buffer.alloc(2048, 2));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify({ version: '1.0', model: { type: 'BPE' } }));
  writeFileSync(join(dir, LIB), Buffer.from([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  return dir;
}

test.describe('WebLLM folder import', () => {
  let app: StaticServer;
  test.beforeAll(async () => {
    app = await appWithStandIn();
  });
  test.afterAll(async () => {
    await app.close().catch(() => {});
    removeTempDirs();
  });

  test('an MLC folder imported for a WebLLM catalogue model loads with the network off', async ({ page, context, requests }) => {
    test.setTimeout(120_000);
    await openApp(page, app.url, '#/models');
    await waitForOfflineReady(page);

    // Without saying which WebLLM model it is, an MLC folder is refused with the reason.
    await page.getByTestId('import-model-folder').setInputFiles(mlcFolder());
    await expect(page.getByTestId('model-error')).toContainText('is a WebLLM (MLC) model folder: choose which WebLLM catalogue model it is');

    await page.locator('select[name="importAs"]').selectOption('phi-3.5-vision-q4f32');
    // A shard the weight index names is missing: named before anything is stored.
    const broken = mlcFolder();
    rmSync(join(broken, 'params_shard_1.bin'));
    await page.getByTestId('import-model-folder').setInputFiles(broken);
    await expect(page.getByTestId('model-error')).toContainText('params_shard_1.bin is missing: tensor-cache.json lists it as a weight shard');
    await expect(page.getByTestId('stored-models').locator('tr[data-model="phi-3.5-vision-q4f32"]')).toHaveCount(0);

    await page.getByTestId('import-model-folder').setInputFiles(mlcFolder());
    await expect(page.getByTestId('model-message')).toContainText('Imported Phi-3.5 vision instruct (q4f32): 6 files');
    const row = page.getByTestId('stored-models').locator('tr[data-model="phi-3.5-vision-q4f32"]');
    await expect(row).toContainText('imported');
    await row.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByTestId('model-message')).toContainText('all 6 files match their recorded SHA-256');

    // Offline: the server is gone and the browser has no network.
    await app.close();
    await context.setOffline(true);
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    const origin = new URL(app.url).origin;
    const before = requests.length;

    const panel = page.getByTestId('webllm');
    await panel.locator('select[name="webllm-model"]').selectOption('phi-3.5-vision-q4f32');
    await expect(panel.locator('input[name="webllm-weights"]')).toHaveValue(`${origin}/models/phi-3.5-vision-q4f32/`);
    await panel.getByRole('button', { name: 'Load' }).click();
    await expect(panel.getByTestId('webllm-info')).toContainText('Loaded Phi-3.5-vision-instruct-q4f32_1-MLC', { timeout: 30_000 });

    const worker = page.workers().find((w) => /webllm\.worker/.test(w.url()))!;
    const fetched = await worker.evaluate(() => (globalThis as unknown as { neuroevalWebLlmStandIn: { fetched: string[] } }).neuroevalWebLlmStandIn.fetched);
    const base = `${origin}/models/phi-3.5-vision-q4f32/Phi-3.5-vision-instruct-q4f32_1-MLC/resolve/main/`;
    expect(fetched).toEqual([
      `${base}mlc-chat-config.json`,
      `${base}tensor-cache.json`,
      `${base}params_shard_0.bin`,
      `${base}params_shard_1.bin`,
      `${origin}/models/phi-3.5-vision-q4f32/lib/${LIB}`,
    ]);
    expect(foreignRequests(requests.slice(before), origin)).toEqual([]);

    // It can be picked for a run now.
    await page.goto(`${origin}/#/runs`);
    await expect(page.getByTestId('new-run').locator('input[name="model"][value="webllm:phi-3.5-vision-q4f32"]')).toBeVisible();
  });
});
