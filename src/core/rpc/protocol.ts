/**
 * The contract between the app and its workers.
 *
 * A worker implements a plain object of async functions, each taking one input
 * and a {@link CallContext}. The client side (`src/lib/workers`) derives its
 * typed API from `typeof api` with {@link ClientApi}, so the signatures are
 * written once, in the worker. Results and errors travel in an
 * {@link Envelope}, because Comlink's own error transfer drops `code`.
 */
import type { Progress } from '../model/progress.ts';
import type { SerializedError } from '../errors.ts';

/**
 * Folds a held-back report into the next one: counts and message are the
 * newer report's; token pieces, finished results and a run's stored answers
 * are concatenated in order; a run's state is the newer one's. A batched
 * generation reports results and no token pieces, so neither is ever dropped
 * for the other.
 */
export function mergeProgress(older: Progress | null, newer: Progress): Progress {
  if (!older) return newer;
  const a = older.detail;
  const b = newer.detail;
  if (a?.kind === 'tokens' && b?.kind === 'tokens') return { ...newer, detail: { kind: 'tokens', piece: a.piece + b.piece } };
  if (a?.kind === 'results' && b?.kind === 'results') return { ...newer, detail: { kind: 'results', results: [...a.results, ...b.results] } };
  if (a?.kind === 'run' && b?.kind === 'run') return { ...newer, detail: { kind: 'run', run: b.run, rows: [...a.rows, ...b.rows] } };
  if ((a?.kind === 'tokens' || a?.kind === 'results' || a?.kind === 'run') && !b) return { ...newer, detail: a };
  if (a?.kind === 'results') return { ...newer, detail: a };
  return newer;
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

type WorkerFunction = (input: never, ctx: CallContext) => Promise<unknown>;
export type WorkerApi = Record<string, WorkerFunction>;

/** The client view of one worker function: `CallOptions` instead of `CallContext`; void inputs become optional. */
type ClientFunction<F> = F extends (...args: infer P) => Promise<infer O>
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
