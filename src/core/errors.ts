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
type ErrorCode =
  | 'ABORTED'
  | 'INVALID_INPUT'
  | 'NOT_FOUND'
  | 'STORAGE_FAILED'
  | 'STORAGE_VERSION'
  | 'STORAGE_CLOSED'
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

/**
 * IndexedDB refused or failed a read or write. STORAGE_CLOSED: the browser
 * itself closed the database connection (it cannot write to the disk, or the
 * site's data was cleared), so nothing more can be read or stored until a reload.
 */
export type StorageErrorCode = 'STORAGE_FAILED' | 'STORAGE_VERSION' | 'STORAGE_CLOSED' | 'QUOTA_EXCEEDED';
const STORAGE_CODES: ReadonlySet<string> = new Set<StorageErrorCode>(['STORAGE_FAILED', 'STORAGE_VERSION', 'STORAGE_CLOSED', 'QUOTA_EXCEEDED']);

export class StorageError extends NeuroEvalError {
  override readonly name = 'StorageError';
  constructor(code: StorageErrorCode, message: string, cause?: unknown) {
    super(code, message, cause === undefined ? {} : { cause });
  }
}

/** Engine failures the UI can act on; `engineCode` says how (see {@link EngineError}). */
export type EngineErrorCode =
  | 'ENGINE_UNREACHABLE'
  | 'ENGINE_HTTP'
  | 'ENGINE_BAD_RESPONSE'
  | 'ENGINE_MODEL_MISSING'
  | 'ENGINE_NOT_LOADED'
  | 'ENGINE_DEVICE_LOST'
  | 'ENGINE_UNSUPPORTED';

/**
 * An engine failed; `engineCode` says how, and the message says what to do.
 * Defined here (not with the engines) so that {@link fromSerialized} can
 * rebuild it on the far side of a worker boundary with its class and code:
 * a lost GPU device is `engineCode === 'ENGINE_DEVICE_LOST'`, never a match
 * on the message.
 */
export class EngineError extends NeuroEvalError {
  override readonly name = 'EngineError';
  readonly engineCode: EngineErrorCode;
  constructor(engineCode: EngineErrorCode, message: string, cause?: unknown) {
    super(engineCode === 'ENGINE_UNSUPPORTED' ? 'UNSUPPORTED' : 'INTERNAL', message, cause === undefined ? {} : { cause });
    this.engineCode = engineCode;
  }

  override toJSON(): SerializedError {
    return { ...super.toJSON(), subcode: this.engineCode };
  }
}

/** Whether an error (from this realm or rebuilt from a worker) is a lost GPU device. */
export function isDeviceLost(error: unknown): boolean {
  return error instanceof EngineError && error.engineCode === 'ENGINE_DEVICE_LOST';
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  return String(cause);
}

const ENGINE_CODES: ReadonlySet<string> = new Set<EngineErrorCode>([
  'ENGINE_UNREACHABLE',
  'ENGINE_HTTP',
  'ENGINE_BAD_RESPONSE',
  'ENGINE_MODEL_MISSING',
  'ENGINE_NOT_LOADED',
  'ENGINE_DEVICE_LOST',
  'ENGINE_UNSUPPORTED',
]);

/** How each error class is rebuilt from its serialised form, so `instanceof` and codes survive a worker boundary. */
const ERROR_CLASSES: Record<string, (s: SerializedError) => NeuroEvalError> = {
  AbortedError: (s) => new AbortedError(s.message),
  InvalidInputError: (s) => new InvalidInputError(s.message, s.location),
  WorkerCrashedError: (s) => Object.assign(new NeuroEvalError('WORKER_CRASHED', s.message), { name: 'WorkerCrashedError' }),
  StorageError: (s) =>
    new StorageError(STORAGE_CODES.has(s.code) ? (s.code as StorageErrorCode) : 'STORAGE_FAILED', s.message, s.cause === undefined ? undefined : s.cause),
  EngineError: (s) => new EngineError(s.subcode && ENGINE_CODES.has(s.subcode) ? (s.subcode as EngineErrorCode) : 'ENGINE_BAD_RESPONSE', s.message, s.cause === undefined ? undefined : s.cause),
};

/** Turns anything thrown into the serialisable shape that crosses a worker boundary. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof NeuroEvalError) return error.toJSON();
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

/**
 * An error's message with its location in front (`cases.csv:1, field "id": …`)
 * unless the message already names the file: for places that show a thrown
 * error as one line (the app's alerts, the CLI), so no error loses its file.
 */
export function messageWithLocation(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const loc = error instanceof NeuroEvalError ? error.location : undefined;
  const where = formatLocation(loc);
  if (!where || (loc?.file && message.includes(loc.file))) return message;
  return `${where}: ${message}`;
}

/** The fields of a thrown value that storages (IndexedDB, Dexie, Node's fs) use to say what went wrong. */
interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  inner?: unknown;
  cause?: unknown;
  failures?: unknown;
}

/** True if `err`, or an error nested in it (Dexie `inner`, `cause`, bulk `failures`), passes `test`. The depth limit only protects against cycles: error chains are short. */
export function anyNestedError(err: unknown, test: (e: ErrorLike) => boolean, depth = 0): boolean {
  if (depth > 5 || typeof err !== 'object' || err === null) return false;
  const e = err as ErrorLike;
  if (test(e)) return true;
  const nested: unknown[] = [e.inner, e.cause];
  if (Array.isArray(e.failures)) nested.push(...(e.failures as unknown[]));
  else if (typeof e.failures === 'object' && e.failures !== null) nested.push(...Object.values(e.failures));
  return nested.some((n) => anyNestedError(n, test, depth + 1));
}

/**
 * Chromium reports a full disk under IndexedDB as an aborted transaction whose
 * message carries LevelDB's file error (`FILE_ERROR_NO_SPACE`), not as a quota error.
 */
const NO_SPACE = /FILE_ERROR_NO_SPACE|No space left on device|ENOSPC/;

/** True if `err`, or any error nested in it (Dexie `inner`, `cause`, bulk `failures`), is a quota or no-space error. */
export function isQuotaError(err: unknown): boolean {
  return anyNestedError(err, (e) => e.name === 'QuotaExceededError' || e.code === 22 || (typeof e.message === 'string' && NO_SPACE.test(e.message)));
}
