/**
 * Worker-side half of the worker boundary: exposes a plain object of async
 * functions over Comlink, giving each call an AbortSignal and a throttled
 * progress reporter, and turning thrown errors into serialisable envelopes.
 */
import { expose, releaseProxy, type Endpoint } from 'comlink';
import { AbortedError, serializeError } from '../../src/core/errors.ts';
import { mergeProgress, type CallContext, type Envelope, type WorkerApi, type WorkerEndpointApi } from '../../src/core/rpc/protocol.ts';
import type { Progress } from '../../src/core/model/progress.ts';

/** Minimum gap between two progress messages; the last one of a call always goes out. */
const PROGRESS_INTERVAL_MS = 50;

/** Builds the endpoint object; exported separately so tests can drive it without a worker. */
function createEndpoint(api: WorkerApi): WorkerEndpointApi {
  const controllers = new Map<number, AbortController>();
  return {
    methods: () => Object.keys(api),
    abort(callId) {
      controllers.get(callId)?.abort();
    },
    async call(method, input, callId, onProgress): Promise<Envelope<unknown>> {
      const fn = Object.prototype.hasOwnProperty.call(api, method) ? api[method] : undefined;
      if (!fn) {
        return { ok: false, error: { name: 'NeuroEvalError', code: 'INTERNAL', message: `Unknown worker method "${method}".` } };
      }
      const controller = new AbortController();
      controllers.set(callId, controller);
      const reporter = throttle(onProgress);
      const ctx: CallContext = { signal: controller.signal, progress: reporter.report };
      try {
        const value = await (fn as (i: unknown, c: CallContext) => Promise<unknown>)(input, ctx);
        if (controller.signal.aborted) throw new AbortedError();
        // Progress travels on its own channel: let the last report land before the result does.
        await reporter.flushed();
        return { ok: true, value };
      } catch (error) {
        // A failed call's reports go out too (a run stopped by a full disk reported the answers it stored).
        await reporter.flushed();
        return { ok: false, error: serializeError(error) };
      } finally {
        controllers.delete(callId);
        // The progress callback arrives as a Comlink proxy holding a MessagePort; free it.
        (onProgress as { [releaseProxy]?: () => void } | undefined)?.[releaseProxy]?.();
      }
    },
  };
}

/**
 * Sends at most one progress report per interval. A report that comes too
 * soon is held and merged into the next one sent ({@link mergeProgress}), and
 * whatever is held goes out before the call answers: token pieces are never
 * dropped, only batched.
 */
function throttle(onProgress: ((p: Progress) => unknown) | undefined): { report: (p: Progress) => void; flushed: () => Promise<void> } {
  if (!onProgress) return { report: () => {}, flushed: async () => {} };
  let last = 0;
  let held: Progress | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let delivery: Promise<unknown> = Promise.resolve();
  const send = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (!held) return;
    const p = held;
    held = null;
    last = Date.now();
    // A failed progress message must never fail the work itself.
    delivery = delivery.then(() => onProgress(p)).catch(() => {});
  };
  return {
    report(p) {
      held = mergeProgress(held, p);
      const final = p.total !== undefined && p.done >= p.total;
      const wait = PROGRESS_INTERVAL_MS - (Date.now() - last);
      if (final || wait <= 0) send();
      else timer ??= setTimeout(send, wait);
    },
    flushed: async () => {
      send();
      await delivery;
    },
  };
}

/** Exposes `api` on the worker's global scope (or another endpoint, in tests). */
export function exposeApi(api: WorkerApi, endpoint?: Endpoint): void {
  expose(createEndpoint(api), endpoint);
}
