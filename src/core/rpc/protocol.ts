/**
 * The contract between the app and its workers.
 *
 * A worker implements a plain object of async functions, each taking one input
 * and a {@link CallContext}. The client side (`src/lib/workers`) derives its
 * typed API from `typeof api` with {@link ClientApi}, so the signatures are
 * written once, in the worker. Results and errors travel in an
 * {@link Envelope}, because Comlink's own error transfer drops `code`.
 */
import type { SerializedError } from '../errors.ts';

/** Progress of a long call. `total` is absent when the amount of work is unknown. */
export interface Progress {
  /** Short machine-readable phase name, e.g. `download`, `hash`, `compile`. */
  readonly phase: string;
  readonly done: number;
  readonly total?: number;
  /** Human-readable detail shown next to a progress bar. */
  readonly message?: string;
}

/** What every worker function receives besides its input. */
export interface CallContext {
  /** Fires when the caller aborts; long loops must check it between units of work. */
  readonly signal: AbortSignal;
  /** Reports progress to the caller (throttled by the runtime). */
  progress(p: Progress): void;
}

/** Options every client-side call accepts. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: Progress) => void;
  /** Buffers inside the input to move (not copy) to the worker. */
  readonly transfer?: readonly Transferable[];
}

export type WorkerFunction = (input: never, ctx: CallContext) => Promise<unknown>;
export type WorkerApi = Record<string, WorkerFunction>;

/** The client view of one worker function: `CallOptions` instead of `CallContext`; void inputs become optional. */
export type ClientFunction<F> = F extends (...args: infer P) => Promise<infer O>
  ? P extends []
    ? (input?: undefined, options?: CallOptions) => Promise<O>
    : P extends [infer I, ...unknown[]]
      ? [I] extends [void | undefined]
        ? (input?: I, options?: CallOptions) => Promise<O>
        : (input: I, options?: CallOptions) => Promise<O>
      : never
  : never;

/** The client view of a worker API, derived from `typeof api` so signatures are written once. */
export type ClientApi<A extends WorkerApi> = { readonly [K in keyof A]: ClientFunction<A[K]> };

export type Envelope<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: SerializedError };

/** What the worker runtime exposes over Comlink. Internal to `src/lib/workers` and `workers/runtime`. */
export interface WorkerEndpointApi {
  call(method: string, input: unknown, callId: number, onProgress?: (p: Progress) => void): Promise<Envelope<unknown>>;
  abort(callId: number): void;
  methods(): string[];
}
