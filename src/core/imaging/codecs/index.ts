/**
 * Compressed DICOM pixel data: one frame's codestream in, its samples out.
 * Decoders are loaded ahead with {@link loadPixelDecoder} (they are
 * WebAssembly and load asynchronously) so that parsing itself stays
 * synchronous; see docs/decisions/dicom-pixel-codecs.md for the choice
 * of libraries.
 */
import { InvalidInputError } from '../../errors.ts';
import { jpegPrecision } from './jpeg-markers.ts';
import { decodeRleFrame } from './rle.ts';
import { compressedSyntax, type PixelCodec } from './syntaxes.ts';
import { loadWasmCodec, wasmDecoders, wasmLoadFailure, type WasmCodec } from './wasm.ts';

export { compressedSyntax } from './syntaxes.ts';
export { setCodecWasmUrls } from './wasm.ts';

/** What the decoder needs to know of the image to check and lay out a frame. */
export interface FrameShape {
  readonly rows: number;
  readonly columns: number;
  readonly samplesPerPixel: number;
  readonly bitsAllocated: 8 | 16 | 32;
}

/** Raw unsigned words of one frame, samples interleaved; masking and sign extension are the caller's. */
export type FrameWords = Uint8Array | Uint16Array | Uint32Array;

const LOADED_BY: Partial<Record<PixelCodec, WasmCodec>> = { 'jpeg-ls': 'charls', 'jpeg-2000': 'openjpeg', jpeg: 'libjpeg-turbo', 'jpeg-lossless': 'jpeg-lossless' };

/** Loads the decoder a transfer syntax needs (nothing for native syntaxes and RLE). */
export async function loadPixelDecoder(transferSyntaxUID: string): Promise<void> {
  const codec = compressedSyntax(transferSyntaxUID)?.codec;
  const wasm = codec && LOADED_BY[codec];
  if (wasm) await loadWasmCodec(wasm);
}

/**
 * Decodes one compressed frame. Throws {@link InvalidInputError} naming the
 * file when the codestream is damaged, disagrees with the header (size,
 * samples, bit depth), or is a variant no decoder here reads.
 */
export function decodeCompressedFrame(transferSyntaxUID: string, frame: Uint8Array, shape: FrameShape, file?: string): FrameWords {
  const syntax = compressedSyntax(transferSyntaxUID);
  if (!syntax) throw new Error(`No decoder is registered for transfer syntax ${transferSyntaxUID}.`);
  const where = file ? { file } : undefined;
  let words: FrameWords;
  try {
    words = runCodec(syntax.codec, frame, shape, file);
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    const detail = error instanceof Error ? error.message : typeof error === 'number' ? `decoder error ${error}` : String(error);
    throw new InvalidInputError(`This DICOM file's compressed pixel data could not be decoded (${syntax.codec}: ${detail}). The file may be damaged.`, where);
  }
  const expected = shape.rows * shape.columns * shape.samplesPerPixel;
  if (words.length !== expected) {
    throw new InvalidInputError(
      `This DICOM file's compressed frame decodes to ${words.length} samples, but its header (${shape.columns} × ${shape.rows}, ${shape.samplesPerPixel} sample(s) per pixel) needs ${expected}.`,
      where,
    );
  }
  return widen(words, shape.bitsAllocated, where);
}

function runCodec(codec: PixelCodec, frame: Uint8Array, shape: FrameShape, file?: string): FrameWords {
  switch (codec) {
    case 'rle':
      return asWords(decodeRleFrame(frame, shape, file), shape.bitsAllocated);
    case 'jpeg-lossless': {
      const decoder = new (loaded('jpeg-lossless').Decoder)();
      // A fresh decoder per frame: it keeps the previous frame's sample size otherwise.
      const out = decoder.decode(frame.buffer as ArrayBuffer, frame.byteOffset, frame.byteLength, shape.bitsAllocated === 8 ? 1 : 2);
      checkSize(decoder.xDim, decoder.yDim, decoder.numComp, shape, file);
      return out;
    }
    case 'jpeg': {
      const precision = jpegPrecision(frame);
      if (precision !== undefined && precision > 8) {
        throw new InvalidInputError(
          `This DICOM file is ${precision}-bit lossy JPEG (JPEG Extended), which this app cannot decode: no maintained browser decoder reads lossy JPEG beyond 8 bits. Export the images uncompressed, or with a lossless syntax (JPEG-LS, JPEG 2000), and import them again.`,
          file ? { file } : undefined,
        );
      }
      return runWasm(loaded('libjpeg-turbo').JPEGDecoder, frame, shape, file);
    }
    case 'jpeg-ls':
      return runWasm(loaded('charls').JpegLSDecoder, frame, shape, file);
    case 'jpeg-2000':
      return runWasm(loaded('openjpeg').J2KDecoder, frame, shape, file);
  }
}

