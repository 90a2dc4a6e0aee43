/**
 * A backup folder outside the browser's storage: each run's export (the same
 * JSON as "Download run") is written there while the run goes and when it
 * stops, so a full disk, an evicted site or a shared workstation's clean-up
 * cannot take the answers with it. Where the browser has the File System
 * Access API the user picks a folder once; elsewhere the export is
 * downloaded when a run stops. A backup never stops or slows a run: a failed
 * write is shown, and the next one tries again.
 */
import { repos } from './app-db.ts';
import { resultsWorker } from '../workers/clients.ts';
import { download } from '../files/download.ts';
import { SeenAnswers, type ExportFile } from './seen-answers.ts';
import type { ResponseRecord } from '../../core/model/answer.ts';

type Mode = 'off' | 'folder' | 'download';

/** The part of `FileSystemDirectoryHandle` the backup writes through. */
interface Folder {
  readonly name: string;
  getFileHandle(name: string, options: { create: boolean }): Promise<{ createWritable(): Promise<{ write(data: string): Promise<void>; close(): Promise<void> }> }>;
  queryPermission?(d: { mode: 'readwrite' }): Promise<PermissionState>;
  requestPermission?(d: { mode: 'readwrite' }): Promise<PermissionState>;
}

const SETTING = 'backup.folder';
const MODE_KEY = 'neuroeval.backupMode';
/** At most one write per run in this interval while it runs; the final write after it stops always happens. */
const MIN_INTERVAL_MS = 5_000;
/**
 * Each copy rewrites the whole run, so on a long run a copy every few seconds
 * would cost time that grows with the square of its length: the pause after a
 * copy is at least this many times as long as the copy took (at most a tenth
 * of the run's time goes to backups).
 */
const PAUSE_PER_COPY_TIME = 9;

interface LastWrite {
  readonly file: string;
  readonly at: number;
  readonly error: string | null;
}

class BackupFolder {
  #mode = $state<Mode>('off');
  #folder = $state.raw<Folder | null>(null);
  #needsPermission = $state(false);
  /** The folder could not be remembered (kept for this session only). */
  #sessionOnly = $state(false);
  #last = $state<Record<string, LastWrite>>({});
  #writing = new Map<string, Promise<void>>();
  /** Per run: when the next copy may start while it runs (performance.now()). */
  #nextStart = new Map<string, number>();
  /** Per run: what the copy is written from when the database cannot be read any more (a full disk closes it). */
  #seen = new Map<string, SeenAnswers>();

  /** Whether this browser lets the app write into a folder the user picks. */
  get supported(): boolean {
    return typeof (globalThis as { showDirectoryPicker?: unknown }).showDirectoryPicker === 'function';
  }
  get mode(): Mode {
    return this.#mode;
  }
  get folderName(): string | null {
    return this.#folder?.name ?? null;
  }
  get needsPermission(): boolean {
    return this.#needsPermission;
  }
  get sessionOnly(): boolean {
    return this.#sessionOnly;
  }
  last(runId: string): LastWrite | undefined {
    return this.#last[runId];
  }

  /** At start-up: the folder chosen earlier, and whether the browser still lets us write there. */
  async restore(): Promise<void> {
    const mode = (localStorage.getItem(MODE_KEY) as Mode | null) ?? 'off';
    if (mode === 'download') this.#mode = 'download';
    if (mode !== 'folder') return;
    const folder = (await (await repos()).settings.get<Folder | null>(SETTING, null).catch(() => null)) ?? null;
    if (!folder) return;
    this.#folder = folder;
    this.#mode = 'folder';
    this.#needsPermission = (await folder.queryPermission?.({ mode: 'readwrite' }).catch(() => 'prompt' as const)) !== 'granted';
  }

