/**
 * How a run stops when storing fails. A full disk is the common case: the
 * browser refuses the write (QuotaExceededError, or an aborted transaction),
 * or closes the database outright (STORAGE_CLOSED).
 * Answers are written one by one before the next request, so everything
 * before the refused write is stored; the run is paused, not failed, so
 * that it resumes where it stopped once there is room.
 */
import { isQuotaError, NeuroEvalError } from '../errors.ts';


/** A failure of the database itself (as opposed to the engine or the plan). */
export function isStorageFailure(err: unknown): boolean {
  if (isQuotaError(err)) return true;
  return err instanceof NeuroEvalError && (err.code === 'QUOTA_EXCEEDED' || err.code === 'STORAGE_FAILED' || err.code === 'STORAGE_CLOSED');
}

/** The message a user reads when a run stops because an answer could not be stored. */
export function storageStopMessage(err: unknown, progress: { readonly done: number; readonly total: number }): string {
  const kept = `${progress.done} of ${progress.total} answers are stored and kept`;
  if (isQuotaError(err) || (err instanceof NeuroEvalError && err.code === 'QUOTA_EXCEEDED')) {
    return `Stopped: the disk is full, and the browser refused to store the next answer. ${kept}. Free space on this disk (or delete older runs), then resume.`;
  }
  if (err instanceof NeuroEvalError && err.code === 'STORAGE_CLOSED') {
    // Chromium closes the database on a full disk without a quota error reaching the app: say the likely cause, not a certainty.
    return `Stopped: the browser closed the database, as it does when it cannot write to the disk (most often because the disk is full). ${kept}. Free space on this disk, reload the page, then resume.`;
  }
  const why = err instanceof Error ? err.message : String(err);
  return `Stopped: the next answer could not be stored (${why}). ${kept}. If the disk is full, free space, then resume.`;
}
