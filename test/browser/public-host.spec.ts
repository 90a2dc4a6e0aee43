/**
 * Weights from a model's public host, as a user with internet gets them: an
 * explicit per-host opt-in that says what is fetched and what is never sent,
 * the host added to the network policy (one reload), then a download with
 * progress and cancel, errors shown in the model's catalogue row, and a
 * model that then runs with its catalogue dtypes. A local server stands in
 * for the host: it lays files out as `/<repo>/resolve/<revision>/<path>` and
 * redirects the ONNX files to a file path, as the public host does. It
 * serves the bundled self-test model's files under SmolVLM-256M's names.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CATALOGUE } from '../../src/core/engines/catalogue.ts';
import { expect, foreignRequests, openApp, test, waitForOfflineReady } from '../support/fixtures.ts';

const SELF_TEST = new URL('../../public/models/self-test/', import.meta.url).pathname;
const ENTRY = CATALOGUE.models.find((m) => m.id === 'smolvlm-256m')!;
const SOURCE = ENTRY.source!;

/** The self-test file served for each listed path (the q4 and q8 decoder names get the self-test decoder). */
function bodyFor(path: string): Buffer | null {
  const tokenizerConfig = JSON.parse(readFileSync(join(SELF_TEST, 'tokenizer_config.json'), 'utf8')) as { chat_template?: string };
  const stand: Record<string, () => Buffer> = {
    'chat_template.json': () => Buffer.from(JSON.stringify({ chat_template: tokenizerConfig.chat_template })),
    'special_tokens_map.json': () => Buffer.from('{}'),
    'added_tokens.json': () => Buffer.from('{}'),
    'onnx/decoder_model_merged_q4.onnx': () => readFileSync(join(SELF_TEST, 'onnx/decoder_model_merged.onnx')),
    'onnx/decoder_model_merged_quantized.onnx': () => readFileSync(join(SELF_TEST, 'onnx/decoder_model_merged.onnx')),
  };
  if (stand[path]) return stand[path]();
  try {
    return readFileSync(join(SELF_TEST, path));
  } catch {
    return null;
  }
}

interface HostStandIn {
  readonly url: string;
  readonly hits: string[];
  mode: 'ok' | 'fail' | 'slow';
  close(): Promise<void>;
}

async function startHost(): Promise<HostStandIn> {
  const hits: string[] = [];
  const state: HostStandIn = { url: '', hits, mode: 'ok', close: async () => {} };
  const prefix = `/${SOURCE.repo}/resolve/${SOURCE.revision}/`;
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const cors = { 'Access-Control-Allow-Origin': '*' };
    const url = new URL(req.url ?? '/', 'http://x');
    const file = url.pathname.startsWith('/files/') ? decodeURIComponent(url.pathname.slice('/files/'.length)) : url.pathname.startsWith(prefix) ? decodeURIComponent(url.pathname.slice(prefix.length)) : null;
    const body = file ? bodyFor(file) : null;
    if (!file || !body) {
      res.writeHead(404, cors);
      res.end('Entry not found');
      return;
    }
    if (url.pathname.startsWith(prefix) && file.endsWith('.onnx')) {
      res.writeHead(302, { ...cors, Location: `/files/${encodeURIComponent(file)}` });
      res.end();
      return;
    }
    if (state.mode === 'fail' && file.endsWith('decoder_model_merged_q4.onnx')) {
      res.writeHead(500, cors);
      res.end('storage backend unavailable');
      return;
    }
    res.writeHead(200, { ...cors, 'Content-Length': body.length });
    if (state.mode === 'slow' && file.endsWith('.onnx')) {
      // Half the file, then a long pause: the download is visibly in progress and can be cancelled.
      res.write(body.subarray(0, body.length >> 1));
      setTimeout(() => res.end(body.subarray(body.length >> 1)), 20_000).unref();
      return;
    }
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  });
}