function loaded<K extends WasmCodec>(codec: K): NonNullable<ReturnType<typeof wasmDecoders>[K]> {
  const module = wasmDecoders()[codec];
  if (!module) {
    const failure = wasmLoadFailure(codec);
    // Without a recorded failure this is a programming error: the import path loads decoders before parsing.
    throw new Error(failure ? `The ${codec} decoder could not be loaded (${failure}); reload the app and import again.` : `The ${codec} decoder is not loaded: call loadPixelDecoder() before parsing.`);
  }
  return module as NonNullable<ReturnType<typeof wasmDecoders>[K]>;
}

/** Runs an Emscripten decoder and copies its output off the wasm heap (which the next call reuses). */
function runWasm(Decoder: new () => EmscriptenFrameDecoder & { getInterleaveMode?(): number }, frame: Uint8Array, shape: FrameShape, file?: string): FrameWords {
  const decoder = new Decoder();
  try {
    decoder.getEncodedBuffer(frame.length).set(frame);
    decoder.decode();
    const info = decoder.getFrameInfo();
    checkSize(info.width, info.height, info.componentCount, shape, file);
    const heap = decoder.getDecodedBuffer();
    const bytes = new Uint8Array(heap.length);
    bytes.set(heap);
    const words = asWords(bytes, info.bitsPerSample <= 8 ? 8 : 16);
    // CharLS returns colour planes one after another when the stream was coded plane by plane (interleave mode 0).
    return info.componentCount === 3 && decoder.getInterleaveMode?.() === 0 ? interleavePlanes(words) : words;
  } finally {
    decoder.delete();
  }
}

function checkSize(width: number, height: number, components: number, shape: FrameShape, file?: string): void {
  if (width === shape.columns && height === shape.rows && components === shape.samplesPerPixel) return;
  throw new InvalidInputError(
    `This DICOM file's compressed frame is ${width} × ${height} with ${components} component(s), but its header says ${shape.columns} × ${shape.rows} with ${shape.samplesPerPixel}.`,
    file ? { file } : undefined,
  );
}

/** Little-endian bytes as words of the given size (the wasm heap and every host we run on are little-endian). */
function asWords(bytes: Uint8Array, bits: 8 | 16 | 32): FrameWords {
  if (bits === 8) return bytes;
  const buffer = bytes.byteOffset % (bits / 8) === 0 ? bytes.buffer : bytes.slice().buffer;
  const offset = bytes.byteOffset % (bits / 8) === 0 ? bytes.byteOffset : 0;
  return bits === 16 ? new Uint16Array(buffer, offset, bytes.length >> 1) : new Uint32Array(buffer, offset, bytes.length >> 2);
}

/** Codecs pick their own sample size; the rest of the pipeline expects BitsAllocated. */
function widen(words: FrameWords, bitsAllocated: 8 | 16 | 32, where?: { file: string }): FrameWords {
  const bits = words.BYTES_PER_ELEMENT * 8;
  if (bits === bitsAllocated) return words;
  if (bits > bitsAllocated) {
    throw new InvalidInputError(`This DICOM file's compressed frame holds ${bits}-bit samples, but its header says ${bitsAllocated} bits are allocated per sample.`, where);
  }
  const out = bitsAllocated === 16 ? new Uint16Array(words.length) : new Uint32Array(words.length);
  out.set(words);
  return out;
}

function interleavePlanes(planar: FrameWords): FrameWords {
  const plane = planar.length / 3;
  const out = new (planar.constructor as new (n: number) => FrameWords)(planar.length);
  for (let p = 0; p < plane; p++) {
    out[p * 3] = planar[p]!;
    out[p * 3 + 1] = planar[plane + p]!;
    out[p * 3 + 2] = planar[2 * plane + p]!;
  }
  return out;
}
