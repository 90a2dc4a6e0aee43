/**
 * Progress of a long call, as workers report it and pages show it. The
 * payloads are typed by their owners (a batch's results by the engines, a
 * run's state and answers by the runner), which read them back with their
 * own functions; this file imports nothing, so any layer can report progress.
 */

/** Progress of a long call. `total` is absent when the amount of work is unknown. */
export interface Progress {
  /** Short machine-readable phase name, e.g. `download`, `hash`, `compile`. */
  readonly phase: string;
  readonly done: number;
  readonly total?: number;
  /** Human-readable text shown next to a progress bar; never data to parse. */
  readonly message?: string;
  /** Typed data for the caller (new tokens, finished answers, a run's state); see {@link ProgressDetail}. */
  readonly detail?: ProgressDetail;
}

/**
 * Progress payloads. Each carries only what is new since the previous report
 * (text pieces, finished results, stored answers): the worker runtime's
 * throttle concatenates the ones it holds back (src/core/rpc/protocol.ts,
 * `mergeProgress`), so nothing is lost and the caller never diffs.
 */
export type ProgressDetail =
  | { readonly kind: 'tokens'; readonly piece: string }
  /** Answers of a batched generation that are finished, by request index (each reported once); read with the engines' `batchResultsOf`. */
  | { readonly kind: 'results'; readonly results: readonly { readonly index: number; readonly result: unknown }[] }
  /** A run's state and the answers it stored since the last report, in order; read with the runner's `runReportOf`. */
  | { readonly kind: 'run'; readonly run: unknown; readonly rows: readonly unknown[] };

/** A generating call's progress: one report per token (batched by the throttle), with the new text only. */
export interface TokenProgress extends Progress {
  readonly phase: 'token';
  /** Tokens (or pieces) generated so far. */
  readonly done: number;
  /** `maxTokens` of the request. */
  readonly total: number;
  readonly detail: { readonly kind: 'tokens'; readonly piece: string };
}
