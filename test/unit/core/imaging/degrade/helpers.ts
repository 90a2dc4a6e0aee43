/** Test images, a hand-rolled PNG writer (any filter, colour type, bit depth) and image statistics. */
import { zlibSync } from 'fflate';
import { paeth, type RawImage, rawImage } from '../../../../../src/core/imaging/degrade/pixels.ts';
import { concatBytes, pngChunk } from '../../../../../src/core/imaging/png-encode.ts';

/**
 * A 64×64 (by default) test picture with smooth shading, sharp edges and fine
 * texture, kept within 40…215 so ±noise rarely clips.
 */
export function testImage(width = 64, height = 64, channels: 1 | 3 | 4 = 1): RawImage {
  const data = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const shade = 60 + (x + y) * (80 / (width + height));
      const disk = (x - width / 2) ** 2 + (y - height / 2) ** 2 < (width / 4) ** 2 ? 50 : 0;
      const texture = ((x * 7 + y * 13) % 5) * 6;
      const v = Math.round(shade + disk + texture);
      const o = (y * width + x) * channels;
      data[o] = v;
      if (channels >= 3) {
        data[o + 1] = Math.min(255, v + 10);
        data[o + 2] = Math.max(0, v - (x % 20));
      }
      if (channels === 4) data[o + 3] = 128 + ((x * y) % 128);
    }
  }
  return rawImage(width, height, channels, data);
}

/** A flat image of one value. */
export function flatImage(width: number, height: number, value: number): RawImage {
  return rawImage(width, height, 1, new Uint8Array(width * height).fill(value));
}


export interface PngSpec {
  width: number;
  height: number;
  colorType: 0 | 2 | 3 | 4 | 6;
  depth?: number;
  /** Packed scanlines without filter bytes (samples already at `depth` bits). */
  lines: Uint8Array;
  /** Filter type per row (cycled). Default [0]. */
  filters?: readonly number[];
  palette?: Uint8Array;
  trns?: Uint8Array;
  interlace?: number;
  /** Split the zlib stream into this many IDAT chunks. */
  idatChunks?: number;
}

/** Writes a PNG from packed scanlines, applying the requested filter on each row. */
export function writePng(spec: PngSpec): Uint8Array {
  const { width, height, colorType, lines } = spec;
  const depth = spec.depth ?? 8;
  const samples = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[colorType];
  const stride = Math.ceil((width * samples * depth) / 8);
  const bpp = Math.max(1, (samples * depth) >> 3);
  const filters = spec.filters ?? [0];
  const raw = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const f = filters[y % filters.length]!;
    raw[y * (stride + 1)] = f;
    for (let x = 0; x < stride; x++) {
      const cur = lines[y * stride + x]!;
      const a = x >= bpp ? lines[y * stride + x - bpp]! : 0;
      const b = y > 0 ? lines[(y - 1) * stride + x]! : 0;
      const c = x >= bpp && y > 0 ? lines[(y - 1) * stride + x - bpp]! : 0;
      const pred = [0, a, b, (a + b) >> 1, paeth(a, b, c)][f] ?? 0;
      raw[y * (stride + 1) + 1 + x] = (cur - pred) & 0xff;
    }
  }
  const ihdr = new Uint8Array(13);
  new DataView(ihdr.buffer).setUint32(0, width);
  new DataView(ihdr.buffer).setUint32(4, height);
  ihdr.set([depth, colorType, 0, 0, spec.interlace ?? 0], 8);
  const z = zlibSync(raw);
  const parts = [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr)];
  if (spec.palette) parts.push(pngChunk('PLTE', spec.palette));
  if (spec.trns) parts.push(pngChunk('tRNS', spec.trns));
  const pieces = spec.idatChunks ?? 1;
  const step = Math.ceil(z.length / pieces);
  for (let i = 0; i < z.length; i += step) parts.push(pngChunk('IDAT', z.subarray(i, i + step)));
  parts.push(pngChunk('IEND', new Uint8Array(0)));
  return concatBytes(parts);
}

/** Mean and standard deviation of one channel. */
export function stats(img: RawImage, channel = 0): { mean: number; std: number } {
  const n = img.width * img.height;
  let s = 0;
  let s2 = 0;
  for (let p = 0; p < n; p++) {
    const v = img.data[p * img.channels + channel]!;
    s += v;
    s2 += v * v;
  }
  const mean = s / n;
  return { mean, std: Math.sqrt(Math.max(0, s2 / n - mean * mean)) };
}

/** Mean squared difference between horizontal and vertical neighbours: falls as detail is lost. */
export function highFrequencyEnergy(img: RawImage, channel = 0): number {
  const { width: w, height: h, channels: ch, data } = img;
  let e = 0;
  for (let y = 0; y < h - 1; y++) {
    for (let x = 0; x < w - 1; x++) {
      const v = data[(y * w + x) * ch + channel]!;
      e += (v - data[(y * w + x + 1) * ch + channel]!) ** 2 + (v - data[((y + 1) * w + x) * ch + channel]!) ** 2;
    }
  }
  return e / ((w - 1) * (h - 1));
}

/** Peak signal-to-noise ratio over the colour channels (Infinity when identical). */
export function psnr(a: RawImage, b: RawImage): number {
  const cc = Math.min(a.channels, b.channels, 3);
  let se = 0;
  const n = a.width * a.height;
  for (let p = 0; p < n; p++) {
    for (let c = 0; c < cc; c++) se += (a.data[p * a.channels + c]! - b.data[p * b.channels + c]!) ** 2;
  }
  return se === 0 ? Infinity : 10 * Math.log10((255 * 255) / (se / (n * cc)));
}
