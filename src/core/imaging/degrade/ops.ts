/**
 * Deterministic pixel operations behind the degradation variants. Each takes
 * a {@link RawImage} and returns a new one of the same size and channel
 * count; the alpha channel (if any) is never changed.
 *
 * Same input, same parameters, same seed → same bytes, in every browser,
 * worker and Node version. JavaScript's Math.exp/log/cos are only
 * "implementation-approximated", so nothing here lets their last bits reach
 * a pixel: noise is drawn with integer-exact arithmetic (no Box–Muller), and
 * the blur kernel is quantised to integer weights before use.
 */
import { type RawImage, rawImage } from './pixels.ts';
import { mulberry32 } from '../../random/mulberry32.ts';

/** Number of colour channels (alpha excluded). */
function colorChannels(img: RawImage): number {
  return img.channels === 4 ? 3 : img.channels;
}

function clampByte(v: number): number {
  return v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
}

/** A 32-bit hash of a string (FNV-1a over UTF-16 code units, then avalanched). */
export function hashSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export { mulberry32 };

/**
 * Approximately standard-normal samples: the sum of 12 uniforms minus 6
 * (Irwin–Hall; mean 0, variance 1, tails cut at ±6). Every step is exact in
 * double precision, so the samples are identical on every engine.
 */
export function gaussianSource(uniform: () => number): () => number {
  return () => {
    let s = -6;
    for (let i = 0; i < 12; i++) s += uniform();
    return s;
  };
}

/**
 * Adds zero-mean Gaussian noise of standard deviation `sigma` (0–255 scale).
 * One sample per pixel is added to every colour channel (luminance noise), so
 * grayscale images stored as RGB stay gray.
 */
export function addGaussianNoise(img: RawImage, sigma: number, seed: number): RawImage {
  const { data, channels } = img;
  const cc = colorChannels(img);
  const normal = gaussianSource(mulberry32(seed));
  const out = new Uint8Array(data);
  for (let p = 0; p < data.length; p += channels) {
    const n = normal() * sigma;
    for (let c = 0; c < cc; c++) out[p + c] = clampByte(data[p + c]! + n);
  }
  return rawImage(img.width, img.height, channels, out);
}

/** Fixed-point scale of the blur kernel: weights are integers summing to exactly this. */
export const KERNEL_ONE = 1 << 16;

/**
 * 1-D Gaussian kernel of radius ⌈3σ⌉ as integer weights summing to
 * {@link KERNEL_ONE}. Rounding to 1/65 536 hides the last-bit differences
 * between engines' Math.exp, so the kernel is the same everywhere.
 */
export function gaussianKernel(sigma: number): Int32Array {
  const radius = Math.max(1, Math.ceil(3 * sigma));
  const real = new Float64Array(2 * radius + 1);
  let sum = 0;
  for (let i = -radius; i <= radius; i++) sum += real[i + radius] = Math.exp(-(i * i) / (2 * sigma * sigma));
  const k = new Int32Array(real.length);
  let total = 0;
  for (let i = 0; i < k.length; i++) total += k[i] = Math.round((real[i]! / sum) * KERNEL_ONE);
  k[radius]! += KERNEL_ONE - total; // exact normalisation: brightness is preserved
  return k;
}

/**
 * Gaussian blur with standard deviation `sigma` pixels: separable, edges
 * clamped, integer arithmetic throughout (sums stay below 2^53, so exact).
 */
export function gaussianBlur(img: RawImage, sigma: number): RawImage {
  const { width: w, height: h, channels: ch, data } = img;
  const cc = colorChannels(img);
  const k = gaussianKernel(sigma);
  const r = (k.length - 1) / 2;
  const tmp = new Float64Array(w * h * ch);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      for (let c = 0; c < cc; c++) {
        let s = 0;
        for (let i = -r; i <= r; i++) s += k[i + r]! * data[(y * w + Math.min(w - 1, Math.max(0, x + i))) * ch + c]!;
        tmp[(y * w + x) * ch + c] = s;
      }
    }
  }
  const out = new Uint8Array(data);
  const scale = KERNEL_ONE * KERNEL_ONE;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      for (let c = 0; c < cc; c++) {
        let s = 0;
        for (let i = -r; i <= r; i++) s += k[i + r]! * tmp[(Math.min(h - 1, Math.max(0, y + i)) * w + x) * ch + c]!;
        out[(y * w + x) * ch + c] = clampByte(s / scale);
      }
    }
  }
  return rawImage(w, h, ch, out);
}

