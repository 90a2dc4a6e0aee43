/**
 * What a CLI run leaves on disk.
 *
 * CHOICE: `--out <file>` is a standard run export (`neuroeval-run` JSON,
 * src/core/scoring/io/run-export.ts), the very format the app's run import,
 * `neuroeval score` and `neuroeval export` read, so nothing else has to learn
 * a new format. It is (re)written atomically whenever a session ends (done,
 * paused, interrupted, failed). The crash-safe record is the journal next to
 * it, `<file>.journal.jsonl` (journal.ts): one fsync'ed line per answer,
 * appended before the next request. A run killed outright has no fresh
 * export, only its journal; the next `neuroeval run` with the same `--out`
 * resumes from the journal and writes the export when it stops.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { BenchCase } from '../../core/bundle/types.ts';
import type { RunStatus, ResponseRecord } from '../../core/model/answer.ts';
import { NeuroEvalError } from '../../core/errors.ts';
import type { Provenance } from '../../core/runner/provenance.ts';
import { serializeRunExport, toRunExport, type RunExport } from '../../core/scoring/io/run-export.ts';
import type { JournalState } from './journal.ts';

/** The journal of an output file. */
export const journalPathOf = (out: string): string => `${out}.journal.jsonl`;

/** Responses in the order of `order` (the whole plan's item keys); any not in it go last, in their own order. */
export function inPlanOrder(responses: Iterable<ResponseRecord>, order: readonly string[]): ResponseRecord[] {
  const rank = new Map(order.map((k, i) => [k, i]));
  return [...responses].sort((a, b) => (rank.get(a.itemKey) ?? Infinity) - (rank.get(b.itemKey) ?? Infinity));
}

export interface ExportOptions {
  readonly status: RunStatus;
  readonly error: string | null;
  readonly updatedAt: number;
  readonly exportedAt: number;
  /** Every item key of the whole plan, in plan order. */
  readonly order: readonly string[];
  /** Cases the export carries (ground truth for `neuroeval score`): the benchmark's. */
  readonly cases: readonly BenchCase[];
}

/** The run export of a journal: its run record and provenance (with the shard, when there is one) and its answers in plan order. */
export function journalExport(state: JournalState, options: ExportOptions): RunExport {
  const { header } = state;
  const provenance: Provenance = { ...state.provenance, ...(header.shard ? { shard: header.shard } : {}) };
  return toRunExport(
    {
      id: header.run.id,
      benchmarkId: header.run.benchmarkId,
      name: header.run.name,
      status: options.status,
      ...(options.error ? { error: options.error } : {}),
      createdAt: header.run.createdAt,
      updatedAt: options.updatedAt,
      config: header.run.config,
      provenance,
      plan: header.run.plan,
    },
    inPlanOrder(state.answers.values(), options.order),
    options.cases,
    { exportedAt: options.exportedAt },
  );
}

/** Writes a file so that a reader sees the old content or the new, never half: a temporary file, fsync'ed, renamed over it. */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w');
  try {
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export function writeRunExport(path: string, e: RunExport): void {
  writeFileAtomic(path, serializeRunExport(e));
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Keeps two processes from writing one journal: `<journal>.lock` holds the
 * owner's pid. A lock left by a killed process (its pid is gone) is taken over.
 * @returns the release function.
 */
export function lockOutput(journal: string): () => void {
  const lock = `${journal}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          unlinkSync(lock);
        } catch {
          // Already gone.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(lock, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new NeuroEvalError('INVALID_INPUT', `${journal} is being written by another neuroeval process (pid ${pid}); wait for it, or stop it first.`);
      }
      if (existsSync(lock)) unlinkSync(lock);
    }
  }
  throw new NeuroEvalError('INVALID_INPUT', `${journal}: could not take the lock ${lock}.`);
}
