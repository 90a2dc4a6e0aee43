import { zipSync, strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ZIP_LIMITS, readZip, unsafeEntryName, zipLimitsFrom } from '../../../../src/core/bundle/zip-read.ts';
import { deflated, forgeZip, stored } from '../../../support/zip-forge.ts';

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

  it('refuses an entry whose bytes do not match its CRC-32, naming it', () => {
    const entry = { ...deflated(strToU8('{"id":"a"}\n'.repeat(20))), name: 'cases.jsonl', method: 8 as const };
    const bytes = forgeZip([{ ...entry, crc: entry.crc ^ 1 }]);
    expect(() => readZip(bytes, 'crc.zip')).toThrow('"cases.jsonl" does not match its CRC-32 checksum: the archive is damaged or was altered.');
  });

  it('refuses an entry that unpacks to less than it declares', () => {
    const entry = { ...deflated(strToU8('x'.repeat(100))), name: 'a.txt', method: 8 as const };
    expect(() => readZip(forgeZip([{ ...entry, size: 150 }]), 'short.zip')).toThrow('"a.txt" unpacked to 100 bytes but the archive declared 150: the archive is corrupt.');
  });

  it('refuses unknown compression, encryption flags it cannot read, and stored entries whose two sizes differ', () => {
    const base = stored('a.txt', 'hello');
    expect(() => readZip(forgeZip([{ ...base, method: 12 as 0 }]), 'bz.zip')).toThrow(/"a\.txt" uses ZIP compression method 12; only stored \(0\) and deflate \(8\) can be read/);
    expect(() => readZip(forgeZip([{ ...base, size: 500 }]), 'stored.zip')).toThrow('"a.txt" is stored uncompressed but declares 500 bytes unpacked and 5 packed: the archive is corrupt or forged.');
    const encrypted = forgeZip([base]);
    const view = new DataView(encrypted.buffer);
    for (let i = 0; i < encrypted.length - 4; i++) if (view.getUint32(i, true) === 0x02014b50) view.setUint16(i + 8, 0x0801, true);
    expect(() => readZip(encrypted, 'locked.zip')).toThrow('"a.txt" is encrypted; NeuroEval reads only unencrypted archives.');
  });

  it('reads empty files, stored or deflated', () => {
    const entries = readZip(forgeZip([stored('empty.txt', ''), { ...deflated(new Uint8Array(0)), name: 'empty2.txt', method: 8 }]), 'e.zip');
    expect(entries.get('empty.txt')).toEqual(new Uint8Array(0));
    expect(entries.get('empty2.txt')).toEqual(new Uint8Array(0));
  });

  it('takes limits from import options over the defaults, and refuses nonsense', () => {
    expect(zipLimitsFrom(undefined)).toEqual(DEFAULT_ZIP_LIMITS);
    expect(zipLimitsFrom({ zipLimits: { maxRatio: 500 } })).toEqual({ ...DEFAULT_ZIP_LIMITS, maxRatio: 500 });
    expect(() => zipLimitsFrom({ zipLimits: { maxRatoi: 500 } })).toThrow(/Unknown ZIP limit "maxRatoi"/);
    expect(() => zipLimitsFrom({ zipLimits: { maxRatio: -1 } })).toThrow('The ZIP limit "maxRatio" must be a positive number.');
  });
});