/**
 * Reduces contrast: every colour sample moves towards the image mean,
 * `out = mean + factor × (in − mean)`. The mean is taken over all colour
 * samples together, so hues are kept and the standard deviation shrinks by
 * `factor` (up to rounding).
 */
export function reduceContrast(img: RawImage, factor: number): RawImage {
  const { data, channels } = img;
  const cc = colorChannels(img);
  let sum = 0;
  for (let p = 0; p < data.length; p += channels) for (let c = 0; c < cc; c++) sum += data[p + c]!;
  const mean = sum / ((data.length / channels) * cc);
  const out = new Uint8Array(data);
  for (let p = 0; p < data.length; p += channels) {
    for (let c = 0; c < cc; c++) out[p + c] = clampByte(mean + factor * (data[p + c]! - mean));
  }
  return rawImage(img.width, img.height, channels, out);
}

/**
 * Loses detail by resolution: averages k×k boxes (a partial box at the right
 * and bottom edges averages what it covers), then scales back up to the
 * original size with bilinear interpolation (pixel centres aligned, edges
 * clamped). The output has the input's size, so only detail changes.
 */
export function downsample(img: RawImage, k: number): RawImage {
  const { width: w, height: h, channels: ch, data } = img;
  const cc = colorChannels(img);
  const f = Math.max(1, Math.round(k));
  const sw = Math.ceil(w / f);
  const sh = Math.ceil(h / f);
  const small = new Float64Array(sw * sh * cc);
  for (let sy = 0; sy < sh; sy++) {
    for (let sx = 0; sx < sw; sx++) {
      const y1 = Math.min(h, (sy + 1) * f);
      const x1 = Math.min(w, (sx + 1) * f);
      const count = (y1 - sy * f) * (x1 - sx * f);
      for (let c = 0; c < cc; c++) {
        let s = 0;
        for (let y = sy * f; y < y1; y++) for (let x = sx * f; x < x1; x++) s += data[(y * w + x) * ch + c]!;
        small[(sy * sw + sx) * cc + c] = s / count;
      }
    }
  }
  // Source coordinates per output column, computed once.
  const col0 = new Int32Array(w);
  const col1 = new Int32Array(w);
  const colT = new Float64Array(w);
  for (let x = 0; x < w; x++) {
    const fx = Math.min(sw - 1, Math.max(0, (x + 0.5) / f - 0.5));
    col0[x] = Math.floor(fx);
    col1[x] = Math.min(sw - 1, col0[x]! + 1);
    colT[x] = fx - col0[x]!;
  }
  const out = new Uint8Array(data);
  for (let y = 0; y < h; y++) {
    const fy = Math.min(sh - 1, Math.max(0, (y + 0.5) / f - 0.5));
    const r0 = Math.floor(fy) * sw;
    const r1 = Math.min(sh - 1, Math.floor(fy) + 1) * sw;
    const ty = fy - Math.floor(fy);
    for (let x = 0; x < w; x++) {
      const a = (r0 + col0[x]!) * cc;
      const b = (r0 + col1[x]!) * cc;
      const c0 = (r1 + col0[x]!) * cc;
      const d = (r1 + col1[x]!) * cc;
      const tx = colT[x]!;
      for (let c = 0; c < cc; c++) {
        const top = small[a + c]! + (small[b + c]! - small[a + c]!) * tx;
        const bottom = small[c0 + c]! + (small[d + c]! - small[c0 + c]!) * tx;
        out[(y * w + x) * ch + c] = clampByte(top + (bottom - top) * ty);
      }
    }
  }
  return rawImage(w, h, ch, out);
}
