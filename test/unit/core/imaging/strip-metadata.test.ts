/**
 * Images are stored as pixels: every chunk, segment or block that is not
 * needed to draw them is removed, the pixels are untouched (a JPEG decodes to
 * the same samples, a PNG keeps its very IDAT bytes), and a clean image comes
 * back as the same array.
 */
import { unzlibSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readImageDimensions } from '../../../../src/core/imaging/dimensions.ts';
import { checkPixelData } from '../../../../src/core/imaging/pixel-data.ts';
import { sniffImageType } from '../../../../src/core/imaging/sniff.ts';
import { stripImageMetadata } from '../../../../src/core/imaging/strip-metadata.ts';
import { cleanJpeg, cleanPng, gifWithMetadata, jpegWithMetadata, pngChunk, pngWithMetadata, webpWithMetadata, withPngChunks } from '../../../support/hostile-images.ts';
import { decodeJpeg, parseJpeg } from './degrade/jpeg-reader.ts';

const MARKER = 'ZZIMGMARK';
const latin1 = (b: Uint8Array) => new TextDecoder('latin1').decode(b);

/** PNG chunk types in order. */
function pngChunks(png: Uint8Array): string[] {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const out: string[] = [];
  for (let pos = 8; pos + 12 <= png.length; pos += 12 + view.getUint32(pos)) out.push(latin1(png.subarray(pos + 4, pos + 8)));
  return out;
}

/** The concatenated IDAT data: the pixels, compressed. */
function idat(png: Uint8Array): Uint8Array {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const parts: number[] = [];
  for (let pos = 8; pos + 12 <= png.length; pos += 12 + view.getUint32(pos)) {
    if (latin1(png.subarray(pos + 4, pos + 8)) === 'IDAT') parts.push(...png.subarray(pos + 8, pos + 8 + view.getUint32(pos)));
  }
  return Uint8Array.from(parts);
}

describe('PNG', () => {
  it('keeps IHDR, IDAT and IEND and removes text, compressed text, EXIF, profiles and unknown chunks, naming each', () => {
    const png = pngWithMetadata(MARKER);
    expect(latin1(png)).toContain(MARKER);
    const { bytes, removed } = stripImageMetadata(png, 'png', 'scan.png');
    expect(removed).toEqual(['PNG text (tEXt)', 'PNG compressed text (zTXt)', 'PNG international text (iTXt)', 'PNG EXIF (eXIf)', 'PNG colour profile (iCCP)', 'PNG chunk "prVt"']);
    expect(pngChunks(bytes)).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect(latin1(bytes)).not.toContain(MARKER);
    // The pixels are the very same bytes, and the image still checks out.
    expect(unzlibSync(idat(bytes))).toEqual(unzlibSync(idat(png)));
    const dims = readImageDimensions(bytes, 'png');
    expect(dims).toEqual({ width: 16, height: 16 });
    expect(() => checkPixelData(bytes, 'png', dims)).not.toThrow();
  });

  it('keeps the chunks that change how pixels are drawn (tRNS, gAMA, sRGB), drops data after IEND', () => {
    const png = withPngChunks(cleanPng(4), [pngChunk('gAMA', Uint8Array.of(0, 0, 0xb1, 0x8f)), pngChunk('sRGB', Uint8Array.of(0)), pngChunk('tIME', Uint8Array.of(7, 0xe8, 1, 1, 0, 0, 0))], new TextEncoder().encode(`${MARKER} trailing`));
    const { bytes, removed } = stripImageMetadata(png, 'png');
    expect(pngChunks(bytes)).toEqual(['IHDR', 'gAMA', 'sRGB', 'IDAT', 'IEND']);
    expect(removed).toEqual(['PNG time stamp (tIME)', 'data after the end of the PNG']);
    expect(latin1(bytes)).not.toContain(MARKER);
  });

  it('returns a clean PNG as the same array', () => {
    const png = cleanPng(5);
    const out = stripImageMetadata(png, 'png');
    expect(out.bytes).toBe(png);
    expect(out.removed).toEqual([]);
  });

  it('refuses a chunk that runs past the end of the file', () => {
    const png = pngWithMetadata(MARKER);
    expect(() => stripImageMetadata(png.subarray(0, 60), 'png', 'cut.png')).toThrow('This PNG image is damaged or incomplete: the "tEXt" chunk runs past the end of the file (it was cut short).');
  });
});

