/**
 * Native (uncompressed) pixel data decoding: byte order, BitsStored/HighBit
 * masking, sign extension and planar-to-interleaved conversion, so that the
 * rest of the code sees plain numbers.
 */
import { InvalidInputError } from '../../errors.ts';
import type { DroppedTag } from './deidentify.ts';
import type { DicomImageHeader, DicomPixelArray, ParsedDicom } from './types.ts';

const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function where(file?: string) {
  return file ? { file } : undefined;
}

/** Samples per frame (rows × columns × samples per pixel). */
function frameSampleCount(h: Pick<DicomImageHeader, 'rows' | 'columns' | 'samplesPerPixel'>): number {
  return h.rows * h.columns * h.samplesPerPixel;
}

/** Reads `count` unsigned words of `bytes` per byte, honouring byte order without alignment assumptions. */
function readWords(value: Uint8Array, count: number, bits: 8 | 16 | 32, littleEndian: boolean, vr: string): Uint8Array | Uint16Array | Uint32Array {
  if (bits === 8) {
    // 8-bit data encoded as OW in big endian is byte-swapped in pairs (PS3.5 §A.3 note); OB never is.
    if (!littleEndian && vr === 'OW') {
      const out = new Uint8Array(count);
      for (let i = 0; i < count; i++) out[i] = value[i ^ 1] ?? 0;
      return out;
    }
    return value.slice(0, count);
  }
  const size = bits / 8;
  const aligned = value.byteOffset % size === 0;
  if (littleEndian === HOST_LITTLE_ENDIAN && aligned) {
    // Fast path: copy the bytes straight into a typed array.
    const src = bits === 16 ? new Uint16Array(value.buffer, value.byteOffset, count) : new Uint32Array(value.buffer, value.byteOffset, count);
    return src.slice();
  }
  const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
  if (bits === 16) {
    const out = new Uint16Array(count);
    for (let i = 0; i < count; i++) out[i] = view.getUint16(i * 2, littleEndian);
    return out;
  }
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getUint32(i * 4, littleEndian);
  return out;
}

/** Keeps bits HighBit-BitsStored+1 … HighBit, sign-extending when PixelRepresentation is 1. Also applied to decoded compressed frames. */
export function maskAndSign(raw: Uint8Array | Uint16Array | Uint32Array, h: DicomImageHeader): DicomPixelArray {
  const signed = h.pixelRepresentation === 1;
  const shift = Math.max(0, h.highBit + 1 - h.bitsStored);
  if (h.bitsStored >= h.bitsAllocated && shift === 0) {
    if (!signed) return raw;
    // Same bits, signed view: no per-sample work.
    if (raw instanceof Uint8Array) return new Int8Array(raw.buffer, raw.byteOffset, raw.length);
    if (raw instanceof Uint16Array) return new Int16Array(raw.buffer, raw.byteOffset, raw.length);
    return new Int32Array(raw.buffer, raw.byteOffset, raw.length);
  }
  const bits = h.bitsStored;
  const mask = bits >= 32 ? 0xffffffff : 2 ** bits - 1;
  const signBit = 2 ** (bits - 1);
  const full = 2 ** bits;
  const out: DicomPixelArray = signed
    ? h.bitsAllocated === 8 ? new Int8Array(raw.length) : h.bitsAllocated === 16 ? new Int16Array(raw.length) : new Int32Array(raw.length)
    : h.bitsAllocated === 8 ? new Uint8Array(raw.length) : h.bitsAllocated === 16 ? new Uint16Array(raw.length) : new Uint32Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const v = (raw[i]! >>> shift) & mask;
    const u = v < 0 ? v + 0x100000000 : v; // `& 0xffffffff` yields a signed 32-bit number
    out[i] = signed && u >= signBit ? u - full : u;
  }
  return out;
}

/** Planar configuration 1 stores RRR…GGG…BBB per frame; everything downstream expects RGBRGB…. */
function interleave(data: DicomPixelArray, h: DicomImageHeader): DicomPixelArray {
  const plane = h.rows * h.columns;
  const out = new (data.constructor as new (n: number) => DicomPixelArray)(data.length);
  for (let f = 0; f < h.numberOfFrames; f++) {
    const base = f * plane * 3;
    for (let p = 0; p < plane; p++) {
      out[base + p * 3] = data[base + p]!;
      out[base + p * 3 + 1] = data[base + plane + p]!;
      out[base + p * 3 + 2] = data[base + 2 * plane + p]!;
    }
  }
  return out;
}

/**
 * Decodes the value of a native PixelData element into stored values for all
 * frames. Throws {@link InvalidInputError} when the data is shorter than the
 * header declares.
 */
export function decodePixelData(value: Uint8Array, vr: string, h: DicomImageHeader, littleEndian: boolean, file?: string): DicomPixelArray {
  const count = frameSampleCount(h) * h.numberOfFrames;
  const needed = (count * h.bitsAllocated) / 8;
  if (value.length < needed) {
    throw new InvalidInputError(
      `This DICOM file's pixel data is incomplete: ${h.numberOfFrames} frame(s) of ${h.columns} × ${h.rows} need ${needed} bytes, but only ${value.length} are present. The file may have been cut short during export or transfer.`,
      where(file),
    );
  }
  const raw = readWords(value, count, h.bitsAllocated, littleEndian, vr);
  const data = maskAndSign(raw, h);
  return h.samplesPerPixel === 3 && h.planarConfiguration === 1 ? interleave(data, h) : data;
}

/**
 * Builds the {@link ParsedDicom} accessor around decoded samples. Also used to
 * rebuild an image from the stored de-identified volume container.
 */
export function createDicomImage(kept: DicomImageHeader, pixel: DicomPixelArray, dropped: readonly DroppedTag[]): ParsedDicom {
  const samples = frameSampleCount(kept);
  if (pixel.length < samples * kept.numberOfFrames) {
    throw new InvalidInputError(`The stored image has ${pixel.length} samples, fewer than its ${kept.numberOfFrames} frame(s) need.`);
  }
  // Rescale is defined for grayscale only; RGB samples are already display values.
  const slope = kept.samplesPerPixel === 1 ? kept.rescaleSlope : 1;
  const intercept = kept.samplesPerPixel === 1 ? kept.rescaleIntercept : 0;
  return {
    kept,
    frames: kept.numberOfFrames,
    pixel,
    dropped,
    getFrame(index: number): Float32Array {
      if (!Number.isInteger(index) || index < 0 || index >= kept.numberOfFrames) {
        throw new InvalidInputError(`Frame ${index} does not exist: this image has ${kept.numberOfFrames} frame(s), numbered from 0.`, {
          field: 'frame',
        });
      }
      const start = index * samples;
      const out = new Float32Array(samples);
      for (let i = 0; i < samples; i++) out[i] = pixel[start + i]! * slope + intercept;
      return out;
    },
  };
}
