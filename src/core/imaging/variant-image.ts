/**
 * The pixels a run variant sends instead of the stored image: a degradation
 * (degrade/) or the left–right mirror of the consistency probe. Shared by the
 * app's runner worker and the CLI, so both send the same bytes.
 */
import { encodePng, type PngColor } from './png-encode.ts';
import { degradeImage, isDegradeVariant, type RawImage } from './degrade/index.ts';

/** The mirror probe's variant id (runner/variants.ts lists it). */
export const MIRROR_VARIANT = 'probe:mirror';

/** Whether `variant` changes the image's pixels (text-only and none do not). */
export function transformsPixels(variant: string): boolean {
  return variant === MIRROR_VARIANT || isDegradeVariant(variant);
}

/** The image flipped left to right: the patient's left appears where their right was, so a laterality answer must flip. */
export function mirrorImage(img: RawImage): RawImage {
  const { width, height, channels } = img;
  const out = new Uint8Array(img.data.length);
  for (let y = 0; y < height; y++) {
    const row = y * width * channels;
    for (let x = 0; x < width; x++) {
      const from = row + x * channels;
      const to = row + (width - 1 - x) * channels;
      for (let c = 0; c < channels; c++) out[to + c] = img.data[from + c]!;
    }
  }
  return { width, height, channels, data: out };
}

const PNG_COLOR: Record<RawImage['channels'], PngColor> = { 1: 'gray', 3: 'rgb', 4: 'rgba' };

/** The image a variant sends; `seed` (the stored image's hash) makes noise reproducible. */
export function variantImage(raw: RawImage, variant: string, seed: string): { bytes: Uint8Array; mime: 'image/png' | 'image/jpeg' } {
  if (variant === MIRROR_VARIANT) {
    const m = mirrorImage(raw);
    return { bytes: encodePng(m.data, m.width, m.height, PNG_COLOR[m.channels]), mime: 'image/png' };
  }
  return degradeImage(raw, variant, seed);
}
