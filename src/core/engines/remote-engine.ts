/**
 * An {@link Engine} whose model lives on the other side of a message
 * boundary: the page's engines over the model workers (transformers.js,
 * WebLLM), and the runner's and scoring worker's engines over the page's
 * model host (src/lib/engines/model-host.ts). One implementation for all of
 * them, given the remote load / generate / unload calls.
 *
 * - `load` reports the worker's progress and returns what it says about the
 *   loaded model (device actually used, adapter, threads).
 * - `generate` names its model, so the worker reloads it by itself after it
 *   was stopped for being idle or another engine loaded a different model.
 *   `onToken` gets each new piece of text (typed `tokens` progress). An abort
 *   returns the text received so far with `finishReason: 'abort'` (it never
 *   throws for an abort); its usage then has the page's own timings.
 * - `unload` frees the model if it is still the one loaded in the worker.
 * - `generateBatch` passes each finished answer to `onResult` as the remote
 *   side reports it (typed `results` progress); an abort returns the answers
 *   received and `finishReason: 'abort'` for the others. A remote side
 *   without batch calls answers the requests one by one.
 */
import { EngineError, isAbortLike } from '../errors.ts';
import type { CallOptions } from '../rpc/protocol.ts';
import type { Progress } from '../model/progress.ts';
import { batchResultsOf, type BatchOptions, type Engine, type EngineInfo, type EngineUsage, type GenerateOptions, type GenerateRequest, type GenerateResult, type LoadOptions } from './engine.ts';

/** The calls the remote side offers, as its client exposes them. */
export interface RemoteCalls<L, I extends EngineInfo> {
  load(input: L, options?: CallOptions): Promise<I>;
  generate(input: { readonly request: GenerateRequest; readonly model?: L }, options?: CallOptions): Promise<GenerateResult>;
  unload(input: L): Promise<void>;
  generateBatch?(input: { readonly requests: readonly GenerateRequest[]; readonly model?: L }, options?: CallOptions): Promise<GenerateResult[]>;
  batchLimit?(input: { readonly request: GenerateRequest; readonly model?: L }, options?: CallOptions): Promise<number>;
}

/** What an aborted request had: nothing the caller received (a batch reports only finished answers). */
function abortedResult(startedMs: number): GenerateResult {
  return {
    text: '',
    finishReason: 'abort',
    usage: { promptTokens: null, completionTokens: 0, ttftMs: null, prefillTps: null, decodeTps: null, totalMs: performance.now() - startedMs },
  };
}

function callOptions(signal: AbortSignal | undefined, onProgress: ((p: Progress) => void) | undefined): CallOptions {
  return { ...(signal ? { signal } : {}), ...(onProgress ? { onProgress } : {}) };
}

export class RemoteEngine<L, I extends EngineInfo = EngineInfo> implements Engine {
  readonly model: L;
  readonly #calls: RemoteCalls<L, I>;
  #info: I | null = null;

  constructor(model: L, calls: RemoteCalls<L, I>) {
    this.model = model;
    this.#calls = calls;
  }

  /** What the last load reported, or null before a load / after unload. */
  get info(): I | null {
    return this.#info;
  }

  async load(options: LoadOptions = {}): Promise<I> {
    this.#info = await this.#calls.load(this.model, callOptions(options.signal, options.onProgress));
    return this.#info;
  }

  async generate(request: GenerateRequest, options: GenerateOptions = {}): Promise<GenerateResult> {
    if (!this.#info) throw new EngineError('ENGINE_NOT_LOADED', 'Load the model before generating.');
    const started = performance.now();
    let text = '';
    let tokens = 0;
    let firstAt: number | null = null;
    const onProgress = (p: Progress) => {
      if (p.detail?.kind !== 'tokens') return;
      firstAt ??= performance.now();
      tokens = p.done;
      text += p.detail.piece;
      if (p.detail.piece) options.onToken?.(p.detail.piece);
    };
    try {
      return await this.#calls.generate({ request, model: this.model }, callOptions(options.signal, onProgress));
    } catch (error) {
      if (!(options.signal?.aborted && isAbortLike(error))) throw error;
      const usage: EngineUsage = {
        promptTokens: null,
        completionTokens: tokens,
        ttftMs: firstAt === null ? null : firstAt - started,
        prefillTps: null,
        decodeTps: null,
        totalMs: performance.now() - started,
      };
      return { text, finishReason: 'abort', usage };
    }
  }

  async batchLimit(request: GenerateRequest): Promise<number> {
    if (!this.#info || !this.#calls.batchLimit) return 1;
    return this.#calls.batchLimit({ request, model: this.model });
  }

  async generateBatch(requests: readonly GenerateRequest[], options: BatchOptions = {}): Promise<GenerateResult[]> {
    if (!this.#info) throw new EngineError('ENGINE_NOT_LOADED', 'Load the model before generating.');
    const calls = this.#calls;
    if (!calls.generateBatch) {
      const out: GenerateResult[] = [];
      for (const [i, request] of requests.entries()) {
        out.push(await this.generate(request, options.signal ? { signal: options.signal } : {}));
        options.onResult?.(i, out[i]!);
      }
      return out;
    }
    const started = performance.now();
    const received = new Map<number, GenerateResult>();
    const onProgress = (p: Progress) => {
      for (const { index, result } of batchResultsOf(p)) {
        if (received.has(index)) continue;
        received.set(index, result);
        options.onResult?.(index, result);
      }
    };
    try {
      const results = await calls.generateBatch({ requests, model: this.model }, callOptions(options.signal, onProgress));
      // Any answer whose report was still on its way when the call returned.
      results.forEach((r, i) => {
        if (!received.has(i)) {
          received.set(i, r);
          options.onResult?.(i, r);
        }
      });
      return results;
    } catch (error) {
      if (!(options.signal?.aborted && isAbortLike(error))) throw error;
      return requests.map((_, i) => received.get(i) ?? abortedResult(started));
    }
  }

  async unload(): Promise<void> {
    const wasLoaded = this.#info !== null;
    this.#info = null;
    if (wasLoaded) await this.#calls.unload(this.model);
  }
}
