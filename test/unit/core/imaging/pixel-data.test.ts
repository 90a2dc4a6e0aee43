/**
 * PNG pixel data against the header: every valid PNG passes (each colour type,
 * 16-bit, interlaced), and a header that claims more or less than the data
 * holds is refused with what was expected and what was found.
 */
import { zlibSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { crc32 } from '../../../../src/core/hash/crc32.ts';
import { readImageDimensions } from '../../../../src/core/imaging/dimensions.ts';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';
import { checkPixelData, pngDataBytes } from '../../../../src/core/imaging/pixel-data.ts';
import { lyingPng } from '../../../support/hostile-archives.ts';

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set([...type].map((c) => c.charCodeAt(0)), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** A PNG with the given header fields and raw (filtered) scanline bytes, split over `idats` IDAT chunks. */
function pngOf(o: { width: number; height: number; depth: number; colour: number; interlace?: number; raw: Uint8Array; idats?: number }): Uint8Array {
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, o.width);
  v.setUint32(4, o.height);
  ihdr.set([o.depth, o.colour, 0, 0, o.interlace ?? 0], 8);
  const z = zlibSync(o.raw);
  const n = o.idats ?? 1;
  const step = Math.ceil(z.length / n);
  const parts = [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr)];
  for (let i = 0; i < n; i++) parts.push(chunk('IDAT', z.subarray(i * step, (i + 1) * step)));
  parts.push(chunk('IEND', new Uint8Array(0)));
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function check(png: Uint8Array): void {
  checkPixelData(png, 'png', readImageDimensions(png, 'png'), 'scan.png');
}

function message(fn: () => void): string {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('PNG pixel data', () => {
  it('accepts what the app itself writes', () => {
    check(encodePng(new Uint8Array(300 * 200).fill(7), 300, 200));
  });

  it('accepts every colour type and bit depth, interlaced or not, over several IDAT chunks', () => {
    const cases = [
      { depth: 1, colour: 0, bits: 1 },
      { depth: 16, colour: 0, bits: 16 },
      { depth: 8, colour: 2, bits: 24 },
      { depth: 4, colour: 3, bits: 4 },
      { depth: 16, colour: 4, bits: 32 },
      { depth: 8, colour: 6, bits: 32 },
    ];
    for (const c of cases) {
      for (const interlace of [0, 1]) {
        const raw = new Uint8Array(pngDataBytes(13, 7, c.bits, interlace === 1));
        check(pngOf({ width: 13, height: 7, depth: c.depth, colour: c.colour, interlace, raw, idats: 3 }));
      }
    }
  });

  it('counts Adam7 passes as the PNG specification does', () => {
    // 8 × 8 at 8 bits: passes are 1×1, 1×1, 2×1, 2×2, 4×2, 4×4, 8×4 pixels, each row with a filter byte.
    expect(pngDataBytes(8, 8, 8, true)).toBe(2 + 2 + 3 + 2 * 3 + 2 * 5 + 4 * 5 + 4 * 9);
    expect(pngDataBytes(1, 1, 8, true)).toBe(2);
  });

  it('refuses a header of 10000 × 10000 over 8 × 8 pixels of data', () => {
    const png = lyingPng();
    expect(message(() => check(png))).toBe(
      'This PNG image is damaged or incomplete: its header says 10000 × 10000 pixels, but its pixel data holds only 72 of the 100,010,000 bytes that size needs.',
    );
  });

  it('refuses data that inflates past the header, and stops there', () => {
    const raw = new Uint8Array(4 * 1024 * 1024);
    const png = pngOf({ width: 4, height: 4, depth: 8, colour: 0, raw });
    expect(message(() => check(png))).toBe("This PNG image is damaged or incomplete: its pixel data holds more than the 20 bytes its header's 4 × 4 pixels need.");
  });

  it('refuses a file cut short and a colour type PNG does not have', () => {
    const good = encodePng(new Uint8Array(64 * 64).fill(1), 64, 64);
    expect(message(() => check(good.subarray(0, good.length - 20)))).toMatch(/^This PNG image is damaged or incomplete: the "IDAT" chunk runs past the end of the file \(it was cut short\)\.$/);
    const raw = new Uint8Array(pngDataBytes(4, 4, 8, false));
    expect(message(() => check(pngOf({ width: 4, height: 4, depth: 8, colour: 5, raw })))).toBe(
      'This PNG image is damaged or incomplete: the header gives colour type 5 with 8-bit samples, which PNG does not allow.',
    );
  });
});
