/**
 * An image's pixel data checked against its header, without decoding pixels.
 * The size check (dimensions.ts) trusts the header; a header can lie both
 * ways: claim 10,000 × 10,000 and hold 8 × 8 (a browser then shows a blank or
 * garbled picture, and the model is sent something nobody looked at), or
 * claim a small image and inflate far past it. For PNG the zlib stream is
 * inflated in small steps, counting bytes and keeping none, and stopped as
 * soon as it passes what the header allows, so memory stays flat whatever
 * the file claims.
 *
 * JPEG, WebP and GIF are entropy-coded or LZW-coded per block: checking
 * them means decoding them, which the browser does anyway; they are left to
 * the header checks.
 */
import { Unzlib } from 'fflate';
import { InvalidInputError } from '../errors.ts';
import type { ImageDimensions } from './dimensions.ts';
import type { RasterImageType } from './sniff.ts';

/** Bits per sample allowed for each PNG colour type (PNG spec, table 11.1), and samples per pixel. */
const PNG_COLOUR_TYPES: ReadonlyMap<number, { depths: readonly number[]; samples: number }> = new Map([
  [0, { depths: [1, 2, 4, 8, 16], samples: 1 }],
  [2, { depths: [8, 16], samples: 3 }],
  [3, { depths: [1, 2, 4, 8], samples: 1 }],
  [4, { depths: [8, 16], samples: 2 }],
  [6, { depths: [8, 16], samples: 4 }],
]);

/** Adam7 passes: first column, first row, column step, row step. */
const ADAM7: readonly (readonly [number, number, number, number])[] = [
  [0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2],
];

const INPUT_STEP = 16 * 1024;

function damaged(detail: string, file?: string): InvalidInputError {
  return new InvalidInputError(`This PNG image is damaged or incomplete: ${detail}.`, file ? { file } : undefined);
}

/** Bytes of filtered scanlines a PNG of this size and pixel format must inflate to (one filter byte per row). */
export function pngDataBytes(width: number, height: number, bitsPerPixel: number, interlaced: boolean): number {
  const rows = (w: number, h: number) => (w > 0 && h > 0 ? h * (1 + Math.ceil((w * bitsPerPixel) / 8)) : 0);
  if (!interlaced) return rows(width, height);
  return ADAM7.reduce((sum, [x0, y0, dx, dy]) => sum + rows(Math.ceil((width - x0) / dx), Math.ceil((height - y0) / dy)), 0);
}

class TooMuch extends Error {}

function checkPng(bytes: Uint8Array, dims: ImageDimensions, file?: string): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // IHDR is the first chunk (dimensions.ts checked its type): 13 bytes from offset 16.
  if (view.getUint32(8) !== 13 || bytes.length < 33) throw damaged('the IHDR header chunk has the wrong length', file);
  const depth = bytes[24]!;
  const colour = bytes[25]!;
  const interlace = bytes[28]!;
  const format = PNG_COLOUR_TYPES.get(colour);
  if (!format || !format.depths.includes(depth)) throw damaged(`the header gives colour type ${colour} with ${depth}-bit samples, which PNG does not allow`, file);
  if (bytes[26] !== 0 || bytes[27] !== 0 || interlace > 1) throw damaged('the header names an unknown compression, filter or interlace method', file);
  const expected = pngDataBytes(dims.width, dims.height, format.samples * depth, interlace === 1);

  let inflated = 0;
  const inflater = new Unzlib((chunk) => {
    inflated += chunk.length;
    if (inflated > expected) throw new TooMuch();
  });
  let sawData = false;
  let pos = 8;
  try {
    while (pos + 8 <= bytes.length) {
      const length = view.getUint32(pos);
      const type = String.fromCharCode(bytes[pos + 4]!, bytes[pos + 5]!, bytes[pos + 6]!, bytes[pos + 7]!);
      if (pos + 12 + length > bytes.length) throw damaged(`the "${type.replace(/[^\x20-\x7e]/g, '?')}" chunk runs past the end of the file (it was cut short)`, file);
      if (type === 'IDAT') {
        sawData = true;
        for (let at = 0; at < length; at += INPUT_STEP) inflater.push(bytes.subarray(pos + 8 + at, pos + 8 + Math.min(length, at + INPUT_STEP)));
      }
      pos += 12 + length;
      if (type === 'IEND') break;
    }
    if (!sawData) throw damaged('it has no pixel data (no IDAT chunk)', file);
    inflater.push(new Uint8Array(0), true);
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    if (error instanceof TooMuch) throw damaged(`its pixel data holds more than the ${expected.toLocaleString('en')} bytes its header's ${dims.width} × ${dims.height} pixels need`, file);
    const detail = error instanceof Error ? error.message : String(error);
    if (!/unexpected EOF/i.test(detail)) throw damaged(`its compressed pixel data is corrupt (${detail})`, file);
    // A stream cut short is reported by the count below, which says how much is missing.
  }
  if (inflated < expected) {
    throw damaged(`its header says ${dims.width} × ${dims.height} pixels, but its pixel data holds only ${inflated.toLocaleString('en')} of the ${expected.toLocaleString('en')} bytes that size needs`, file);
  }
}

/**
 * Throws {@link InvalidInputError} when the image's data does not fit what its
 * header declares. Call after the size limits (dimensions.ts) have passed.
 */
export function checkPixelData(bytes: Uint8Array, type: RasterImageType, dims: ImageDimensions, file?: string): void {
  if (type === 'png') checkPng(bytes, dims, file);
}