test('a catalogue model downloads from its public host after an explicit opt-in, with progress, cancel and errors in its row', async ({ page, server, requests }) => {
  test.setTimeout(150_000);
  const host = await startHost();
  try {
    await openApp(page, server.url, '#/models');
    await waitForOfflineReady(page);
    const row = page.locator(`[data-testid="catalogue"] tr[data-model="${ENTRY.id}"]`);
    const detail = page.locator(`[data-testid="catalogue"] tr[data-detail-for="${ENTRY.id}"]`);

    // 0. The public host typed as the mirror is explained beside the field, not saved.
    await page.locator('input[name="mirror"]').fill('https://huggingface.co/HuggingFaceTB/SmolVLM-256M-Instruct');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('mirror-error')).toContainText('is the models\' public host, not an on-prem mirror');
    await page.locator('input[name="mirror"]').fill('');

    // 1. The opt-in says what is fetched and what is never sent; nothing is contacted before it is accepted.
    await row.getByTestId('host-download').click();
    const optIn = row.getByTestId('host-optin');
    await expect(optIn).toContainText('What is fetched: the weights only');
    await expect(optIn).toContainText('What is never sent: no case, image, answer or score');
    await expect(optIn).toContainText(`at revision ${SOURCE.revision.slice(0, 12)}`);
    expect(host.hits).toEqual([]);
    await optIn.locator('input[name="public-host"]').fill(host.url);

    // 2. Allowed: the page reloads once with the host in its policy, and the download starts by itself. It fails: the error is in the row.
    host.mode = 'fail';
    await Promise.all([page.waitForEvent('load'), optIn.getByTestId('host-allow').click()]);
    await page.waitForSelector('html[data-ready="true"]');
    const policy = await page.evaluate(() => document.querySelector<HTMLMetaElement>('meta[http-equiv="Content-Security-Policy"]')?.content ?? '');
    expect(policy).toMatch(new RegExp(`connect-src[^;]*${host.url.replace(/[.:/]/g, '\\$&')}`));
    await expect(detail.getByTestId('row-status')).toContainText(`onnx/decoder_model_merged_q4.onnx answered 500`, { timeout: 60_000 });
    await expect(page.getByTestId('stored-models').locator(`tr[data-model="${ENTRY.id}"]`)).toHaveCount(0);

    // 3. Again, slowly: progress with bytes, speed and time left in the row, then cancel keeps nothing.
    host.mode = 'slow';
    await row.getByTestId('host-download').click();
    await row.getByTestId('host-optin').locator('input[name="public-host"]').fill(host.url);
    await row.getByTestId('host-allow').click();
    const transfer = detail.getByTestId('transfer');
    await expect(transfer.getByTestId('transfer-figures')).toContainText(/of .* · .*\/s · /, { timeout: 30_000 });
    await transfer.getByRole('button', { name: 'Cancel' }).click();
    await expect(detail.getByTestId('row-status')).toContainText('cancelled. Nothing was kept.');

    // 4. And once more: downloaded, stored with the public host as its source, and it runs here with the catalogue's dtypes.
    host.mode = 'ok';
    await row.getByTestId('host-download').click();
    await row.getByTestId('host-optin').locator('input[name="public-host"]').fill(host.url);
    await row.getByTestId('host-allow').click();
    await expect(detail.getByTestId('row-status')).toContainText(`Downloaded ${ENTRY.label} from ${new URL(host.url).host}: ${SOURCE.files.length} files`, { timeout: 60_000 });
    const stored = page.getByTestId('stored-models').locator(`tr[data-model="${ENTRY.id}"]`);
    await expect(stored).toContainText('public host');
    // Only the listed files, at the catalogue's revision (plus the redirects they gave).
    const asked = host.hits.filter((u) => !u.startsWith('/files/'));
    expect(asked.every((u) => u.startsWith(`/${SOURCE.repo}/resolve/${SOURCE.revision}/`))).toBe(true);
    await stored.getByRole('button', { name: 'Test' }).click();
    const tryModel = page.getByTestId('try-model');
    await tryModel.getByTestId('try-device').selectOption('wasm');
    await tryModel.getByTestId('try-run').click();
    await expect(tryModel.getByTestId('try-usage')).toContainText(/completion tokens/i, { timeout: 45_000 });

    // Nothing went anywhere but the app and the host the user allowed.
    const origin = new URL(server.url).origin;
    expect(foreignRequests(requests, origin).filter((u) => !u.startsWith(host.url))).toEqual([]);
  } finally {
    await host.close();
  }
});
