/**
 * The engine boundary for transformers.js: the page talks to
 * workers/transformers.worker.ts through a worker client, and
 * {@link WorkerEngine} presents that as the project's {@link Engine}, so the
 * runner and the UI never see the worker.
 *
 * One worker holds one runtime and one loaded model. Each `generate` names
 * its model, so an engine keeps working after the worker was stopped for
 * being idle (the model is loaded again) or after another engine loaded a
 * different model in the same worker.
 */
import type { TransformersApi, TransformersInfo, TransformersLoadInput } from '../../../workers/transformers.worker.ts';
import type { Engine, EngineUsage, GenerateOptions, GenerateRequest, GenerateResult, LoadOptions } from '../../core/engines/engine.ts';
import { EngineError } from '../../core/engines/errors.ts';
import { isAbortLike } from '../../core/errors.ts';
import type { CallOptions, Progress } from '../../core/rpc/protocol.ts';
import { createWorkerClient, type WorkerClient } from '../workers/worker-client.ts';

export type { TransformersInfo, TransformersLoadInput } from '../../../workers/transformers.worker.ts';

/** Stop the worker (freeing its wasm heap and GPU memory) after this long without calls. */
export const TRANSFORMERS_IDLE_MS = 5 * 60_000;

let client: WorkerClient<TransformersApi> | null = null;

/** The transformers.js worker client, created on first use; the worker itself starts on the first call. */
export function transformersWorker(): WorkerClient<TransformersApi> {
  client ??= createWorkerClient<TransformersApi>(
    'transformers',
    // Worker entries are normally created in src/lib/workers/clients.ts; this one lives with its engine
    // so that pages which never run a model do not pull in its client.
    () => new Worker(new URL('../../../workers/transformers.worker.ts', import.meta.url), { type: 'module', name: 'transformers' }),
    { idleMs: TRANSFORMERS_IDLE_MS },
  );
  return client;
}

function callOptions(signal: AbortSignal | undefined, onProgress: ((p: Progress) => void) | undefined): CallOptions {
  return { ...(signal ? { signal } : {}), ...(onProgress ? { onProgress } : {}) };
}

/**
 * An {@link Engine} whose model runs in the transformers.js worker.
 *
 * - `load` reports the worker's download progress and returns
 *   {@link TransformersInfo} (device actually used, WebGPU adapter, threads).
 * - `generate` calls `onToken` with each new piece of text. An abort returns
 *   the text received so far with `finishReason: 'abort'` (it never throws for
 *   an abort); its usage then has the page's own timings and token count.
 * - `unload` frees the model if it is still the one loaded in the worker.
 */
export class WorkerEngine implements Engine {
  readonly model: TransformersLoadInput;
  readonly #client: WorkerClient<TransformersApi>;
  #info: TransformersInfo | null = null;

  constructor(model: TransformersLoadInput, workerClient: WorkerClient<TransformersApi> = transformersWorker()) {
    this.model = model;
    this.#client = workerClient;
  }

  /** What the last load reported, or null before a load / after unload. */
  get info(): TransformersInfo | null {
    return this.#info;
  }

  async load(options: LoadOptions = {}): Promise<TransformersInfo> {
    this.#info = await this.#client.api.load(this.model, callOptions(options.signal, options.onProgress));
    return this.#info;
  }

  async generate(request: GenerateRequest, options: GenerateOptions = {}): Promise<GenerateResult> {
    if (!this.#info) throw new EngineError('ENGINE_NOT_LOADED', 'Load the model before generating.');
    const started = performance.now();
    let text = '';
    let tokens = 0;
    let firstAt: number | null = null;
    const onProgress = (p: Progress) => {
      if (p.phase !== 'token') return;
      firstAt ??= performance.now();
      tokens = p.done;
      const soFar = p.message ?? '';
      if (soFar.length <= text.length || !soFar.startsWith(text)) return;
      const piece = soFar.slice(text.length);
      text = soFar;
      options.onToken?.(piece);
    };
    try {
      return await this.#client.api.generate({ request, model: this.model }, callOptions(options.signal, onProgress));
    } catch (error) {
      if (!(options.signal?.aborted && isAbortLike(error))) throw error;
      const usage: EngineUsage = {
        promptTokens: null,
        completionTokens: tokens,
        ttftMs: firstAt === null ? null : firstAt - started,
        prefillTokensPerS: null,
        decodeTokensPerS: null,
        totalMs: performance.now() - started,
      };
      return { text, finishReason: 'abort', usage };
    }
  }

  async unload(): Promise<void> {
    const wasLoaded = this.#info !== null;
    this.#info = null;
    // A stopped worker holds nothing; do not start one just to unload.
    if (wasLoaded && this.#client.running) await this.#client.api.unload({ model: this.model });
  }
}
