/**
 * `neuroeval model-fetch` against a local server laid out like the public
 * model host (`/<repo>/resolve/<revision>/<path>`, redirects for large files,
 * 401 for gated repositories), serving the bundled self-test model's files.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import type { Catalogue, CatalogueEntry } from '../../../src/core/engines/catalogue.ts';
import { parseModelManifest } from '../../../src/core/models/manifest.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

const SELF_TEST = new URL('../../../public/models/self-test/', import.meta.url).pathname;
const REPO = 'example-org/tiny-vlm-ONNX';
const REVISION = '0123456789abcdef0123456789abcdef01234567';
const shipped = parseModelManifest(JSON.parse(readFileSync(join(SELF_TEST, 'manifest.json'), 'utf8')));

let server: Server;
let host = '';
const hits: { url: string; auth: string | undefined }[] = [];
/** Paths the server answers with a corrupted body (same length). */
const corrupt = new Set<string>();

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push({ url: req.url ?? '', auth: req.headers.authorization });
    const url = new URL(req.url ?? '/', 'http://x');
    // Large files are served from another path by a redirect, as the public host does.
    if (url.pathname.startsWith('/cdn/')) {
      const path = decodeURIComponent(url.pathname.slice('/cdn/'.length));
      const body = readFileSync(join(SELF_TEST, path));
      if (corrupt.has(path)) body[0] = body[0]! ^ 0xff;
      res.writeHead(200, { 'Content-Length': body.length });
      res.end(body);
      return;
    }
    if (url.pathname.startsWith('/gated-org/')) {
      res.writeHead(req.headers.authorization === 'Bearer hf_test_token' ? 404 : 401);
      res.end();
      return;
    }
    const prefix = `/${REPO}/resolve/${REVISION}/`;
    if (!url.pathname.startsWith(prefix)) {
      res.writeHead(404);
      res.end('Entry not found');
      return;
    }
    const path = decodeURIComponent(url.pathname.slice(prefix.length));
    if (!existsSync(join(SELF_TEST, path))) {
      res.writeHead(404);
      res.end('Entry not found');
      return;
    }
    if (path.endsWith('.onnx')) {
      res.writeHead(302, { Location: `/cdn/${encodeURIComponent(path)}` });
      res.end();
      return;
    }
    res.writeHead(200);
    res.end(readFileSync(join(SELF_TEST, path)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(() => {
  removeTempDirs();
  hits.length = 0;
  corrupt.clear();
});

function entry(over: Partial<CatalogueEntry> = {}): CatalogueEntry {
  return {
    id: 'tiny-vlm',
    label: 'Tiny VLM',
    runtime: 'transformers',
    modelId: REPO,
    task: 'image-text-to-text',
    parameters: '1 M',
    quantisation: 'fp32',
    downloadBytes: shipped.files.reduce((n, f) => n + f.bytes, 0),
    vramMB: 16,
    needsShaderF16: false,
    images: true,
    contextLength: 2048,
    licence: 'Apache-2.0',
    sources: [`https://huggingface.co/${REPO}`],
    source: {
      repo: REPO,
      revision: REVISION,
      page: `https://huggingface.co/${REPO}`,
      files: shipped.files.map((f) => ({ path: f.path, part: f.path.startsWith('onnx/') ? 'onnx' : 'config', bytes: f.bytes, sha256: f.sha256 })),
    },
    ...over,
  };
}

function catalogueFile(entries: CatalogueEntry[]): string {
  const file = join(makeTempDir('catalogue'), 'catalogue.json');
  const c: Catalogue = { catalogueVersion: 1, updated: '2026-11-23', models: entries };
  writeFileSync(file, JSON.stringify(c));
  return file;
}

function capture() {
  let out = '';
  let err = '';
  return { io: { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } }, out: () => out, err: () => err };
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('neuroeval model-fetch', () => {
  it('downloads exactly the listed files at the revision, verifies them and writes the manifest', async () => {
    const out = join(makeTempDir('fetch'), 'tiny-vlm');
    const c = capture();
    const code = await main(['model-fetch', 'tiny-vlm', '--out', out, '--host', host, '--catalogue', catalogueFile([entry()])], c.io);
    expect(c.err()).not.toContain('model-fetch:');
    expect(code).toBe(0);
    expect(c.out()).toContain(`Fetched Tiny VLM (${REPO} at ${REVISION}): ${shipped.files.length} files`);
    const manifest = parseModelManifest(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')));
    expect(manifest.files.map((f) => [f.path, f.bytes, f.sha256]).sort()).toEqual(shipped.files.map((f) => [f.path, f.bytes, f.sha256]).sort());
    for (const f of shipped.files) expect(sha(join(out, f.path))).toBe(f.sha256);
    // Only the revision's resolve URLs (and the redirects they gave) were asked; nothing else.
    const asked = hits.filter((h) => !h.url.startsWith('/cdn/')).map((h) => h.url);
    expect(asked.every((u) => u.startsWith(`/${REPO}/resolve/${REVISION}/`))).toBe(true);
    expect(asked).toHaveLength(shipped.files.length);
    expect(readdirSync(join(out, 'onnx')).some((f) => f.endsWith('.part'))).toBe(false);
  });

  it('resumes: files already there and verified are not fetched again', async () => {
    const out = join(makeTempDir('fetch'), 'tiny-vlm');
    const file = catalogueFile([entry()]);
    expect(await main(['model-fetch', 'tiny-vlm', '--out', out, '--host', host, '--catalogue', file], capture().io)).toBe(0);
    hits.length = 0;
    expect(await main(['model-fetch', 'tiny-vlm', '--out', out, '--host', host, '--catalogue', file], capture().io)).toBe(0);
    expect(hits).toEqual([]);
  });

  it('refuses a file whose hash does not match, names it, and keeps nothing of it', async () => {
    const out = join(makeTempDir('fetch'), 'tiny-vlm');
    const bad = shipped.files.find((f) => f.path.endsWith('.onnx'))!.path;
    corrupt.add(bad);
    const c = capture();
    expect(await main(['model-fetch', 'tiny-vlm', '--out', out, '--host', host, '--catalogue', catalogueFile([entry()])], c.io)).toBe(1);
    expect(c.err()).toContain(`${bad}: SHA-256`);
    expect(c.err()).toContain("does not match the catalogue's");
    expect(existsSync(join(out, bad))).toBe(false);
    expect(existsSync(join(out, `${bad}.part`))).toBe(false);
    expect(existsSync(join(out, 'manifest.json'))).toBe(false);
  });

  it('refuses a size that differs from the catalogue', async () => {
    const e = entry();
    const first = e.source!.files[0]!;
    const wrong = { ...e, source: { ...e.source!, files: [{ ...first, bytes: first.bytes! + 1, sha256: undefined as unknown as string }] } };
    const c = capture();
    expect(await main(['model-fetch', 'tiny-vlm', '--out', join(makeTempDir('fetch'), 'm'), '--host', host, '--catalogue', catalogueFile([wrong])], c.io)).toBe(1);
    expect(c.err()).toContain(`${first.path}: got ${first.bytes} bytes, the catalogue says ${first.bytes! + 1}`);
  });

  it('names the URL of a missing file', async () => {
    const e = entry();
    const missing = { ...e, source: { ...e.source!, files: [{ path: 'onnx/not_there.onnx', part: 'decoder' }] } };
    const c = capture();
    expect(await main(['model-fetch', 'tiny-vlm', '--out', join(makeTempDir('fetch'), 'm'), '--host', host, '--catalogue', catalogueFile([missing])], c.io)).toBe(1);
    expect(c.err()).toContain(`onnx/not_there.onnx: ${host}/${REPO}/resolve/${REVISION}/onnx/not_there.onnx answered 404`);
  });

  it('explains a gated model, sends the token only to the host, and never writes it', async () => {
    const gated = entry({ id: 'gated', label: 'Gated VLM', gated: 'accept the model terms on its page', source: { ...entry().source!, repo: 'gated-org/model', page: 'https://huggingface.co/gated-org/model' } });
    const file = catalogueFile([gated]);
    const c = capture();
    expect(await main(['model-fetch', 'gated', '--out', join(makeTempDir('fetch'), 'g'), '--host', host, '--catalogue', file], c.io)).toBe(1);
    expect(c.err()).toContain('the host refused the download (401). Gated VLM is gated: accept the model terms on its page');
    expect(c.err()).toContain('Accept the terms on https://huggingface.co/gated-org/model, then pass --token');
    hits.length = 0;
    const out = join(makeTempDir('fetch'), 'g2');
    const c2 = capture();
    await main(['model-fetch', 'gated', '--out', out, '--host', host, '--token', 'hf_test_token', '--catalogue', file], c2.io);
    expect(hits[0]?.auth).toBe('Bearer hf_test_token');
    expect(c2.out() + c2.err()).not.toContain('hf_test_token');
  });

  it('lists what it can fetch, and says why it cannot fetch the rest', async () => {
    const file = catalogueFile([entry(), entry({ id: 'no-files', label: 'No files', source: undefined as never })]);
    const list = capture();
    expect(await main(['model-fetch', '--list', '--catalogue', file], list.io)).toBe(0);
    expect(list.out()).toContain(`tiny-vlm\tTiny VLM\t${REPO}@${REVISION}`);
    expect(list.out()).not.toContain('no-files');
    const c = capture();
    expect(await main(['model-fetch', 'no-files', '--out', makeTempDir('fetch'), '--catalogue', file], c.io)).toBe(2);
    expect(c.err()).toContain('No files has no file list in the catalogue');
  });
});
