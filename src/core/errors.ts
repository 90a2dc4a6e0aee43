/**
 * Typed errors shared by the app, the workers and the CLI.
 *
 * Every error the user can see carries a stable `code` (for tests, logs and
 * translations) and a message written for the person reading it. Errors cross
 * worker boundaries as plain {@link SerializedError} objects and are rebuilt on
 * the other side with {@link fromSerialized}, so `instanceof NeuroEvalError`
 * and `.code` survive `postMessage`.
 */

/** Stable error codes. Changing an existing code breaks stored error records. */
export type ErrorCode =
  | 'ABORTED'
  | 'INVALID_INPUT'
  | 'NOT_FOUND'
  | 'STORAGE_FAILED'
  | 'STORAGE_VERSION'
  | 'QUOTA_EXCEEDED'
  | 'WORKER_CRASHED'
  | 'WORKER_TERMINATED'
  | 'WEBGPU_UNAVAILABLE'
  | 'UNSUPPORTED'
  | 'INTERNAL';

export interface SerializedError {
  readonly name: string;
  readonly code: ErrorCode;
  readonly message: string;
  /** Where the problem is: a file, line or field, when one is known. */
  readonly location?: ErrorLocation;
  readonly cause?: string;
  /** A finer code some errors carry (an engine's `engineCode`, e.g. ENGINE_DEVICE_LOST). */
  readonly subcode?: string;
}

export interface ErrorLocation {
  readonly file?: string;
  readonly line?: number;
  readonly field?: string;
}

export class NeuroEvalError extends Error {
  override readonly name: string = 'NeuroEvalError';
  readonly code: ErrorCode;
  readonly location?: ErrorLocation;

  constructor(code: ErrorCode, message: string, options: { location?: ErrorLocation; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.location) this.location = options.location;
  }

  toJSON(): SerializedError {
    const out: { -readonly [K in keyof SerializedError]: SerializedError[K] } = {
      name: this.name,
      code: this.code,
      message: this.message,
    };
    if (this.location) out.location = this.location;
    if (this.cause !== undefined) out.cause = describeCause(this.cause);
    return out;
  }
}

/** The operation was cancelled by its caller (an `AbortSignal` fired). */
export class AbortedError extends NeuroEvalError {
  override readonly name = 'AbortedError';
  constructor(message = 'The operation was cancelled.') {
    super('ABORTED', message);
  }
}

/** Input from a user or a file is wrong; `location` names where. */
export class InvalidInputError extends NeuroEvalError {
  override readonly name = 'InvalidInputError';
  constructor(message: string, location?: ErrorLocation) {
    super('INVALID_INPUT', message, location ? { location } : {});
  }
}

/** A worker died (crash, out of memory) while calls were in flight. */
export class WorkerCrashedError extends NeuroEvalError {
  override readonly name = 'WorkerCrashedError';
  constructor(worker: string, detail?: string) {
    super(
      'WORKER_CRASHED',
      `The ${worker} worker stopped unexpectedly${detail ? `: ${detail}` : ''}. It will be restarted on the next request.`,
    );
  }
}

/** IndexedDB refused or failed a read or write. */
export class StorageError extends NeuroEvalError {
  override readonly name = 'StorageError';
  constructor(code: 'STORAGE_FAILED' | 'STORAGE_VERSION' | 'QUOTA_EXCEEDED', message: string, cause?: unknown) {
    super(code, message, cause === undefined ? {} : { cause });
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  return String(cause);
}

const ERROR_CLASSES: Record<string, (s: SerializedError) => NeuroEvalError> = {
  AbortedError: (s) => new AbortedError(s.message),
  InvalidInputError: (s) => new InvalidInputError(s.message, s.location),
  WorkerCrashedError: (s) => Object.assign(new NeuroEvalError('WORKER_CRASHED', s.message), { name: 'WorkerCrashedError' }),
};

/** Turns anything thrown into the serialisable shape that crosses a worker boundary. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof NeuroEvalError) {
    const subcode = (error as { engineCode?: unknown }).engineCode;
    return typeof subcode === 'string' ? { ...error.toJSON(), subcode } : error.toJSON();
  }
  if (isAbortLike(error)) return new AbortedError().toJSON();
  if (error instanceof Error) {
    const code: ErrorCode = error.name === 'QuotaExceededError' ? 'QUOTA_EXCEEDED' : 'INTERNAL';
    return { name: error.name, code, message: error.message || error.name };
  }
  return { name: 'Error', code: 'INTERNAL', message: String(error) };
}

/** Rebuilds a typed error from its serialised form. */
export function fromSerialized(s: SerializedError): NeuroEvalError {
  const make = ERROR_CLASSES[s.name];
  if (make) return make(s);
  const err = new NeuroEvalError(s.code, s.message, s.location ? { location: s.location } : {});
  Object.defineProperty(err, 'name', { value: s.name });
  // Keeps e.g. ENGINE_DEVICE_LOST readable on the page, where recovery is decided.
  if (s.subcode) Object.defineProperty(err, 'engineCode', { value: s.subcode, enumerable: true });
  return err;
}

/** True for DOM `AbortError`s and our own {@link AbortedError}. */
export function isAbortLike(error: unknown): boolean {
  if (error instanceof AbortedError) return true;
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

/** Throws {@link AbortedError} if the signal has fired. Call it between units of work. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortedError();
}

/** Formats an error location as `file:line (field)` for messages and the CLI. */
export function formatLocation(loc: ErrorLocation | undefined): string {
  if (!loc) return '';
  const parts: string[] = [];
  if (loc.file) parts.push(loc.line === undefined ? loc.file : `${loc.file}:${loc.line}`);
  else if (loc.line !== undefined) parts.push(`line ${loc.line}`);
  if (loc.field) parts.push(`field "${loc.field}"`);
  return parts.join(', ');
}