describe('JPEG', () => {
  it('removes the JFIF thumbnail, EXIF, XMP, the colour profile, COM and what follows EOI; the image decodes to the same pixels', () => {
    const jpeg = jpegWithMetadata(MARKER);
    expect(latin1(jpeg)).toContain(MARKER);
    const { bytes, removed } = stripImageMetadata(jpeg, 'jpeg', 'photo.jpg');
    expect(removed).toEqual(['JPEG JFIF thumbnail (APP0)', 'JPEG EXIF (APP1)', 'JPEG XMP (APP1)', 'JPEG colour profile (APP2)', 'JPEG comment (COM)', 'data after the end of the JPEG']);
    expect(latin1(bytes)).not.toContain(MARKER);
    expect(latin1(bytes)).not.toContain('DOE JOHN');
    // What remains is exactly the encoder's own JPEG, which a strict reader decodes to the same samples.
    expect(bytes).toEqual(cleanJpeg(3));
    const parsed = parseJpeg(bytes);
    expect(parsed.markers.filter((m) => (m > 0xe0 && m <= 0xef) || m === 0xfe)).toEqual([]);
    expect(decodeJpeg(parsed).data).toEqual(decodeJpeg(parseJpeg(cleanJpeg(3))).data);
    expect(sniffImageType(bytes)).toBe('jpeg');
  });

  it('rewrites an Adobe segment to its fixed bytes, keeping its colour transform', () => {
    const jpeg = cleanJpeg(6);
    const adobe = Uint8Array.of(0xff, 0xee, 0, 14, 0x41, 0x64, 0x6f, 0x62, 0x65, 0, 101, 0x5a, 0x5a, 0x5a, 0x5a, 0);
    const { bytes, removed } = stripImageMetadata(Uint8Array.from([...jpeg.subarray(0, 20), ...adobe, ...jpeg.subarray(20)]), 'jpeg');
    expect(removed).toEqual([]);
    expect([...bytes.subarray(20, 36)]).toEqual([0xff, 0xee, 0, 14, 0x41, 0x64, 0x6f, 0x62, 0x65, 0, 100, 0, 0, 0, 0, 0]);
    expect(bytes.subarray(36)).toEqual(jpeg.subarray(20));
  });

  it('returns a clean JPEG as the same array', () => {
    const jpeg = cleanJpeg(7);
    expect(stripImageMetadata(jpeg, 'jpeg').bytes).toBe(jpeg);
  });
});

describe('WebP and GIF', () => {
  it('removes WebP EXIF and XMP and clears their VP8X flags', () => {
    const webp = webpWithMetadata(MARKER);
    const { bytes, removed } = stripImageMetadata(webp, 'webp');
    expect(removed).toEqual(['WebP EXIF (EXIF)', 'WebP XMP (XMP)']);
    expect(latin1(bytes)).not.toContain(MARKER);
    expect(latin1(bytes.subarray(12, 16))).toBe('VP8X');
    expect(bytes[20]! & 0x2c).toBe(0);
    // The RIFF size matches what is left.
    expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true)).toBe(bytes.length - 8);
    expect(readImageDimensions(bytes, 'webp')).toEqual({ width: 1, height: 1 });
  });

  it('removes a GIF comment and application block, keeping graphic control and the image', () => {
    const gif = gifWithMetadata(MARKER);
    const { bytes, removed } = stripImageMetadata(gif, 'gif');
    expect(removed).toEqual(['GIF comment', 'GIF application data']);
    expect(latin1(bytes)).not.toContain(MARKER);
    // Header, screen and two-colour table (19 bytes), then graphic control, the image and the trailer.
    expect([...bytes.subarray(19)]).toEqual([0x21, 0xf9, 4, 0, 0, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3b]);
  });
});
