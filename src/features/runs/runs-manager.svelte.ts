/**
 * Live state of the runs this tab drives: progress from the runner worker,
 * and the start / resume / pause / cancel actions. Everything durable lives
 * in IndexedDB; this is only what the page shows while a run is going.
 */
import { isAbortLike } from '../../core/errors.ts';
import type { RunOutcome } from '../../core/runner/index.ts';
import { runnerWorker } from '../../lib/workers/clients.ts';
import type { RunProgressDetail } from '../../core/rpc/protocol.ts';
import { modelHost } from '../../lib/engines/app-host.ts';
import { repos } from '../../lib/storage/app-db.ts';
import { persistence } from '../../lib/storage/persistence.svelte.ts';
import { storedMarker } from '../../lib/storage/stored-marker.svelte.ts';
import { backupFolder } from '../../lib/storage/backup-folder.svelte.ts';
import type { CreateRunInput } from '../../../workers/runner.worker.ts';

interface LiveRun {
  readonly done: number;
  readonly total: number;
  readonly startedAt: number;
  readonly startDone: number;
  readonly message: RunProgressDetail | null;
  /** The latest answers, newest first. */
  readonly latest: readonly NonNullable<RunProgressDetail['latest']>[];
}

class RunsManager {
  #live = $state<Record<string, LiveRun>>({});
  #errors = $state<Record<string, string>>({});
  #outcomes = $state<Record<string, RunOutcome>>({});

  live(runId: string): LiveRun | undefined {
    return this.#live[runId];
  }
  error(runId: string): string | undefined {
    return this.#errors[runId];
  }
  outcome(runId: string): RunOutcome | undefined {
    return this.#outcomes[runId];
  }
  isRunningHere(runId: string): boolean {
    return runId in this.#live;
  }

  async create(input: CreateRunInput): Promise<string> {
    // The first run is when hours of answers start to depend on the browser keeping its storage.
    void persistence.request();
    const { runId } = await runnerWorker.api.create(input);
    void repos().then((r) => storedMarker.update(r));
    return runId;
  }

  /** Starts or resumes a run in this tab; resolves when it ends, pauses or is cancelled. */
  async start(runId: string): Promise<void> {
    if (this.isRunningHere(runId)) return;
    const { [runId]: _e, ...errors } = this.#errors;
    this.#errors = errors;
    this.#live = { ...this.#live, [runId]: { done: 0, total: 0, startedAt: performance.now(), startDone: -1, message: null, latest: [] } };
    try {
      const host = modelHost.connect();
      const outcome = await runnerWorker.api.start(
        { runId, host },
        {
          transfer: [host],
          onProgress: (p) => {
            const prev = this.#live[runId];
            if (!prev) return;
            const message = p.detail?.kind === 'run' ? p.detail.run : prev.message;
            // Newest first, each item once (a report may repeat the answer an earlier one carried).
            const newest = message?.latest;
            const latest = newest && newest.itemKey !== prev.latest[0]?.itemKey ? [newest, ...prev.latest.filter((l) => l.itemKey !== newest.itemKey)].slice(0, 8) : prev.latest;
            this.#live[runId] = { ...prev, done: p.done, total: p.total ?? prev.total, startDone: prev.startDone < 0 ? p.done : prev.startDone, message, latest };
            if (message?.row) backupFolder.answer(runId, message.row);
            if (p.done > prev.done) backupFolder.progress(runId);
          },
        },
      );
      // Every answer stored goes to the backup folder before the run counts as stopped here.
      await backupFolder.stopped(runId).catch(() => undefined);
      this.#outcomes = { ...this.#outcomes, [runId]: outcome };
      if (outcome.error) this.#errors = { ...this.#errors, [runId]: outcome.error };
    } catch (e) {
      if (!isAbortLike(e)) this.#errors = { ...this.#errors, [runId]: e instanceof Error ? e.message : String(e) };
    } finally {
      const { [runId]: _gone, ...rest } = this.#live;
      this.#live = rest;
      void repos().then((r) => storedMarker.update(r)).catch(() => undefined);
    }
  }

  pause(runId: string): void {
    void runnerWorker.api.pause({ runId });
  }

  cancel(runId: string): void {
    void runnerWorker.api.cancel({ runId });
  }
}

export const runsManager = new RunsManager();

/** Seconds left at the pace of this session, or null before the pace is known. */
export function etaSeconds(live: LiveRun): number | null {
  const doneHere = live.done - Math.max(0, live.startDone);
  const elapsed = (performance.now() - live.startedAt) / 1000;
  if (doneHere < 2 || elapsed <= 0 || live.total <= live.done) return live.total > 0 && live.total <= live.done ? 0 : null;
  return ((live.total - live.done) * elapsed) / doneHere;
}
