/**
 * The decoder-file edit of decoder-graph.ts, made in the fetch transformers.js
 * loads model files with (its `env.fetch`), for the loads that ask for it.
 *
 * Only loads on WASM ask (vlm.ts, text-llm.ts): on WebGPU transformers.js
 * keeps `present.*` in GPU buffers, so the whole cache never leaves the GPU
 * and the extra outputs would only add downloads. Files read from disk by
 * transformers.js itself (a local folder in Node, where `env.useFS` reads
 * without fetch) are not edited; the engine then keeps the whole-cache
 * outputs (cached-generation.ts checks the session's output names).
 *
 * transformers.js keeps one `env.fetch` per realm and a worker loads one
 * model at a time (runtime.ts), so the setting applies to the load under way.
 */
import { exposeNewKv } from './decoder-graph.ts';
import type { ModelFetch } from './download-meter.ts';

/** Decoder files as transformers.js names them: `onnx/decoder_model_merged_q4.onnx`, `onnx/model.onnx` (not their `.onnx_data`). */
const DECODER_FILE = /\/onnx\/(decoder_model_merged|model)(_[a-z0-9]+)?\.onnx$/i;

/**
 * Largest decoder file kept for a second session (as published): the second
 * session holds the weights again beside the prefix, in the same WASM heap
 * (4 GiB at most), so larger decoders decode without one.
 */
export const MAX_KEPT_DECODER_BYTES = 512 * 1024 * 1024;

export class ModelFileEdits {
  readonly #base: ModelFetch;
  /** The edit the load under way asks for (null: none). */
  #edit: { readonly splitAttention: boolean } | null = null;
  /** The load under way's decoder file as published, where its attention was split and it is small enough to keep. */
  #original: Uint8Array | null = null;
  /** Each loaded model's decoder file as published ({@link splitOriginal}). */
  readonly #originals = new WeakMap<object, Uint8Array>();

  constructor(base: ModelFetch) {
    this.#base = base;
  }

  readonly fetch: ModelFetch = async (input, init) => {
    const response = await this.#base(input, init);
    const url = response.url || String(input);
    const edit = this.#edit;
    if (!edit || response.status !== 200 || !DECODER_FILE.test(pathOf(url))) return response;
    const bytes = new Uint8Array(await response.arrayBuffer());
    const edited = exposeNewKv(bytes, edit);
    if (edited?.split && bytes.length <= MAX_KEPT_DECODER_BYTES) this.#original = bytes;
    const headers = new Headers(response.headers);
    headers.delete('Content-Length');
    headers.delete('Content-Encoding');
    const out = new Response((edited?.bytes ?? bytes) as Uint8Array<ArrayBuffer>, { status: 200, statusText: response.statusText, headers });
    // transformers.js names a file by its request; keep the URL it was answered from.
    Object.defineProperty(out, 'url', { value: response.url });
    return out;
  };

  /**
   * Runs `load` with decoder files edited to give their new keys and values
   * as outputs of their own, and with their attention split at the cache
   * boundary where `splitAttention` (decoder-graph.ts).
   */
  async newKvOutputsDuring<T>(load: () => Promise<T>, options: { readonly splitAttention?: boolean } = {}): Promise<T> {
    const before = this.#edit;
    this.#edit = { splitAttention: options.splitAttention ?? false };
    this.#original = null;
    try {
      const loaded = await load();
      // transformers.js' models are callable: functions, not plain objects.
      if (this.#original && ((typeof loaded === 'object' && loaded !== null) || typeof loaded === 'function')) this.#originals.set(loaded as object, this.#original);
      return loaded;
    } finally {
      this.#edit = before;
      this.#original = null;
    }
  }

  /**
   * The decoder file of `model` (what {@link newKvOutputsDuring}'s load
   * returned) as it was published, where its attention was split: the engine
   * makes from it a session that holds a kept prefix (decoder-graph.ts,
   * `BakedPrefix`). Null for other loads, and for files over
   * {@link MAX_KEPT_DECODER_BYTES}, which are not kept.
   */
  splitOriginal(model: object): Uint8Array | null {
    return this.#originals.get(model) ?? null;
  }
}

function pathOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return url;
  }
}
