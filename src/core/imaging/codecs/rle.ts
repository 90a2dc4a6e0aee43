/**
 * DICOM RLE Lossless (PS3.5 Annex G). Hand-written: the format is a 64-byte
 * header and PackBits segments, and no maintained npm package decodes it
 * without bringing in a whole DICOM toolkit.
 */
import { InvalidInputError } from '../../errors.ts';

export interface RleFrameShape {
  readonly rows: number;
  readonly columns: number;
  readonly samplesPerPixel: number;
  readonly bitsAllocated: 8 | 16 | 32;
}

/**
 * Decodes one RLE frame into little-endian words of `bitsAllocated`, samples
 * interleaved (RGBRGB…). Segments hold one byte plane each, most significant
 * byte first, for each sample in turn.
 */
export function decodeRleFrame(frame: Uint8Array, shape: RleFrameShape, file?: string): Uint8Array {
  const bad = (detail: string) => new InvalidInputError(`This RLE-compressed DICOM frame is damaged: ${detail}.`, file ? { file } : undefined);
  if (frame.length < 64) throw bad('the 64-byte segment table is missing');
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const segments = view.getUint32(0, true);
  const bytesPerSample = shape.bitsAllocated / 8;
  const expected = bytesPerSample * shape.samplesPerPixel;
  if (segments !== expected) throw bad(`it has ${segments} segments where ${shape.bitsAllocated}-bit, ${shape.samplesPerPixel}-sample pixels need ${expected}`);
  const pixels = shape.rows * shape.columns;
  const out = new Uint8Array(pixels * expected);
  for (let s = 0; s < segments; s++) {
    const start = view.getUint32(4 + s * 4, true);
    const end = s + 1 < segments ? view.getUint32(8 + s * 4, true) : frame.length;
    if (start < 64 || end > frame.length || end < start) throw bad(`segment ${s + 1} points outside the frame`);
    const sample = Math.floor(s / bytesPerSample);
    // Segments run from the most significant byte; output words are little-endian.
    const byteInWord = bytesPerSample - 1 - (s % bytesPerSample);
    const offset = sample * bytesPerSample + byteInWord;
    const written = unpackBits(frame, start, end, out, offset, expected, pixels);
    if (written < pixels) throw bad(`segment ${s + 1} holds ${written} of ${pixels} bytes`);
  }
  return out;
}

/** PackBits: n ≥ 0 copies n+1 literal bytes, n in −127…−1 repeats the next byte 1−n times, −128 is a no-op. */
function unpackBits(src: Uint8Array, start: number, end: number, out: Uint8Array, offset: number, stride: number, count: number): number {
  let i = start;
  let n = 0;
  while (i < end && n < count) {
    const header = src[i++]!;
    if (header < 128) {
      const run = Math.min(header + 1, end - i, count - n);
      for (let k = 0; k < run; k++) out[offset + (n + k) * stride] = src[i + k]!;
      i += header + 1;
      n += run;
    } else if (header > 128) {
      if (i >= end) break;
      const value = src[i++]!;
      const run = Math.min(257 - header, count - n);
      for (let k = 0; k < run; k++) out[offset + (n + k) * stride] = value;
      n += run;
    }
  }
  return n;
}
