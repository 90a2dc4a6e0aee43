/**
 * Minimal PNG encoder (8-bit grayscale, RGB or RGBA; no interlace). Used to
 * turn rendered DICOM/NIfTI slices and generated demo images into the PNG a
 * model receives, identically in the browser, in workers and in Node.
 */
import { zlibSync } from 'fflate';
import { crc32 } from '../hash/crc32.ts';

export type PngColor = 'gray' | 'rgb' | 'rgba';
const CHANNELS: Record<PngColor, number> = { gray: 1, rgb: 3, rgba: 4 };
const COLOR_TYPE: Record<PngColor, number> = { gray: 0, rgb: 2, rgba: 6 };

/** One PNG chunk: length, type, data, CRC-32 over type and data. */
export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/**
 * Encodes raw 8-bit pixels (row-major, channels interleaved) as PNG bytes.
 * Each row uses the "Up" filter, which compresses smooth medical images well.
 */
export function encodePng(pixels: Uint8Array, width: number, height: number, color: PngColor = 'gray'): Uint8Array {
  const ch = CHANNELS[color];
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw new RangeError(`encodePng: invalid size ${width}×${height}`);
  }
  if (pixels.length !== width * height * ch) {
    throw new RangeError(`encodePng: expected ${width * height * ch} bytes for ${width}×${height} ${color}, got ${pixels.length}`);
  }
  const stride = width * ch;
  const raw = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const o = y * (stride + 1);
    const row = y * stride;
    if (y === 0) {
      raw[o] = 0;
      raw.set(pixels.subarray(row, row + stride), o + 1);
    } else {
      raw[o] = 2; // Up
      for (let x = 0; x < stride; x++) raw[o + 1 + x] = (pixels[row + x]! - pixels[row - stride + x]!) & 0xff;
    }
  }
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr[8] = 8;
  ihdr[9] = COLOR_TYPE[color];
  const signature = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return concatBytes([signature, pngChunk('IHDR', ihdr), pngChunk('IDAT', zlibSync(raw, { level: 6 })), pngChunk('IEND', new Uint8Array(0))]);
}

/** The parts one after another in a new array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