  /** Lets the user pick the folder (a user gesture). */
  async choose(): Promise<void> {
    const pick = (globalThis as { showDirectoryPicker?: (o: object) => Promise<Folder> }).showDirectoryPicker;
    if (!pick) throw new Error('This browser cannot write into a folder; choose downloads instead.');
    const folder = await pick({ id: 'neuroeval-backup', mode: 'readwrite' });
    this.#folder = folder;
    this.#mode = 'folder';
    this.#needsPermission = false;
    localStorage.setItem(MODE_KEY, 'folder');
    try {
      await (await repos()).settings.set(SETTING, folder);
      this.#sessionOnly = false;
    } catch {
      this.#sessionOnly = true;
    }
  }

  /** After a reload the browser asks again before the app may write (a user gesture). */
  async reconnect(): Promise<void> {
    this.#needsPermission = (await this.#folder?.requestPermission?.({ mode: 'readwrite' })) !== 'granted';
  }

  useDownloads(): void {
    this.#mode = 'download';
    localStorage.setItem(MODE_KEY, 'download');
  }

  turnOff(): void {
    this.#mode = 'off';
    this.#folder = null;
    localStorage.setItem(MODE_KEY, 'off');
    void repos().then((r) => r.settings.set(SETTING, null)).catch(() => undefined);
  }

  /** An answer the runner has just stored. */
  answer(runId: string, row: ResponseRecord): void {
    if (this.#mode === 'off') return;
    this.#seenFor(runId).add(row);
  }

  #seenFor(runId: string): SeenAnswers {
    let seen = this.#seen.get(runId);
    if (!seen) this.#seen.set(runId, (seen = new SeenAnswers()));
    return seen;
  }

  /** The run's export: read from the database, or else rebuilt from the last one read and the answers seen since. */
  #export(runId: string): Promise<ExportFile> {
    return this.#seenFor(runId).export(() => resultsWorker.api.exportRun({ runId }), Date.now());
  }

  /** While a run goes: writes its export now and then (never two at once, at most every few seconds). */
  progress(runId: string): void {
    if (this.#mode !== 'folder' || this.#writing.has(runId)) return;
    if (performance.now() < (this.#nextStart.get(runId) ?? -Infinity)) return;
    void this.#write(runId);
  }

  /** When a run stops (done, paused, failed): the export with every stored answer, waited for. */
  async stopped(runId: string): Promise<void> {
    await this.#writing.get(runId);
    try {
      if (this.#mode === 'folder') await this.#write(runId);
      else if (this.#mode === 'download') {
        const f = await this.#export(runId);
        download(backupName(f.fileName, runId), f.text, 'application/json');
        this.#last = { ...this.#last, [runId]: { file: backupName(f.fileName, runId), at: Date.now(), error: null } };
      }
    } finally {
      // The last copy is written: the run's export text and answers need not stay in memory (a resumed run starts afresh).
      this.#seen.delete(runId);
      this.#nextStart.delete(runId);
    }
  }

  #write(runId: string): Promise<void> {
    const folder = this.#folder;
    if (!folder || this.#needsPermission) return Promise.resolve();
    const started = performance.now();
    this.#nextStart.set(runId, started + MIN_INTERVAL_MS);
    const job = (async () => {
      let file = '';
      try {
        const f = await this.#export(runId);
        file = backupName(f.fileName, runId);
        const writable = await (await folder.getFileHandle(file, { create: true })).createWritable();
        await writable.write(f.text);
        await writable.close();
        this.#last = { ...this.#last, [runId]: { file, at: Date.now(), error: null } };
      } catch (e) {
        this.#last = { ...this.#last, [runId]: { file, at: Date.now(), error: e instanceof Error ? e.message : String(e) } };
      } finally {
        const took = performance.now() - started;
        this.#nextStart.set(runId, started + Math.max(MIN_INTERVAL_MS, took * (1 + PAUSE_PER_COPY_TIME)));
        this.#writing.delete(runId);
      }
    })();
    this.#writing.set(runId, job);
    return job;
  }
}

/** One file per run: the export's name with the run id, so two runs of the same name do not overwrite each other. */
function backupName(exportName: string, runId: string): string {
  return exportName.replace(/\.json$/, `-${runId.replace(/[^\w-]+/g, '').slice(0, 12)}.json`);
}

export const backupFolder = new BackupFolder();
