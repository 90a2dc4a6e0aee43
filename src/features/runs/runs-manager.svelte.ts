/**
 * Live state of the runs this tab drives: progress from the runner worker,
 * and the start / resume / pause / cancel actions. Everything durable lives
 * in IndexedDB; this is only what the page shows while a run is going.
 */
import { isAbortLike } from '../../core/errors.ts';
import type { RunOutcome } from '../../core/runner/index.ts';
import { runnerWorker } from '../../lib/workers/clients.ts';
import { answerPreview, runReportOf, type AnswerPreview } from '../../core/runner/report.ts';
import type { RunProgress } from '../../core/runner/types.ts';
import { modelHost } from '../../lib/engines/app-host.ts';
import { repos } from '../../lib/storage/app-db.ts';
import { persistence } from '../../lib/storage/persistence.svelte.ts';
import { storedMarker } from '../../lib/storage/stored-marker.svelte.ts';
import { backupFolder } from '../../lib/storage/backup-folder.svelte.ts';
import type { CreateRunInput } from '../../../workers/runner.worker.ts';
import { liveRemaining, runPrior, type LiveRemaining, type RunPrior } from './live-estimate.ts';

interface LiveRun {
  readonly done: number;
  readonly total: number;
  readonly startedAt: number;
  readonly startDone: number;
  readonly message: RunProgress | null;
  /** The latest answers, newest first. */
  readonly latest: readonly AnswerPreview[];
  /** The measured estimate of what was left when the run started here; null until read, or without a record. */
  readonly prior: RunPrior | null;
  /** The model whose live rate is timed, from its first answer in this session (which includes its load). */
  readonly timing: { readonly modelId: string; readonly at: number; readonly modelDone: number } | null;
}

class RunsManager {
  #live = $state<Record<string, LiveRun>>({});
  #errors = $state<Record<string, string>>({});
  #outcomes = $state<Record<string, RunOutcome>>({});
  /** Per device, the model the last run here asked last: the one still loaded (the pool keeps one), see estimateRun's `warm`. */
  #resident = $state.raw<Readonly<Record<string, string>>>({});

  /** The model loaded on `device` in this page, as a set (empty when none). */
  warmOn(device: string): ReadonlySet<string> {
    const id = this.#resident[device];
    return new Set(id ? [id] : []);
  }

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
    this.#live = { ...this.#live, [runId]: { done: 0, total: 0, startedAt: performance.now(), startDone: -1, message: null, latest: [], prior: null, timing: null } };
    void repos()
      .then((r) => runPrior(r, runId, (device) => this.warmOn(device)))
      .then((prior) => {
        const now = this.#live[runId];
        if (now) this.#live[runId] = { ...now, prior };
      })
      .catch(() => undefined); // without a prior the live rate alone gives the time left
    try {
      const host = modelHost.connect();
      const outcome = await runnerWorker.api.start(
        { runId, host },
        {
          transfer: [host],
          onProgress: (p) => {
            const prev = this.#live[runId];
            if (!prev) return;
            const report = runReportOf(p);
            const message = report?.run ?? prev.message;
            // Newest first, each item once. A batch's answers arrive together (oldest first); each is shown.
            const fresh = (report?.rows ?? []).map(answerPreview).reverse();
            const freshKeys = new Set(fresh.map((l) => l.itemKey));
            const latest = fresh.length ? [...fresh, ...prev.latest.filter((l) => !freshKeys.has(l.itemKey))].slice(0, 8) : prev.latest;
            // A model's rate is timed from its first answer here: the time before it is its load.
            const answered = p.done > prev.done && message?.modelId && message.model;
            const timing = answered && prev.timing?.modelId !== message.modelId ? { modelId: message.modelId!, at: performance.now(), modelDone: message.model!.done } : prev.timing;
            this.#live[runId] = { ...prev, done: p.done, total: p.total ?? prev.total, startDone: prev.startDone < 0 ? p.done : prev.startDone, message, latest, timing };
            for (const row of report?.rows ?? []) backupFolder.answer(runId, row);
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
      const ended = this.#live[runId];
      const last = ended?.message?.modelId ?? ended?.prior?.models.at(-1)?.modelId;
      if (ended?.prior && last && ended.done > Math.max(0, ended.startDone)) this.#resident = { ...this.#resident, [ended.prior.device]: last };
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

/** Time left, from the measured speeds and this session's rate, and the answers that rate is over; null remaining before either is known. */
export function eta(live: LiveRun): { remaining: LiveRemaining | null; liveAnswers: number } {
  const m = live.message;
  const t = live.timing && m?.modelId === live.timing.modelId && m.model ? live.timing : null;
  const answers = t && m?.model ? m.model.done - t.modelDone : 0;
  const current = { modelId: m?.modelId ?? null, itemsLeft: m?.model ? m.model.total - m.model.done : live.total - live.done, answers, seconds: t ? (performance.now() - t.at) / 1000 : 0, started: t !== null };
  return { remaining: live.total > 0 ? liveRemaining(live.prior, current, live.total - live.done) : null, liveAnswers: answers };
}
