/**
 * Image width and height read from file headers only, without decoding pixels.
 * Knowing the size first lets importers refuse decompression bombs (a few KB
 * of PNG that decode to gigabytes) before a browser or a model tries to decode
 * them.
 */
import { InvalidInputError } from '../errors.ts';
import type { RasterImageType } from './sniff.ts';

export interface ImageDimensions {
  readonly width: number;
  readonly height: number;
}

/** Largest image accepted, in pixels (100 megapixels: far above any clinical slice or photo). */
export const MAX_IMAGE_PIXELS = 100_000_000;
/** Largest width or height accepted (the WebGPU/canvas texture limit on most devices). */
export const MAX_IMAGE_SIDE = 16_384;

const FORMAT_NAME: Record<RasterImageType, string> = { png: 'PNG', jpeg: 'JPEG', webp: 'WebP', gif: 'GIF', bmp: 'BMP' };

function corrupt(type: RasterImageType, detail: string, file?: string): InvalidInputError {
  return new InvalidInputError(`This ${FORMAT_NAME[type]} image is damaged or incomplete: ${detail}.`, file ? { file } : undefined);
}

/**
 * Reads the pixel size of a PNG, JPEG, WebP, GIF or BMP from its header.
 * Throws {@link InvalidInputError} when the header is truncated or corrupt.
 * It does not apply the size limits: call {@link checkImageSize} for that.
 */
export function readImageDimensions(bytes: Uint8Array, type: RasterImageType, file?: string): ImageDimensions {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let dims: ImageDimensions;
  switch (type) {
    case 'png':
      dims = pngDimensions(bytes, view, file);
      break;
    case 'jpeg':
      dims = jpegDimensions(bytes, view, file);
      break;
    case 'webp':
      dims = webpDimensions(bytes, view, file);
      break;
    case 'gif':
      if (bytes.length < 10) throw corrupt(type, 'the header is cut short', file);
      dims = { width: view.getUint16(6, true), height: view.getUint16(8, true) };
      break;
    case 'bmp':
      dims = bmpDimensions(bytes, view, file);
      break;
  }
  if (dims.width <= 0 || dims.height <= 0) throw corrupt(type, `the header gives an empty size (${dims.width} × ${dims.height})`, file);
  return dims;
}

function pngDimensions(bytes: Uint8Array, view: DataView, file?: string): ImageDimensions {
  // Signature (8) + chunk length (4) + "IHDR" (4) + width (4) + height (4).
  if (bytes.length < 24) throw corrupt('png', 'the header is cut short', file);
  if (String.fromCharCode(bytes[12]!, bytes[13]!, bytes[14]!, bytes[15]!) !== 'IHDR') {
    throw corrupt('png', 'the first chunk is not IHDR', file);
  }
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** SOFn markers carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but are not frames. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpegDimensions(bytes: Uint8Array, view: DataView, file?: string): ImageDimensions {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) throw corrupt('jpeg', 'it does not start with a JPEG marker', file);
  let pos = 2;
  for (;;) {
    if (pos >= bytes.length) throw corrupt('jpeg', 'the file ends before the frame header', file);
    if (bytes[pos] !== 0xff) throw corrupt('jpeg', `unexpected byte at offset ${pos} where a marker should be`, file);
    // Any number of 0xFF fill bytes may precede a marker code.
    while (pos < bytes.length && bytes[pos] === 0xff) pos++;
    if (pos >= bytes.length) throw corrupt('jpeg', 'the file ends before the frame header', file);
    const marker = bytes[pos]!;
    pos++;
    // Markers without a length field: TEM, RSTn, SOI.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) continue;
    if (marker === 0xd9 || marker === 0xda) throw corrupt('jpeg', 'no frame header (SOF) before the image data', file);
    if (pos + 2 > bytes.length) throw corrupt('jpeg', 'a segment header is cut short', file);
    const length = view.getUint16(pos);
    if (length < 2) throw corrupt('jpeg', `a segment at offset ${pos} has an invalid length`, file);
    if (isStartOfFrame(marker)) {
      // Length (2), precision (1), height (2), width (2).
      if (length < 7 || pos + 7 > bytes.length) throw corrupt('jpeg', 'the frame header is cut short', file);
      const height = view.getUint16(pos + 3);
      const width = view.getUint16(pos + 5);
      // Height 0 means "defined later by a DNL marker", which browsers do not support either.
      if (height === 0) throw corrupt('jpeg', 'the height is deferred to a DNL marker, which is not supported', file);
      return { width, height };
    }
    pos += length;
  }
}

