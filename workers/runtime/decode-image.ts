/**
 * Worker-side image decoding for the degradation variants: turns the bytes a
 * benchmark item holds into raw 8-bit pixels. PNG goes through the pure
 * decoder (the same pixels in every browser and in Node); JPEG, WebP, GIF and
 * BMP go through the browser's own codecs (createImageBitmap and an
 * OffscreenCanvas), which workers have but Node does not. Browser decoders
 * may differ in the last bit between browsers (IDCT, chroma upsampling), so
 * only PNG sources are guaranteed to degrade to identical bytes everywhere.
 */
import { InvalidInputError, NeuroEvalError } from '../../src/core/errors.ts';
import { decodePng, type RawImage, rawImage, simplifyChannels } from '../../src/core/imaging/degrade/pixels.ts';
import { checkImageSize, readImageDimensions } from '../../src/core/imaging/dimensions.ts';
import { mimeFor, sniffImageType } from '../../src/core/imaging/sniff.ts';

/**
 * Decodes an image to pixels. The format is taken from the bytes; `mime` (the
 * declared type) only appears in error messages. Grayscale content (R = G = B and opaque
 * everywhere) comes back as 1 channel, opaque colour as 3, anything with
 * transparency as RGBA. Throws {@link InvalidInputError} for damaged or
 * unknown images.
 */
export async function decodeToRaw(bytes: Uint8Array, mime: string): Promise<RawImage> {
  const type = sniffImageType(bytes);
  if (type === 'png') return simplifyChannels(decodePng(bytes));
  if (type !== 'jpeg' && type !== 'webp' && type !== 'gif' && type !== 'bmp') {
    throw new InvalidInputError(`This file is not an image that can be degraded (detected: ${type ?? 'unknown'}, declared: ${mime || 'none'}).`);
  }
  // Refuse decompression bombs before the browser allocates the bitmap.
  checkImageSize(readImageDimensions(bytes, type));
  if (typeof createImageBitmap !== 'function' || typeof OffscreenCanvas !== 'function') {
    throw new NeuroEvalError('UNSUPPORTED', 'Decoding JPEG, WebP, GIF or BMP images needs createImageBitmap and OffscreenCanvas, which this browser lacks.');
  }
  let bitmap: ImageBitmap;
  try {
    // The sniffed type, not the declared one, labels the Blob; slice() gives a plain
    // ArrayBuffer-backed copy (Blob parts may not be SharedArrayBuffer views).
    bitmap = await createImageBitmap(new Blob([bytes.slice()], { type: mimeFor(type) }), {
      colorSpaceConversion: 'none',
      premultiplyAlpha: 'none',
      imageOrientation: 'from-image',
    });
  } catch (cause) {
    throw new InvalidInputError(`This ${type.toUpperCase()} image could not be decoded: ${cause instanceof Error ? cause.message : String(cause)}.`);
  }
  try {
    const { width, height } = bitmap;
    const ctx = new OffscreenCanvas(width, height).getContext('2d', { willReadFrequently: true });
    if (!ctx) throw new NeuroEvalError('UNSUPPORTED', 'This browser cannot read pixels from an OffscreenCanvas.');
    ctx.drawImage(bitmap, 0, 0);
    const rgba = ctx.getImageData(0, 0, width, height).data;
    return simplifyChannels(rawImage(width, height, 4, new Uint8Array(rgba.buffer, rgba.byteOffset, rgba.byteLength)));
  } finally {
    bitmap.close();
  }
}
