/**
 * Turns whatever IndexedDB or Dexie throws into the app's typed errors.
 *
 * Browsers report a full disk in several shapes: a `QuotaExceededError`
 * DOMException from the request, an `AbortError` on the transaction whose
 * `inner`/`cause` is the quota error, or a Dexie `BulkError` whose per-row
 * `failures` hold it. We walk all of those so the user always sees the same
 * QUOTA_EXCEEDED message.
 */
import { anyNestedError, isQuotaError, NeuroEvalError, StorageError } from '../errors.ts';

export const QUOTA_MESSAGE =
  'The browser refused to store more data: storage is full. Free space in Settings or delete old runs.';

// The database is opened with autoOpen off, so after another tab upgrades it
// (Dexie closes ours on `versionchange`) every operation fails this way.
const CLOSED_MESSAGE =
  'The NeuroEval database is closed, possibly because a newer version of the app was opened in another tab. Reload this page to continue.';

/**
 * The browser closes every connection to the database itself (the IndexedDB
 * `close` event) when it cannot write to the disk: Chromium does so when its
 * store, or its own background compaction, hits a full disk, and the first
 * thing the app then sees may be a read aborted mid-way, with no quota error
 * anywhere. Clearing the site's data does the same.
 */
export const CLOSED_BY_BROWSER_MESSAGE =
  'The browser closed the NeuroEval database, as it does when it cannot write to the disk (most often because the disk is full) ' +
  "or when the site's data is cleared. Free space on the disk, then reload the page; stored data is not deleted by this.";

/** Message for a database written by a newer app version (Dexie version `version`). */
export function newerVersionMessage(version: number): string {
  return (
    `This browser holds NeuroEval data from a newer version of the app (database version ${version}). ` +
    'Open the newer version, or export your data there first.'
  );
}

/** The NOT_FOUND error the repositories throw from their `require…` methods. */
export function notFound(what: string, key: unknown): NeuroEvalError {
  return new NeuroEvalError('NOT_FOUND', `No ${what} with id ${JSON.stringify(key)} is stored in this browser.`);
}

/** True if `err` or a nested error is a `VersionError` (IndexedDB or Dexie). */
export function isVersionError(err: unknown): boolean {
  return anyNestedError(err, (e) => e.name === 'VersionError');
}

/**
 * Maps an error thrown by a storage operation to a typed error. Our own errors
 * pass through unchanged; `action` completes "Could not …" for other failures.
 */
export function toStorageError(err: unknown, action: string, db: ConnectionState = OPEN): NeuroEvalError {
  if (err instanceof NeuroEvalError) return err;
  if (isQuotaError(err)) return new StorageError('QUOTA_EXCEEDED', QUOTA_MESSAGE, err);
  // Once the browser has closed the connection, whatever failed (an aborted read, "database closed") failed because of that.
  if (db.closedByBrowser) return new StorageError('STORAGE_CLOSED', CLOSED_BY_BROWSER_MESSAGE, err);
  if (anyNestedError(err, (e) => e.name === 'DatabaseClosedError')) return new StorageError('STORAGE_FAILED', CLOSED_MESSAGE, err);
  return new StorageError('STORAGE_FAILED', `Could not ${action}: ${describe(err)}`, err);
}

/** What the error mapping needs to know of the connection an operation ran on. */
export interface ConnectionState {
  /** True once the browser itself closed the connection (see {@link CLOSED_BY_BROWSER_MESSAGE}). */
  readonly closedByBrowser: boolean;
}

const OPEN: ConnectionState = { closedByBrowser: false };

/** Runs a storage operation and rethrows its failure as a typed error (see {@link toStorageError}). */
export type Guard = <T>(action: string, op: () => Promise<T>) => Promise<T>;

/** The {@link Guard} for operations on `db`: its failures say so when the browser has closed `db`. */
export function guardFor(db: ConnectionState): Guard {
  return async (action, op) => {
    try {
      return await op();
    } catch (err) {
      throw toStorageError(err, action, db);
    }
  };
}


function describe(err: unknown): string {
  if (err instanceof Error) {
    const msg = err.message || err.name;
    // Dexie messages often already start with the name; avoid "DataError: DataError: …".
    return msg.startsWith(err.name) ? msg : `${err.name}: ${msg}`;
  }
  return String(err);
}
