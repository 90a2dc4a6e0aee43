import { zlibSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../../src/core/errors.ts';
import { decodePng, rawImage, simplifyChannels } from '../../../../../src/core/imaging/degrade/pixels.ts';
import { encodePng } from '../../../../../src/core/imaging/png-encode.ts';
import { testImage, writePng } from './helpers.ts';

const FILTERS = [0, 1, 2, 3, 4] as const;

describe('decodePng', () => {
  it.each([
    ['gray', 1],
    ['rgb', 3],
    ['rgba', 4],
  ] as const)('round-trips encodePng %s output', (color, channels) => {
    const img = testImage(33, 17, channels);
    const back = decodePng(encodePng(img.data, img.width, img.height, color));
    expect(back).toEqual(img);
  });

  describe.each([
    [0, 1],
    [2, 3],
    [6, 4],
  ] as const)('colour type %i', (colorType, channels) => {
    it.each(FILTERS)('reverses filter type %i on every row', (filter) => {
      const img = testImage(29, 11, channels);
      expect(decodePng(writePng({ width: 29, height: 11, colorType, lines: img.data, filters: [filter] }))).toEqual(img);
    });
  });

  it('reverses all five filters mixed row by row, across several IDAT chunks', () => {
    const img = testImage(40, 25, 3);
    const png = writePng({ width: 40, height: 25, colorType: 2, lines: img.data, filters: [4, 0, 3, 1, 2], idatChunks: 5 });
    expect(decodePng(png)).toEqual(img);
  });

  it('expands gray + alpha to RGBA', () => {
    const lines = Uint8Array.from([10, 255, 20, 128, 30, 0, 40, 64]); // 2×2, (gray, alpha) pairs
    const out = decodePng(writePng({ width: 2, height: 2, colorType: 4, lines, filters: [3, 4] }));
    expect(out.channels).toBe(4);
    expect(Array.from(out.data)).toEqual([10, 10, 10, 255, 20, 20, 20, 128, 30, 30, 30, 0, 40, 40, 40, 64]);
  });

  it('maps 8-bit palette images to RGB, and to RGBA when tRNS is present', () => {
    const palette = Uint8Array.from([0, 0, 0, 255, 0, 0, 0, 255, 0, 10, 20, 30]);
    const lines = Uint8Array.from([0, 1, 2, 3, 3, 2, 1, 0]); // 4×2
    const rgb = decodePng(writePng({ width: 4, height: 2, colorType: 3, lines, palette, filters: [1, 4] }));
    expect(rgb.channels).toBe(3);
    expect(Array.from(rgb.data.subarray(0, 12))).toEqual([0, 0, 0, 255, 0, 0, 0, 255, 0, 10, 20, 30]);
    const rgba = decodePng(writePng({ width: 4, height: 2, colorType: 3, lines, palette, trns: Uint8Array.from([0, 128]) }));
    expect(rgba.channels).toBe(4);
    // Entries past the end of tRNS are opaque.
    expect(Array.from(rgba.data.subarray(0, 16))).toEqual([0, 0, 0, 0, 255, 0, 0, 128, 0, 255, 0, 255, 10, 20, 30, 255]);
  });

  it('unpacks 1-, 2- and 4-bit palette and grayscale samples', () => {
    const palette = Uint8Array.from({ length: 16 * 3 }, (_, i) => i);
    // 5 pixels wide: indices 1,0,1,1,0 at 1 bit → 0b10110000
    expect(Array.from(decodePng(writePng({ width: 5, height: 1, colorType: 3, depth: 1, lines: Uint8Array.from([0b10110000]), palette })).data)).toEqual([
      3, 4, 5, 0, 1, 2, 3, 4, 5, 3, 4, 5, 0, 1, 2,
    ]);
    // 2-bit gray 0,1,2,3 → 0, 85, 170, 255 (two rows, Sub filter on the second)
    const g2 = decodePng(writePng({ width: 4, height: 2, colorType: 0, depth: 2, lines: Uint8Array.from([0b00011011, 0b11100100]), filters: [0, 1] }));
    expect(Array.from(g2.data)).toEqual([0, 85, 170, 255, 255, 170, 85, 0]);
    // 4-bit gray 15, 0, 8 (odd width: the last byte is half used)
    const g4 = decodePng(writePng({ width: 3, height: 1, colorType: 0, depth: 4, lines: Uint8Array.from([0xf0, 0x80]) }));
    expect(Array.from(g4.data)).toEqual([255, 0, 136]);
  });

  it('refuses 16-bit and interlaced images with an InvalidInputError that says why', () => {
    const sixteen = writePng({ width: 2, height: 1, colorType: 0, depth: 16, lines: new Uint8Array(4) });
    expect(() => decodePng(sixteen)).toThrow(InvalidInputError);
    expect(() => decodePng(sixteen)).toThrow(/16 bits per sample/);
    const interlaced = writePng({ width: 2, height: 2, colorType: 0, lines: new Uint8Array(4), interlace: 1 });
    expect(() => decodePng(interlaced)).toThrow(/interlaced/);
  });

  it('refuses damaged files', () => {
    const good = writePng({ width: 4, height: 4, colorType: 0, lines: new Uint8Array(16) });
    const cases: [Uint8Array, RegExp][] = [
      [good.subarray(0, 7), /signature/],
      [good.subarray(0, good.length - 12), /IEND/],
      [writePng({ width: 4, height: 4, colorType: 0, lines: new Uint8Array(16), filters: [5] }), /filter type 5/],
      [writePng({ width: 2, height: 1, colorType: 3, lines: Uint8Array.from([0, 2]), palette: new Uint8Array(6) }), /palette entry 2/],
      [writePng({ width: 2, height: 1, colorType: 3, lines: Uint8Array.from([0, 0]) }), /palette/],
      [writePng({ width: 2, height: 1, colorType: 2, depth: 4, lines: new Uint8Array(3) }), /bit depth 4/],
    ];
    for (const [bytes, message] of cases) {
      expect(() => decodePng(bytes)).toThrow(InvalidInputError);
      expect(() => decodePng(bytes)).toThrow(message);
    }
  });

  it('refuses image data shorter than the header promises, and never grows past it', () => {
    const png = writePng({ width: 8, height: 8, colorType: 0, lines: new Uint8Array(64) });
    // Replace the IDAT payload: too little data for 8 rows.
    const short = writePngWithIdat(png, zlibSync(new Uint8Array(20)));
    expect(() => decodePng(short)).toThrow(/shorter than the image size/);
    // Far too much data (a small bomb): decoding stops at the expected size.
    const big = writePngWithIdat(png, zlibSync(new Uint8Array(10_000_000)));
    expect(decodePng(big).data.length).toBe(64);
  });
});

describe('simplifyChannels', () => {
  it('drops opaque alpha and identical colour channels', () => {
    const rgba = rawImage(2, 1, 4, Uint8Array.from([5, 5, 5, 255, 9, 9, 9, 255]));
    expect(simplifyChannels(rgba)).toEqual(rawImage(2, 1, 1, Uint8Array.from([5, 9])));
    const color = rawImage(2, 1, 4, Uint8Array.from([5, 6, 5, 255, 9, 9, 9, 255]));
    expect(simplifyChannels(color)).toEqual(rawImage(2, 1, 3, Uint8Array.from([5, 6, 5, 9, 9, 9])));
  });

  it('keeps transparency and real colour as they are', () => {
    const translucent = rawImage(1, 1, 4, Uint8Array.from([5, 5, 5, 254]));
    expect(simplifyChannels(translucent)).toBe(translucent);
    const color = testImage(8, 8, 3);
    expect(simplifyChannels(color)).toBe(color);
  });
});

/** Rebuilds a PNG with its IDAT payload replaced (CRC is not checked by the decoder). */
function writePngWithIdat(png: Uint8Array, payload: Uint8Array): Uint8Array {
  const ihdrEnd = 8 + 25;
  const tail = Uint8Array.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
  const out = new Uint8Array(ihdrEnd + 12 + payload.length + tail.length);
  out.set(png.subarray(0, ihdrEnd));
  new DataView(out.buffer).setUint32(ihdrEnd, payload.length);
  out.set([0x49, 0x44, 0x41, 0x54], ihdrEnd + 4);
  out.set(payload, ihdrEnd + 8);
  out.set(tail, ihdrEnd + 12 + payload.length);
  return out;
}
