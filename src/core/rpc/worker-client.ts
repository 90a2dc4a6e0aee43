/**
 * Main-thread half of the worker boundary.
 *
 * `createWorkerClient` starts the worker lazily on the first call, forwards
 * AbortSignals and progress callbacks, rebuilds typed errors, rejects every
 * call in flight if the worker dies, and terminates the worker after it has
 * been idle for a while (that frees its wasm heap and GPU device).
 */
import { proxy, releaseProxy, transfer, wrap, type Remote } from 'comlink';
import { AbortedError, WorkerCrashedError, fromSerialized, NeuroEvalError } from '../errors.ts';
import type { CallOptions, ClientApi, WorkerApi, WorkerEndpointApi } from './protocol.ts';
import type { Progress } from '../model/progress.ts';

interface WorkerClientOptions {
  /** Terminate the worker after this many ms without calls in flight. 0 keeps it alive. */
  readonly idleMs?: number;
}

export interface WorkerClient<A extends WorkerApi> {
  /** The typed API; each call starts the worker if needed. */
  readonly api: ClientApi<A>;
  /** Whether a worker is running now. */
  readonly running: boolean;
  /** Calls in flight. */
  readonly pending: number;
  /** Stops the worker now; calls in flight are rejected. */
  terminate(): void;
}

interface Live {
  worker: Worker;
  remote: Remote<WorkerEndpointApi>;
  /** Rejecters of the calls in flight on this worker, to fail them all on a crash. */
  inflight: Map<number, (e: Error) => void>;
}

const DEFAULT_IDLE_MS = 60_000;
let nextCallId = 1;

/**
 * @param name    shown in errors ("The probe worker stopped unexpectedly").
 * @param factory creates the Worker; pass `() => new Worker(new URL('…', import.meta.url), { type: 'module' })`
 *                so Vite bundles the entry.
 */
export function createWorkerClient<A extends WorkerApi>(
  name: string,
  factory: () => Worker,
  options: WorkerClientOptions = {},
): WorkerClient<A> {
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  let live: Live | null = null;
  let idleTimer: ReturnType<typeof setTimeout> | null = null;

  function start(): Live {
    if (live) return live;
    const worker = factory();
    const l: Live = { worker, remote: wrap<WorkerEndpointApi>(worker), inflight: new Map() };
    const crash = (detail: string) => {
      if (live !== l) return;
      stop(new WorkerCrashedError(name, detail));
    };
    worker.addEventListener('error', (e) => {
      e.preventDefault();
      crash(e.message || 'script error');
    });
    worker.addEventListener('messageerror', () => crash('a message could not be read'));
    live = l;
    return l;
  }

  function stop(reason: Error): void {
    const l = live;
    if (!l) return;
    live = null;
    clearIdle();
    for (const reject of l.inflight.values()) reject(reason);
    l.inflight.clear();
    l.remote[releaseProxy]();
    l.worker.terminate();
  }

  function clearIdle(): void {
    if (idleTimer !== null) clearTimeout(idleTimer);
    idleTimer = null;
  }

  function scheduleIdle(): void {
    clearIdle();
    if (idleMs <= 0 || !live || live.inflight.size > 0) return;
    idleTimer = setTimeout(() => {
      if (live && live.inflight.size === 0) stop(new NeuroEvalError('WORKER_TERMINATED', `The ${name} worker was stopped.`));
    }, idleMs);
  }

  async function call(method: string, input: unknown, opts: CallOptions = {}): Promise<unknown> {
    const { signal, onProgress } = opts;
    if (signal?.aborted) throw new AbortedError();
    const l = start();
    clearIdle();
    const callId = nextCallId++;
    const progressProxy = onProgress ? proxy((p: Progress) => onProgress(p)) : undefined;
    const payload = opts.transfer?.length ? transfer(input, [...opts.transfer]) : input;

    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        l.inflight.delete(callId);
        signal?.removeEventListener('abort', onAbort);
        fn();
        scheduleIdle();
      };
      const onAbort = () => {
        // Tell the worker to stop, but answer the caller now: a cancelled call must not hang the UI.
        if (live === l) l.remote.abort(callId).catch(() => {});
        finish(() => reject(new AbortedError()));
      };
      l.inflight.set(callId, (e) => finish(() => reject(e)));
      signal?.addEventListener('abort', onAbort, { once: true });

      l.remote.call(method, payload, callId, progressProxy).then(
        (envelope) => finish(() => (envelope.ok ? resolve(envelope.value) : reject(fromSerialized(envelope.error)))),
        (error: unknown) => finish(() => reject(error instanceof Error ? error : new Error(String(error)))),
      );
    });
  }

  const api = new Proxy({} as ClientApi<A>, {
    get(_target, prop) {
      if (typeof prop !== 'string' || prop === 'then') return undefined;
      return (input: unknown, options?: CallOptions) => call(prop, input, options);
    },
  });

  return {
    api,
    get running() {
      return live !== null;
    },
    get pending() {
      return live?.inflight.size ?? 0;
    },
    terminate() {
      stop(new NeuroEvalError('WORKER_TERMINATED', `The ${name} worker was stopped.`));
    },
  };
}
