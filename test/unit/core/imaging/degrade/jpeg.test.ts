import { describe, expect, it } from 'vitest';
import { encodeJpeg } from '../../../../../src/core/imaging/degrade/jpeg-encode.ts';
import { CHROMA_Q, LUMA_Q, scaleQuantTable, ZIGZAG } from '../../../../../src/core/imaging/degrade/jpeg-tables.ts';
import { rawImage } from '../../../../../src/core/imaging/degrade/pixels.ts';
import { SEVERITY_TABLE } from '../../../../../src/core/imaging/degrade/severities.ts';
import { readImageDimensions } from '../../../../../src/core/imaging/dimensions.ts';
import { sniffImageType } from '../../../../../src/core/imaging/sniff.ts';
import { psnr, testImage } from './helpers.ts';
import { decodeJpeg, parseJpeg } from './jpeg-reader.ts';

const gray = testImage(64, 48);
const color = testImage(50, 37, 3);

describe('JPEG tables', () => {
  it('scales the Annex K tables as libjpeg does', () => {
    expect(Array.from(scaleQuantTable(LUMA_Q, 50))).toEqual(LUMA_Q);
    expect(new Set(scaleQuantTable(LUMA_Q, 100))).toEqual(new Set([1]));
    expect(scaleQuantTable(LUMA_Q, 10)[0]).toBe(80); // 16 × 500 %
    expect(Math.max(...scaleQuantTable(CHROMA_Q, 1))).toBe(255); // clamped for baseline
  });

  it('orders coefficients in the standard zig-zag', () => {
    expect(ZIGZAG.slice(0, 10)).toEqual([0, 1, 8, 16, 9, 2, 3, 10, 17, 24]);
    expect([...ZIGZAG].sort((a, b) => a - b)).toEqual(Array.from({ length: 64 }, (_, i) => i));
  });
});

describe('encodeJpeg', () => {
  it('writes a complete baseline JFIF file: SOI, APP0, DQT, SOF0, DHT, SOS, scan, EOI', () => {
    const bytes = encodeJpeg(gray, { quality: 50 });
    expect(sniffImageType(bytes)).toBe('jpeg');
    expect(readImageDimensions(bytes, 'jpeg')).toEqual({ width: 64, height: 48 });
    const jpeg = parseJpeg(bytes);
    expect(jpeg.markers).toEqual([0xd8, 0xe0, 0xdb, 0xc0, 0xc4, 0xda, 0xd9]);
    expect(jpeg.precision).toBe(8);
    expect(jpeg.scan.data.length).toBeGreaterThan(0);
    expect(Array.from(bytes.subarray(-2))).toEqual([0xff, 0xd9]);
  });

  it('writes grayscale as one component and colour as YCbCr 4:2:0 or 4:4:4', () => {
    expect(parseJpeg(encodeJpeg(gray, { quality: 75 })).components).toEqual([{ id: 1, h: 1, v: 1, tq: 0 }]);
    const c420 = parseJpeg(encodeJpeg(color, { quality: 75 }));
    expect(c420.components).toEqual([
      { id: 1, h: 2, v: 2, tq: 0 },
      { id: 2, h: 1, v: 1, tq: 1 },
      { id: 3, h: 1, v: 1, tq: 1 },
    ]);
    expect(c420.quant.size).toBe(2);
    expect(c420.huffman.size).toBe(4);
    const c444 = parseJpeg(encodeJpeg(color, { quality: 75, subsampling: '444' }));
    expect(c444.components.map((c) => [c.h, c.v])).toEqual([
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
  });

  it('writes RGB whose channels are all equal as grayscale', () => {
    const rgb = rawImage(8, 8, 3, Uint8Array.from({ length: 192 }, (_, i) => Math.floor(i / 3) * 4));
    expect(parseJpeg(encodeJpeg(rgb, { quality: 75 })).components).toHaveLength(1);
  });

  it.each([
    ['gray', gray, '420'],
    ['colour 4:2:0', color, '420'],
    ['colour 4:4:4', color, '444'],
  ] as const)('%s decodes completely, with fidelity rising with quality', (_name, img, subsampling) => {
    let previous = 0;
    for (const quality of [5, 15, 30, 75, 95]) {
      const decoded = decodeJpeg(parseJpeg(encodeJpeg(img, { quality, subsampling })));
      expect([decoded.width, decoded.height]).toEqual([img.width, img.height]);
      const p = psnr(img, decoded);
      expect(p).toBeGreaterThan(previous);
      previous = p;
    }
    expect(previous).toBeGreaterThan(subsampling === '420' && img.channels === 3 ? 30 : 38);
  });

  it('gets smaller as quality drops through the severity levels', () => {
    const sizes = [90, ...SEVERITY_TABLE.jpeg].map((quality) => encodeJpeg(gray, { quality }).length);
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeLessThan(sizes[i - 1]!);
  });

  it('composites alpha over black', () => {
    const rgba = rawImage(8, 8, 4, Uint8Array.from({ length: 256 }, (_, i) => (i % 4 === 3 ? 0 : 200)));
    const decoded = decodeJpeg(parseJpeg(encodeJpeg(rgba, { quality: 95 })));
    expect(Math.max(...decoded.data)).toBeLessThan(3);
  });

  it('stuffs 0xFF bytes in the scan and still decodes exactly', () => {
    // Noise-like content at top quality makes long, varied codes: some bytes will be 0xFF.
    const noisy = rawImage(64, 64, 1, Uint8Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24));
    const jpeg = parseJpeg(encodeJpeg(noisy, { quality: 100 }));
    expect(jpeg.scan.stuffedBytes).toBeGreaterThan(0);
    expect(psnr(noisy, decodeJpeg(jpeg))).toBeGreaterThan(40);
  });

  it('handles 1×1, odd sizes and extreme values', () => {
    for (const [w, h] of [
      [1, 1],
      [7, 3],
      [17, 9],
    ] as const) {
      const img = rawImage(w, h, 3, Uint8Array.from({ length: w * h * 3 }, (_, i) => (i % 2 ? 255 : 0)));
      const bytes = encodeJpeg(img, { quality: 100, subsampling: '444' });
      expect(readImageDimensions(bytes, 'jpeg')).toEqual({ width: w, height: h });
      expect(decodeJpeg(parseJpeg(bytes)).width).toBe(w);
    }
    const black = decodeJpeg(parseJpeg(encodeJpeg(rawImage(8, 8, 1, new Uint8Array(64)), { quality: 100 })));
    expect(Math.max(...black.data)).toBeLessThanOrEqual(1);
  });

  it('is deterministic', () => {
    expect(encodeJpeg(color, { quality: 15 })).toEqual(encodeJpeg(color, { quality: 15 }));
  });
});
