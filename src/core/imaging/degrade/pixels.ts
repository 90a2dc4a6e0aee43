/**
 * Raw 8-bit pixels and a pure PNG decoder, so degradation variants can be
 * computed identically in browsers, workers and Node (where no image codec is
 * available). Only what benchmark images use is supported: 8-bit samples
 * (1/2/4-bit for grayscale and palette), all colour types, all five filters,
 * no interlace. 16-bit and Adam7-interlaced PNGs are refused with a clear
 * message rather than decoded wrongly.
 */
import { unzlibSync } from 'fflate';
import { InvalidInputError } from '../../errors.ts';
import { checkImageSize } from '../dimensions.ts';

/** Row-major 8-bit pixels, channels interleaved: 1 = gray, 3 = RGB, 4 = RGBA. */
export interface RawImage {
  readonly width: number;
  readonly height: number;
  readonly channels: 1 | 3 | 4;
  readonly data: Uint8Array;
}

/** Builds a {@link RawImage}, checking that the buffer matches the size. */
export function rawImage(width: number, height: number, channels: 1 | 3 | 4, data: Uint8Array): RawImage {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw new RangeError(`rawImage: invalid size ${width}×${height}`);
  }
  if (data.length !== width * height * channels) {
    throw new RangeError(`rawImage: expected ${width * height * channels} bytes for ${width}×${height}×${channels}, got ${data.length}`);
  }
  return { width, height, channels, data };
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Samples per pixel for each PNG colour type. */
const SAMPLES: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const ALLOWED_DEPTHS: Record<number, readonly number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

function damaged(detail: string): InvalidInputError {
  return new InvalidInputError(`This PNG image is damaged or incomplete: ${detail}.`);
}

function unsupported(detail: string): InvalidInputError {
  return new InvalidInputError(`This PNG image cannot be degraded: ${detail}. Re-export it as an 8-bit, non-interlaced PNG.`);
}

interface Header {
  width: number;
  height: number;
  depth: number;
  colorType: number;
}

/**
 * Decodes a PNG into 8-bit pixels. Gray stays 1 channel, RGB 3; gray+alpha
 * becomes RGBA; palette becomes RGB, or RGBA when the palette has a tRNS
 * chunk. A tRNS colour key on gray or RGB images is ignored (the key colour
 * stays opaque). CRCs are not checked. Throws {@link InvalidInputError} for
 * damaged or unsupported files.
 */
export function decodePng(bytes: Uint8Array): RawImage {
  if (bytes.length < 8 || SIGNATURE.some((b, i) => bytes[i] !== b)) throw damaged('the PNG signature is missing');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let header: Header | undefined;
  let palette: Uint8Array | undefined;
  let paletteAlpha: Uint8Array | undefined;
  const idat: Uint8Array[] = [];
  let pos = 8;
  let ended = false;
  while (!ended) {
    if (pos + 8 > bytes.length) throw damaged('the file ends before the IEND chunk');
    const length = view.getUint32(pos);
    const type = String.fromCharCode(bytes[pos + 4]!, bytes[pos + 5]!, bytes[pos + 6]!, bytes[pos + 7]!);
    if (pos + 12 + length > bytes.length) throw damaged(`the ${type.replace(/[^\x20-\x7e]/g, '?')} chunk is cut short`);
    const data = bytes.subarray(pos + 8, pos + 8 + length);
    if (!header && type !== 'IHDR') throw damaged('the first chunk is not IHDR');
    switch (type) {
      case 'IHDR':
        header = readHeader(data);
        break;
      case 'PLTE':
        palette = data;
        break;
      case 'tRNS':
        if (header?.colorType === 3) paletteAlpha = data;
        break;
      case 'IDAT':
        idat.push(data);
        break;
      case 'IEND':
        ended = true;
        break;
    }
    pos += 12 + length;
  }
  if (!header) throw damaged('the IHDR chunk is missing');
  if (idat.length === 0) throw damaged('there is no image data (IDAT)');
  if (header.colorType === 3 && (!palette || palette.length % 3 !== 0 || palette.length === 0)) throw damaged('the palette (PLTE) is missing or invalid');
  const samples = unfilter(inflateAll(idat, header), header);
  return toRaw(samples, header, palette, paletteAlpha);
}

function readHeader(data: Uint8Array): Header {
  if (data.length !== 13) throw damaged('the IHDR chunk has the wrong length');
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const width = v.getUint32(0);
  const height = v.getUint32(4);
  const depth = data[8]!;
  const colorType = data[9]!;
  const allowed = ALLOWED_DEPTHS[colorType];
  if (!allowed) throw damaged(`unknown colour type ${colorType}`);
  if (!allowed.includes(depth)) throw damaged(`bit depth ${depth} is not valid for colour type ${colorType}`);
  if (data[10] !== 0 || data[11] !== 0) throw damaged('unknown compression or filter method');
  if (depth === 16) throw unsupported('it uses 16 bits per sample');
  if (data[12] === 1) throw unsupported('it is interlaced (Adam7)');
  if (data[12] !== 0) throw damaged('unknown interlace method');
  checkImageSize({ width, height });
  return { width, height, depth, colorType };
}

/** Bytes per scanline (without the filter byte) and bytes per complete pixel (at least 1). */
function geometry(h: Header): { stride: number; bpp: number } {
  const bitsPerPixel = h.depth * SAMPLES[h.colorType]!;
  return { stride: Math.ceil((h.width * bitsPerPixel) / 8), bpp: Math.max(1, bitsPerPixel >> 3) };
}

