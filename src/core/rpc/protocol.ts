/**
 * The contract between the app and its workers.
 *
 * A worker implements a plain object of async functions, each taking one input
 * and a {@link CallContext}. The client side (`src/lib/workers`) derives its
 * typed API from `typeof api` with {@link ClientApi}, so the signatures are
 * written once, in the worker. Results and errors travel in an
 * {@link Envelope}, because Comlink's own error transfer drops `code`.
 */
import type { ItemIdentity } from '../db/types.ts';
import type { GenerateResult } from '../engines/engine.ts';
import type { RunResponse } from '../runner/types.ts';
import type { SerializedError } from '../errors.ts';

/** Progress of a long call. `total` is absent when the amount of work is unknown. */
export interface Progress {
  /** Short machine-readable phase name, e.g. `download`, `hash`, `compile`. */
  readonly phase: string;
  readonly done: number;
  readonly total?: number;
  /** Human-readable text shown next to a progress bar; never data to parse. */
  readonly message?: string;
  /** Typed data for the caller (new tokens, a run's state); see {@link ProgressDetail}. */
  readonly detail?: ProgressDetail;
}

/**
 * Typed progress payloads. `tokens` carries only the text generated since the
 * previous report: the worker runtime's throttle merges the pieces of reports
 * it holds back (see {@link mergeProgress}), so no piece is ever lost and the
 * caller never diffs accumulated text.
 */
export type ProgressDetail =
  | { readonly kind: 'tokens'; readonly piece: string }
  | { readonly kind: 'run'; readonly run: RunProgressDetail }
  /** Answers of a batched generation that are finished, by request index (each reported once). */
  | { readonly kind: 'results'; readonly results: readonly { readonly index: number; readonly result: GenerateResult }[] };

/** A generating call's progress: one report per token (batched by the throttle), with the new text only. */
export interface TokenProgress extends Progress {
  readonly phase: 'token';
  /** Tokens (or pieces) generated so far. */
  readonly done: number;
  /** `maxTokens` of the request. */
  readonly total: number;
  readonly detail: { readonly kind: 'tokens'; readonly piece: string };
}

/** A run's state as the Runs page shows it. */
export interface RunProgressDetail {
  readonly phase: 'loading-model' | 'running' | 'finished';
  readonly modelId: string | null;
  readonly model: { readonly done: number; readonly total: number } | null;
  /** Decode speed of the model now answering (src/core/runner/decode-speed.ts). */
  readonly decodeTokensPerS: number | null;
  /** The answer just stored (its text cut to a preview). */
  readonly latest: (ItemIdentity & {
    readonly text: string;
    readonly parseError: string | null;
    readonly finishReason: string;
  }) | null;
  /**
   * The answers stored since the last report, whole and in order: the backup
   * folder keeps the answers it has seen, so its last copy is complete even
   * when the database can no longer be read (a full disk closes it). A list,
   * because a batch stores several answers within one throttle interval and
   * the throttle merges their reports ({@link mergeProgress}).
   */
  readonly rows?: readonly RunResponse[];
}

/** What the Runs page shows of a stored answer while the run goes: its text cut to a preview. */
export function answerPreview(r: RunResponse): NonNullable<RunProgressDetail['latest']> {
  return { itemKey: r.itemKey, caseId: r.caseId, questionId: r.questionId, modelId: r.modelId, variant: r.variant, sample: r.sample, text: r.rawText.slice(0, 400), parseError: r.parseError, finishReason: r.finishReason };
}

/**
 * Folds a held-back report into the next one: counts and message are the
 * newer report's, token pieces, finished results and a run's stored answers
 * are concatenated in order, other details are the newer one's (a newer state replaces an older
 * one). A batched generation reports results and no token pieces, so neither
 * is ever dropped for the other.
 */
export function mergeProgress(older: Progress | null, newer: Progress): Progress {
  if (!older) return newer;
  const a = older.detail;
  const b = newer.detail;
  if (a?.kind === 'tokens' && b?.kind === 'tokens') return { ...newer, detail: { kind: 'tokens', piece: a.piece + b.piece } };
  if (a?.kind === 'results' && b?.kind === 'results') return { ...newer, detail: { kind: 'results', results: [...a.results, ...b.results] } };
  if (a?.kind === 'run' && b?.kind === 'run' && a.run.rows?.length) {
    const rows = [...a.run.rows, ...(b.run.rows ?? [])];
    return { ...newer, detail: { kind: 'run', run: { ...b.run, latest: b.run.latest ?? a.run.latest, rows } } };
  }
  if ((a?.kind === 'tokens' || a?.kind === 'results') && !b) return { ...newer, detail: a };
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
