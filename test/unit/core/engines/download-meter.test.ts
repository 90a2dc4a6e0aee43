/**
 * Download progress of model files is counted in the fetch transformers.js
 * uses (download-meter.ts), not through its progress_callback: every byte
 * still reaches the reader untouched, and a load reports its files' bytes.
 * (transformers.js 4.3.1 in Node loads ONNX files from disk only, so a whole
 * load over HTTP through the app's worker is checked in the browser:
 * test/browser/smoke-real.spec.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { Progress } from '../../../../src/core/model/progress.ts';
import { DownloadMeter, type FileBytes, type ModelFetch } from '../../../../src/core/engines/transformers/download-meter.ts';
import { downloadReporter } from '../../../../src/core/engines/transformers/loading.ts';

/** A fetch answering every URL with `body` (in 1 KiB chunks), or a one-byte range answer when asked for one. */
function bytesFetch(body: Uint8Array, headers: Record<string, string> = {}): ModelFetch {
  return async (_input, init) => {
    if (new Headers(init?.headers).get('Range')) return new Response(body.slice(0, 1), { status: 206, headers: { 'Content-Range': `bytes 0-0/${body.length}` } });
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < body.length; i += 1024) c.enqueue(body.slice(i, i + 1024));
        c.close();
      },
    });
    return new Response(stream, { status: 200, headers: { 'Content-Length': String(body.length), ...headers } });
  };
}

const payload = Uint8Array.from({ length: 10_000 }, (_, i) => (i * 31) % 251);

describe('DownloadMeter', () => {
  it('passes responses through untouched when no load listens', async () => {
    const base = bytesFetch(payload);
    const meter = new DownloadMeter(base);
    const res = await meter.fetch('http://models.local/m/onnx/model.onnx');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(payload);
  });

  it('counts every byte of a file during a load, with its Content-Length as the total, and keeps the bytes', async () => {
    const meter = new DownloadMeter(bytesFetch(payload));
    const seen: FileBytes[] = [];
    const body = await meter.during((b) => seen.push(b), async () => new Uint8Array(await (await meter.fetch('http://models.local/m/onnx/model.onnx')).arrayBuffer()));
    expect(body).toEqual(payload);
    expect(seen[0]).toEqual({ url: 'http://models.local/m/onnx/model.onnx', loaded: 0, total: payload.length });
    expect(seen.at(-1)).toEqual({ url: 'http://models.local/m/onnx/model.onnx', loaded: payload.length, total: payload.length });
    expect(seen.map((s) => s.loaded)).toEqual([...seen.map((s) => s.loaded)].sort((a, b) => a - b));
    // After the load, nothing is counted any more.
    const after = seen.length;
    await (await meter.fetch('http://models.local/m/config.json')).arrayBuffer();
    expect(seen).toHaveLength(after);
  });

  it('does not count range probes, and gives no total for a compressed body', async () => {
    const meter = new DownloadMeter(bytesFetch(payload, { 'Content-Encoding': 'gzip' }));
    const seen: FileBytes[] = [];
    await meter.during((b) => seen.push(b), async () => {
      await (await meter.fetch('http://models.local/m/a.onnx', { headers: { Range: 'bytes=0-0' } })).arrayBuffer();
      await (await meter.fetch('http://models.local/m/b.onnx')).arrayBuffer();
    });
    expect(new Set(seen.map((s) => s.url))).toEqual(new Set(['http://models.local/m/b.onnx']));
    expect(seen.every((s) => s.total === null)).toBe(true);
  });

  it('stops counting for a load that failed', async () => {
    const meter = new DownloadMeter(bytesFetch(payload));
    const seen: FileBytes[] = [];
    await expect(meter.during((b) => seen.push(b), async () => Promise.reject(new Error('no such model')))).rejects.toThrow('no such model');
    await (await meter.fetch('http://models.local/m/b.onnx')).arrayBuffer();
    expect(seen).toEqual([]);
  });
});

describe('downloadReporter', () => {
  it('adds up the files of one load and names the one that moved, as transformers.js names it', () => {
    const seen: Progress[] = [];
    const report = downloadReporter((p) => seen.push(p))!;
    report({ url: 'http://host/models/x/config.json', loaded: 100, total: 100 });
    report({ url: 'http://host/models/x/onnx/decoder_model_merged_q4.onnx', loaded: 50, total: 1000 });
    expect(seen.at(-1)).toEqual({ phase: 'download', done: 150, total: 1100, message: 'onnx/decoder_model_merged_q4.onnx' });
    report({ url: 'http://host/models/x/tokenizer.json', loaded: 10, total: null });
    expect(seen.at(-1)).toEqual({ phase: 'download', done: 160, message: 'tokenizer.json' });
  });

  it('is nothing without a progress callback', () => {
    expect(downloadReporter(undefined)).toBeUndefined();
  });
});
