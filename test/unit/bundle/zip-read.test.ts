import { zipSync, strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readZip, unsafeEntryName } from '../../../src/core/bundle/zip-read.ts';

/** Builds a ZIP whose central directory can then be tampered with. */
function zip(files: Record<string, Uint8Array>, level: 0 | 6 = 6): Uint8Array {
  return zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, [v, { level }]])));
}

/** Rewrites the name of the first entry in both the local header and the central directory. */
function renameFirstEntry(bytes: Uint8Array, from: string, to: string): Uint8Array {
  if (from.length !== to.length) throw new Error('same length only');
  const out = bytes.slice();
  const a = strToU8(from);
  for (let i = 0; i < out.length - a.length; i++) {
    if (a.every((b, j) => out[i + j] === b)) out.set(strToU8(to), i);
  }
  return out;
}

describe('readZip', () => {
  it('reads entries and skips directories', () => {
    const entries = readZip(zip({ 'manifest.json': strToU8('{}'), 'images/a.png': new Uint8Array([1, 2, 3]) }), 'b.zip');
    expect([...entries.keys()].sort()).toEqual(['images/a.png', 'manifest.json']);
    expect(entries.get('images/a.png')).toEqual(new Uint8Array([1, 2, 3]));
  });

  it('refuses entries that climb out of the archive or are absolute', () => {
    const evil = renameFirstEntry(zip({ 'aa/evil.txt': strToU8('x') }), 'aa/evil.txt', '../evil.txt');
    expect(() => readZip(evil, 'evil.zip')).toThrow(/climbs out of the archive/);
    const abs = renameFirstEntry(zip({ 'xetc/passwd': strToU8('x') }), 'xetc/passwd', '/etc/passwd');
    expect(() => readZip(abs, 'abs.zip')).toThrow(/absolute path/);
    expect(unsafeEntryName('C:/x')).toMatch(/drive/);
    expect(unsafeEntryName('a\\b')).toMatch(/backslash/);
    expect(unsafeEntryName('images/ok.png')).toBeNull();
  });

  it('names the file when the archive is truncated or not a ZIP', () => {
    const good = zip({ 'cases.jsonl': strToU8('{"id":"a"}\n'.repeat(50)) });
    expect(() => readZip(good.subarray(0, good.length - 30), 'cut.zip')).toThrow(/"cut\.zip" is not a readable ZIP archive/);
    expect(() => readZip(strToU8('hello, not a zip'), 'text.zip')).toThrow(/text\.zip/);
  });

  it('refuses archives over the size caps before inflating them', () => {
    const big = zip({ 'a.bin': new Uint8Array(2048), 'b.bin': new Uint8Array(2048) }, 0);
    expect(() => readZip(big, 'big.zip', { maxTotalBytes: 3000, maxEntryBytes: 1e9, maxEntries: 10, maxRatio: 1e9 })).toThrow(/more than 3,000 bytes/);
    expect(() => readZip(big, 'big.zip', { maxTotalBytes: 1e9, maxEntryBytes: 1000, maxEntries: 10, maxRatio: 1e9 })).toThrow(/over the 1,000-byte limit per file/);
    expect(() => readZip(big, 'big.zip', { maxTotalBytes: 1e9, maxEntryBytes: 1e9, maxEntries: 1, maxRatio: 1e9 })).toThrow(/more than 1 files/);
  });

  it('refuses a zip bomb by its compression ratio', () => {
    const bomb = zip({ 'zeros.bin': new Uint8Array(20 * 1024 * 1024) });
    expect(bomb.length).toBeLessThan(40_000);
    expect(() => readZip(bomb, 'bomb.zip')).toThrow(/looks like a zip bomb/);
  });

  it('refuses an archive whose declared sizes lie', () => {
    const good = zip({ 'a.txt': strToU8('0123456789'.repeat(10)) }, 0);
    // Patch the uncompressed size (offset 24 in the central directory header) to claim fewer bytes.
    const bytes = good.slice();
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < bytes.length - 4; i++) {
      if (view.getUint32(i, true) === 0x02014b50) view.setUint32(i + 24, 50, true);
    }
    expect(() => readZip(bytes, 'liar.zip')).toThrow(/liar\.zip|declared|corrupt/);
  });
});
