/**
 * Notices when stored data disappears. A browser that runs short of disk
 * space may evict a site's IndexedDB as a whole (when persistent storage was
 * not granted); the app would then start empty, re-load the demo and say
 * nothing. So the app keeps, outside IndexedDB, a small record of how much it
 * had stored (localStorage, which Chromium's quota eviction does not touch),
 * and compares it with the database at start-up. A drop that no deletion in
 * the app explains is reported. Where the record went too (the user cleared
 * site data), there is nothing to compare and nothing is said.
 */
import type { Repositories } from '../../core/db/index.ts';

const KEY = 'neuroeval.storedData';

export interface StoredCounts {
  readonly benchmarks: number;
  readonly runs: number;
  readonly answers: number;
}

interface Marker extends StoredCounts {
  /** When the counts were last recorded (ISO time). */
  readonly at: string;
}

/** What a record shows that the database no longer holds, or null when nothing is missing. */
export function missingData(marker: StoredCounts | null, now: StoredCounts): StoredCounts | null {
  if (!marker) return null;
  const missing = {
    benchmarks: Math.max(0, marker.benchmarks - now.benchmarks),
    runs: Math.max(0, marker.runs - now.runs),
    answers: Math.max(0, marker.answers - now.answers),
  };
  return missing.benchmarks + missing.runs + missing.answers > 0 ? missing : null;
}

function read(): Marker | null {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Partial<Marker> | null;
    if (!v || typeof v.runs !== 'number' || typeof v.answers !== 'number' || typeof v.benchmarks !== 'number') return null;
    return { benchmarks: v.benchmarks, runs: v.runs, answers: v.answers, at: String(v.at ?? '') };
  } catch {
    return null;
  }
}

function write(c: StoredCounts): void {
  try {
    localStorage.setItem(KEY, JSON.stringify({ ...c, at: new Date().toISOString() }));
  } catch {
    // localStorage full or disabled: the check is a safety net, never a reason to fail.
  }
}

async function countsOf(r: Repositories): Promise<StoredCounts> {
  const [benchmarks, runs, answers] = await Promise.all([r.benchmarks.count(), r.runs.count(), r.responses.count()]);
  return { benchmarks, runs, answers };
}

class StoredMarker {
  /** Data found missing at start-up: what was recorded, and what is left. */
  #lost = $state<{ readonly recorded: Marker; readonly missing: StoredCounts } | null>(null);
  /** The browser closed the database under the app (it may have deleted it). */
  #closed = $state(false);
  #allowDecrease = false;

  get lost() {
    return this.#lost;
  }
  get closed() {
    return this.#closed;
  }

  /** At start-up, before anything is stored: compares the record with the database. */
  async check(r: Repositories): Promise<void> {
    const recorded = read();
    const now = await countsOf(r);
    const missing = missingData(recorded, now);
    if (recorded && missing) this.#lost = { recorded, missing };
    else write(now);
  }

  /**
   * Records the database's counts after the app stored something. Counts only
   * go down after {@link noteDeletion}, so a loss is never written over
   * before it was reported.
   */
  async update(r: Repositories): Promise<void> {
    if (this.#lost) return;
    const now = await countsOf(r);
    const recorded = read();
    if (this.#allowDecrease || !missingData(recorded, now)) write(now);
    this.#allowDecrease = false;
  }

  /** The user deleted something: the next {@link update} may record fewer items. */
  noteDeletion(): void {
    this.#allowDecrease = true;
  }

  /** The browser closed the database while the app was using it. */
  noteClosed(): void {
    this.#closed = true;
  }

  /** The user has read the notice: what is stored now becomes the record. */
  async dismiss(r: Repositories): Promise<void> {
    // The record first, then the notice goes: a reload right after the click must not find the old record and say it again.
    write(await countsOf(r));
    this.#lost = null;
  }
}

export const storedMarker = new StoredMarker();
