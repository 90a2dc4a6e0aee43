/**
 * Types for the decoders we load (the packages ship none). Only the calls we
 * make are declared; see wasm.ts for how they are used.
 */

/** A decoder object: the compressed frame goes in through getEncodedBuffer, samples come out of getDecodedBuffer. */
interface EmscriptenFrameDecoder {
  getEncodedBuffer(length: number): Uint8Array;
  decode(): void;
  getDecodedBuffer(): Uint8Array;
  getFrameInfo(): { width: number; height: number; bitsPerSample: number; componentCount: number; isSigned?: boolean };
  delete(): void;
}

/** What an Emscripten factory accepts: where the .wasm file is, and where its log lines go. */
interface EmscriptenModuleOptions {
  locateFile?: (path: string, scriptDirectory: string) => string;
  print?: (text: string) => void;
}

interface CharLSModule {
  JpegLSDecoder: new () => EmscriptenFrameDecoder & { getInterleaveMode(): number; getNearLossless(): number };
}
interface OpenJpegModule {
  J2KDecoder: new () => EmscriptenFrameDecoder;
}
interface LibJpegTurboModule {
  JPEGDecoder: new () => EmscriptenFrameDecoder;
}

/** One lossless JPEG frame decoder; samples of 1 or 2 bytes, components interleaved. */
interface JpegLosslessFrameDecoder {
  decode(buffer: ArrayBuffer, offset?: number, length?: number, numBytes?: number): Uint8Array | Uint16Array;
  readonly xDim: number;
  readonly yDim: number;
  readonly numComp: number;
}
interface JpegLosslessModule {
  Decoder: new () => JpegLosslessFrameDecoder;
}

declare module '@cornerstonejs/codec-charls/decodewasmjs' {
  const factory: (options?: EmscriptenModuleOptions) => Promise<CharLSModule>;
  export default factory;
}

declare module '@cornerstonejs/codec-openjpeg/decodewasmjs' {
  const factory: (options?: EmscriptenModuleOptions) => Promise<OpenJpegModule>;
  export default factory;
}

declare module '@cornerstonejs/codec-libjpeg-turbo-8bit/decodewasmjs' {
  const factory: (options?: EmscriptenModuleOptions) => Promise<LibJpegTurboModule>;
  export default factory;
}

declare module 'jpeg-lossless-decoder-js' {
  export const Decoder: JpegLosslessModule['Decoder'];
}
