/**
 * Thumbnails for reports: an image shrunk to fit a square of `max` pixels by
 * averaging the source pixels each output pixel covers (no aliasing from
 * skipped rows), then encoded as PNG. A thumbnail carries pixels only: no
 * metadata of the source file survives, so nothing identifying rides along.
 */
import type { RawImage } from './degrade/pixels.ts';
import { encodePng, type PngColor } from './png-encode.ts';

/** The longest side of a report thumbnail, in pixels. */
export const THUMBNAIL_SIDE = 160;

/** Shrinks an image to fit `max`×`max` (area average); an image already that small is returned as it is. */
export function shrinkToFit(img: RawImage, max = THUMBNAIL_SIDE): RawImage {
  const scale = Math.min(1, max / Math.max(img.width, img.height));
  if (scale === 1) return img;
  const w = Math.max(1, Math.round(img.width * scale));
  const h = Math.max(1, Math.round(img.height * scale));
  const ch = img.channels;
  const out = new Uint8Array(w * h * ch);
  for (let y = 0; y < h; y++) {
    const y0 = Math.floor((y * img.height) / h);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * img.height) / h));
    for (let x = 0; x < w; x++) {
      const x0 = Math.floor((x * img.width) / w);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * img.width) / w));
      const count = (y1 - y0) * (x1 - x0);
      for (let c = 0; c < ch; c++) {
        let s = 0;
        for (let sy = y0; sy < y1; sy++) for (let sx = x0; sx < x1; sx++) s += img.data[(sy * img.width + sx) * ch + c]!;
        out[(y * w + x) * ch + c] = Math.round(s / count);
      }
    }
  }
  return { width: w, height: h, channels: ch, data: out };
}

const COLOR: Record<RawImage['channels'], PngColor> = { 1: 'gray', 3: 'rgb', 4: 'rgba' };

/** Base64 without Node's Buffer (runs in workers too), chunked to stay under call-argument limits. */
function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** A `data:image/png` URL of the image shrunk to fit {@link THUMBNAIL_SIDE}. */
export function thumbnailDataUrl(img: RawImage, max = THUMBNAIL_SIDE): string {
  const small = shrinkToFit(img, max);
  return `data:image/png;base64,${toBase64(encodePng(small.data, small.width, small.height, COLOR[small.channels]))}`;
}
