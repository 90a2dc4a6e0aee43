/**
 * Download progress of model files, counted in the fetch transformers.js
 * uses (its `env.fetch`) instead of through its `progress_callback`.
 *
 * Why: with a `progress_callback`, transformers.js 4.3.1 reads each file
 * chunk by chunk into a buffer of its own (`readResponse`), and in Chromium
 * the renderer then keeps about the size of the largest files resident after
 * the load, even after a full garbage collection: the real-size SmolVLM-256M
 * (547 MB of files) held 1,471 MiB loaded that way against 1,283 MiB without
 * a callback (`npm run bench`, real-size suite, "memory held"). Counting the
 * bytes as they pass through a stream, and letting transformers.js read the
 * body whole as it does without a callback, holds what the callback-free load
 * holds (1,290 MiB) and still reports every byte.
 *
 * transformers.js keeps one `env.fetch` per realm, and a worker loads one
 * model at a time, so the fetch reports to the load under way
 * ({@link DownloadMeter.during}).
 */

/** Bytes of one file so far; `total` is null when the server did not say (no Content-Length, or a compressed body). */
export interface FileBytes {
  /** The file's URL. */
  readonly url: string;
  readonly loaded: number;
  readonly total: number | null;
}

export type FileBytesListener = (bytes: FileBytes) => void;

/** The fetch transformers.js calls (`env.fetch`): a URL, never a Request. */
export type ModelFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

export class DownloadMeter {
  readonly #base: ModelFetch;
  readonly #listeners = new Set<FileBytesListener>();

  /** `base` does the requests (the platform's fetch, or a custom one). */
  constructor(base: ModelFetch) {
    this.#base = base;
  }

  /** The fetch to give transformers.js: `base`, with bodies counted while a load listens. */
  readonly fetch: ModelFetch = async (input, init) => {
    const response = await this.#base(input, init);
    // Only whole files are counted: not the one-byte range probes transformers.js makes for file sizes.
    if (this.#listeners.size === 0 || response.status !== 200 || !response.body) return response;
    const listeners = [...this.#listeners];
    const listener = (bytes: FileBytes) => {
      for (const l of listeners) l(bytes);
    };
    const url = response.url || String(input);
    const length = response.headers.get('Content-Length');
    // A compressed body's Content-Length counts compressed bytes, the stream the decompressed ones.
    const total = length !== null && !response.headers.get('Content-Encoding') && /^\d+$/.test(length) ? Number(length) : null;
    let loaded = 0;
    listener({ url, loaded, total });
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          loaded += chunk.byteLength;
          listener({ url, loaded, total });
          controller.enqueue(chunk);
        },
      }),
    );
    const out = new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
    // transformers.js names a file by its request; keep the URL it was answered from.
    Object.defineProperty(out, 'url', { value: response.url });
    return out;
  };

  /**
   * Runs `load` with `listener` told of every file fetched meanwhile. Loads
   * in one realm run one after another (see runtime.ts); were two to
   * overlap, each would be told of the other's files too.
   */
  async during<T>(listener: FileBytesListener | undefined, load: () => Promise<T>): Promise<T> {
    if (!listener) return load();
    // A wrapper of its own, so the same function given twice is still removed once per load.
    const own: FileBytesListener = (bytes) => listener(bytes);
    this.#listeners.add(own);
    try {
      return await load();
    } finally {
      this.#listeners.delete(own);
    }
  }
}