function webpDimensions(bytes: Uint8Array, view: DataView, file?: string): ImageDimensions {
  if (bytes.length < 20) throw corrupt('webp', 'the header is cut short', file);
  const chunk = String.fromCharCode(bytes[12]!, bytes[13]!, bytes[14]!, bytes[15]!);
  switch (chunk) {
    case 'VP8 ': {
      // Frame tag (3 bytes) then the key-frame start code 9D 01 2A, then 14-bit sizes (top 2 bits are scaling).
      if (bytes.length < 30) throw corrupt('webp', 'the VP8 frame header is cut short', file);
      if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) throw corrupt('webp', 'the VP8 start code is missing', file);
      return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
    }
    case 'VP8L': {
      // Signature 0x2F, then width-1 and height-1 packed as two 14-bit fields.
      if (bytes.length < 25) throw corrupt('webp', 'the VP8L header is cut short', file);
      if (bytes[20] !== 0x2f) throw corrupt('webp', 'the VP8L signature is missing', file);
      const b = view.getUint32(21, true);
      return { width: (b & 0x3fff) + 1, height: ((b >>> 14) & 0x3fff) + 1 };
    }
    case 'VP8X': {
      // Flags (1) + reserved (3), then canvas width-1 and height-1 as 24-bit little-endian.
      if (bytes.length < 30) throw corrupt('webp', 'the VP8X header is cut short', file);
      const u24 = (o: number) => bytes[o]! | (bytes[o + 1]! << 8) | (bytes[o + 2]! << 16);
      return { width: u24(24) + 1, height: u24(27) + 1 };
    }
    default:
      throw corrupt('webp', `unknown first chunk "${chunk.replace(/[^\x20-\x7e]/g, '?')}"`, file);
  }
}

function bmpDimensions(bytes: Uint8Array, view: DataView, file?: string): ImageDimensions {
  if (bytes.length < 26) throw corrupt('bmp', 'the header is cut short', file);
  const dibSize = view.getUint32(14, true);
  // OS/2 BITMAPCOREHEADER uses 16-bit sizes; all later headers use 32-bit ones.
  if (dibSize === 12) return { width: view.getUint16(18, true), height: view.getUint16(20, true) };
  // A negative height marks a top-down bitmap; the size is its absolute value.
  return { width: view.getInt32(18, true), height: Math.abs(view.getInt32(22, true)) };
}

/**
 * Refuses images too large to decode safely (decompression bombs, or scans
 * exported at absurd resolution). Throws {@link InvalidInputError}.
 */
export function checkImageSize(dims: ImageDimensions, file?: string): void {
  const { width, height } = dims;
  const where = file ? { file } : undefined;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw new InvalidInputError(`This image has an invalid size (${width} × ${height} pixels).`, where);
  }
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    throw new InvalidInputError(
      `This image is ${width} × ${height} pixels; the largest side accepted is ${MAX_IMAGE_SIDE} pixels. Export it at a lower resolution.`,
      where,
    );
  }
  if (width * height > MAX_IMAGE_PIXELS) {
    throw new InvalidInputError(
      `This image is ${width} × ${height} pixels (${Math.round((width * height) / 1e6)} megapixels); the limit is ${MAX_IMAGE_PIXELS / 1e6} megapixels. Export it at a lower resolution.`,
      where,
    );
  }
}