function inflateAll(idat: readonly Uint8Array[], h: Header): Uint8Array {
  const total = idat.reduce((n, d) => n + d.length, 0);
  const compressed = idat.length === 1 ? idat[0]! : new Uint8Array(total);
  if (idat.length > 1) {
    let o = 0;
    for (const d of idat) {
      compressed.set(d, o);
      o += d.length;
    }
  }
  const expected = (geometry(h).stride + 1) * h.height;
  let out: Uint8Array;
  try {
    // A buffer of exactly the expected size caps the output: a deflate bomb cannot grow it.
    out = unzlibSync(compressed, { out: new Uint8Array(expected) });
  } catch (cause) {
    throw damaged(`the compressed image data is invalid (${cause instanceof Error ? cause.message : String(cause)})`);
  }
  if (out.length < expected) throw damaged('the image data is shorter than the image size');
  return out;
}

/** Reverses the per-row filters in place and returns the unfiltered scanlines (no filter bytes). */
function unfilter(raw: Uint8Array, h: Header): Uint8Array {
  const { stride, bpp } = geometry(h);
  const out = new Uint8Array(stride * h.height);
  for (let y = 0; y < h.height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    const prev = row - stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? out[row + x - bpp]! : 0;
      const b = y > 0 ? out[prev + x]! : 0;
      let predictor: number;
      switch (filter) {
        case 0:
          predictor = 0;
          break;
        case 1:
          predictor = a;
          break;
        case 2:
          predictor = b;
          break;
        case 3:
          predictor = (a + b) >> 1;
          break;
        case 4:
          predictor = paeth(a, b, x >= bpp && y > 0 ? out[prev + x - bpp]! : 0);
          break;
        default:
          throw damaged(`row ${y} uses unknown filter type ${filter}`);
      }
      out[row + x] = (raw[src + x]! + predictor) & 0xff;
    }
  }
  return out;
}

/** The Paeth predictor from the PNG specification. */
export function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

/** Expands unfiltered scanlines into 8-bit gray, RGB or RGBA pixels. */
function toRaw(lines: Uint8Array, h: Header, palette?: Uint8Array, paletteAlpha?: Uint8Array): RawImage {
  const { width, height, depth, colorType } = h;
  const { stride } = geometry(h);
  const n = width * height;
  if (colorType === 0 && depth === 8) return rawImage(width, height, 1, lines);
  if (colorType === 2) return rawImage(width, height, 3, lines);
  if (colorType === 6) return rawImage(width, height, 4, lines);
  if (colorType === 4) {
    const out = new Uint8Array(n * 4);
    for (let i = 0; i < n; i++) {
      const g = lines[i * 2]!;
      out[i * 4] = out[i * 4 + 1] = out[i * 4 + 2] = g;
      out[i * 4 + 3] = lines[i * 2 + 1]!;
    }
    return rawImage(width, height, 4, out);
  }
  // Gray below 8 bits, or palette indices at any depth.
  const mask = (1 << depth) - 1;
  const indexAt = (x: number, y: number): number => {
    const bit = x * depth;
    return (lines[y * stride + (bit >> 3)]! >> (8 - depth - (bit & 7))) & mask;
  };
  if (colorType === 0) {
    const out = new Uint8Array(n);
    const scale = 255 / mask;
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) out[y * width + x] = Math.round(indexAt(x, y) * scale);
    return rawImage(width, height, 1, out);
  }
  const pal = palette!;
  const entries = pal.length / 3;
  const ch = paletteAlpha ? 4 : 3;
  const out = new Uint8Array(n * ch);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const idx = indexAt(x, y);
      if (idx >= entries) throw damaged(`a pixel refers to palette entry ${idx}, but the palette has ${entries}`);
      const o = (y * width + x) * ch;
      out[o] = pal[idx * 3]!;
      out[o + 1] = pal[idx * 3 + 1]!;
      out[o + 2] = pal[idx * 3 + 2]!;
      if (paletteAlpha) out[o + 3] = idx < paletteAlpha.length ? paletteAlpha[idx]! : 255;
    }
  }
  return rawImage(width, height, ch, out);
}

/**
 * The fewest channels that hold the same picture: alpha is dropped when every
 * pixel is opaque, and colour becomes gray when R = G = B everywhere (medical
 * images are often stored as RGB or RGBA but are grayscale). Returns the
 * input itself when nothing can be dropped.
 */
export function simplifyChannels(img: RawImage): RawImage {
  const { width, height, channels: ch, data } = img;
  if (ch === 1) return img;
  const n = width * height;
  let opaque = ch === 3;
  if (ch === 4) {
    opaque = true;
    for (let p = 3; p < data.length && opaque; p += 4) opaque = data[p] === 255;
  }
  let gray = true;
  for (let p = 0; p < data.length && gray; p += ch) gray = data[p] === data[p + 1] && data[p] === data[p + 2];
  if (!opaque) return img; // keep the alpha channel (RawImage has no gray+alpha form)
  if (!gray && ch === 3) return img;
  const outCh = gray ? 1 : 3;
  const out = new Uint8Array(n * outCh);
  for (let p = 0; p < n; p++) for (let c = 0; c < outCh; c++) out[p * outCh + c] = data[p * ch + c]!;
  return rawImage(width, height, outCh, out);
}
