import { deflateSync, gzipSync, zlibSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../src/core/errors.ts';
import * as imaging from '../../../../src/core/imaging/index.ts';
import { BoundedInflater } from '../../../../src/core/imaging/inflate.ts';
import { formatBytes } from '../../../../src/core/text/units.ts';

// Pseudo-random bytes: they compress poorly, so the stream spans many input steps.
let seed = 7;
const data = Uint8Array.from({ length: 200_000 }, () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24);

/** Byte equality without vitest's slow element-by-element diffing of large arrays. */
function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

describe('BoundedInflater', () => {
  it.each([
    ['gzip', gzipSync(data)],
    ['deflate', deflateSync(data)],
    ['zlib', zlibSync(data)],
  ] as const)('decompresses %s fully or only as far as asked', (format, compressed) => {
    expect(compressed.length).toBeGreaterThan(100_000);
    expect(same(new BoundedInflater(compressed, format).takeAll(), data)).toBe(true);
    const partial = new BoundedInflater(compressed, format);
    expect(same(partial.take(1000), data.subarray(0, 1000))).toBe(true);
    expect(partial.done).toBe(false);
    expect(partial.available).toBeLessThan(data.length);
    expect(same(partial.take(10), data.subarray(0, 10))).toBe(true);
  });

  it('stops a decompression bomb at the cap', () => {
    const bomb = gzipSync(new Uint8Array(50 * 1024 * 1024)); // ~50 KB that expands to 50 MiB
    expect(bomb.length).toBeLessThan(100_000);
    expect(() => new BoundedInflater(bomb, 'gzip', 1024 * 1024, 'bomb.nii.gz').takeAll()).toThrow(/expands to more than 1 MiB/);
    // The start of the stream is still available within the cap.
    expect(new BoundedInflater(bomb, 'gzip', 1024 * 1024).take(4096)).toHaveLength(4096);
    expect(() => new BoundedInflater(bomb, 'gzip', 1024 * 1024).take(2 * 1024 * 1024)).toThrow(InvalidInputError);
  });

  it('reports corrupt input as a typed error', () => {
    const corrupt = gzipSync(data);
    corrupt.fill(0xff, 10, 60);
    expect(() => new BoundedInflater(corrupt, 'gzip').takeAll()).toThrow(/compressed data in this file is corrupt/);
  });

  it('serves the start of a truncated stream but refuses to pretend it is whole', () => {
    const cut = deflateSync(data).subarray(0, 60_000);
    expect(same(new BoundedInflater(cut, 'deflate').take(1000), data.subarray(0, 1000))).toBe(true);
    expect(() => new BoundedInflater(cut, 'deflate').takeAll()).toThrow(/ends early/);
  });

  it('tolerates junk after a complete gzip stream when the data asked for is intact', () => {
    const gz = gzipSync(data);
    const withJunk = new Uint8Array(gz.length + 16);
    withJunk.set(gz);
    expect(same(new BoundedInflater(withJunk, 'gzip').take(data.length), data)).toBe(true);
    expect(() => new BoundedInflater(withJunk, 'gzip').take(data.length + 1)).toThrow(/corrupt/);
  });

  it('formats sizes for messages', () => {
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(2 * 1024 ** 3)).toBe('2 GiB');
  });
});

describe('imaging barrel', () => {
  it('exposes the public API', () => {
    for (const name of ['sniffImageType', 'readImageDimensions', 'parseDicom', 'parseNifti', 'encodeVolume', 'decodeVolume', 'renderDicomFrame', 'renderNiftiSlice', 'renderVolumeSlice', 'applyWindow', 'encodePng']) {
      expect(typeof (imaging as Record<string, unknown>)[name]).toBe('function');
    }
  });
});
