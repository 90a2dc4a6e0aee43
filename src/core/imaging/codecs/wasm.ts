// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the codecs ship no types; this brings ours into every tsconfig that compiles this file
/// <reference path="./codec-modules.d.ts" />
/**
 * Lazy loading of the WebAssembly decoders. Each codec's glue script and
 * wasm file are fetched the first time a file needs them (a dynamic import,
 * so the app's first load does not grow), then kept for the worker's life.
 *
 * Where the .wasm file lives differs per realm: Node reads it next to the
 * glue script (the Emscripten default); a browser build must be told the URL
 * the bundler gave the asset, which the worker registers with
 * {@link setCodecWasmUrls}.
 */

/** The lazily loaded decoders: three WebAssembly modules and one plain JavaScript one. */
export type WasmCodec = 'charls' | 'openjpeg' | 'libjpeg-turbo' | 'jpeg-lossless';

/** Decoder constructors once their module is instantiated. */
export interface WasmDecoders {
  charls?: CharLSModule;
  openjpeg?: OpenJpegModule;
  'libjpeg-turbo'?: LibJpegTurboModule;
  'jpeg-lossless'?: JpegLosslessModule;
}

let wasmUrls: Partial<Record<Exclude<WasmCodec, 'jpeg-lossless'>, string>> = {};
const loaded: WasmDecoders = {};
const loading = new Map<WasmCodec, Promise<void>>();
/** Why the last load of a codec failed, for the message of the file that needed it. */
const failures = new Map<WasmCodec, string>();

/** Tells the loader where the bundler put each .wasm file (browser builds only). */
export function setCodecWasmUrls(urls: Partial<Record<Exclude<WasmCodec, 'jpeg-lossless'>, string>>): void {
  wasmUrls = { ...urls };
}

function options(codec: Exclude<WasmCodec, 'jpeg-lossless'>): EmscriptenModuleOptions {
  const url = wasmUrls[codec];
  // OpenJPEG reports every header it reads on stdout; errors still surface as exceptions.
  const quiet = { print: () => {} };
  return url ? { ...quiet, locateFile: (path) => (path.endsWith('.wasm') ? url : path) } : quiet;
}

/** Instantiates one codec's module if it is not loaded yet; concurrent callers share one load. */
export function loadWasmCodec(codec: WasmCodec): Promise<void> {
  if (loaded[codec]) return Promise.resolve();
  let pending = loading.get(codec);
  if (!pending) {
    pending = instantiate(codec)
      .then(() => void failures.delete(codec))
      .catch((error: unknown) => {
        failures.set(codec, error instanceof Error ? error.message : String(error));
        throw error;
      })
      .finally(() => loading.delete(codec));
    loading.set(codec, pending);
  }
  return pending;
}

async function instantiate(codec: WasmCodec): Promise<void> {
  // Each import is its own chunk: only the codecs a file needs are ever fetched.
  switch (codec) {
    case 'charls':
      loaded.charls = await (await import('@cornerstonejs/codec-charls/decodewasmjs')).default(options(codec));
      return;
    case 'openjpeg':
      loaded.openjpeg = await (await import('@cornerstonejs/codec-openjpeg/decodewasmjs')).default(options(codec));
      return;
    case 'libjpeg-turbo':
      loaded['libjpeg-turbo'] = await (await import('@cornerstonejs/codec-libjpeg-turbo-8bit/decodewasmjs')).default(options(codec));
      return;
    case 'jpeg-lossless':
      loaded['jpeg-lossless'] = await import('jpeg-lossless-decoder-js');
      return;
  }
}

/** The instantiated modules; a codec missing here was not loaded with {@link loadWasmCodec}. */
export function wasmDecoders(): Readonly<WasmDecoders> {
  return loaded;
}

/** Why the codec's last load failed, if it did. */
export function wasmLoadFailure(codec: WasmCodec): string | undefined {
  return failures.get(codec);
}
