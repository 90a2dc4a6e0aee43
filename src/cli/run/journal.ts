/**
 * The journal of a CLI run: a JSON Lines file next to the run export, where
 * every answer is appended and fsync'ed before the runner sends the next
 * request. A killed process loses at most the answer it was generating; the
 * next `neuroeval run` with the same output reads the journal back and asks
 * only what it lacks.
 *
 *   line 1   {"kind":"header","format":"neuroeval-run-journal","version":1, run, provenance, identity, shard}
 *   then     {"kind":"answer","row":ResponseRecord}        one per answered item
 *            {"kind":"provenance","patch":ProvenancePatch}  session start/end, engines loaded
 *            {"kind":"status","update":RunUpdate}       the runner's status changes
 *
 * A kill can tear the last line (written but not fully); it is dropped with
 * a note and cut off the file, and its item is asked again. A damaged line
 * anywhere else is an error naming the line: the file was edited.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import type { RunRecord } from '../../core/runner/records.ts';
import { InvalidInputError } from '../../core/errors.ts';
import type { RunConfig } from '../../core/runner/config.ts';
import { applyProvenancePatch, type Provenance, type ProvenanceShard } from '../../core/runner/provenance.ts';
import type { ProvenancePatch, RunStore, RunUpdate } from '../../core/runner/types.ts';
import type { ResponseRecord } from '../../core/model/answer.ts';
import type { RunIdentity } from './identity.ts';

export const JOURNAL_FORMAT = 'neuroeval-run-journal';
const JOURNAL_VERSION = 1;

/** The first line: everything needed to rebuild the run export, and to check a resume against. */
export interface JournalHeader {
  readonly kind: 'header';
  readonly format: typeof JOURNAL_FORMAT;
  readonly version: typeof JOURNAL_VERSION;
  /** The run record as exported (no provenance; its `plan` counts the whole run, every shard). */
  readonly run: {
    readonly id: string;
    readonly name: string;
    readonly benchmarkId: string;
    readonly createdAt: number;
    readonly config: RunConfig;
    readonly plan: RunRecord['plan'];
  };
  /** Provenance as built when the run started; sessions' patches follow as lines. */
  readonly provenance: Provenance;
  readonly identity: RunIdentity;
  /** The slice this output answers; `null` for the whole run. */
  readonly shard: ProvenanceShard | null;
}

type JournalLine =
  | JournalHeader
  | { readonly kind: 'answer'; readonly row: ResponseRecord }
  | { readonly kind: 'provenance'; readonly patch: ProvenancePatch }
  | { readonly kind: 'status'; readonly update: RunUpdate; readonly at: number };

/** A journal as read back. */
export interface JournalState {
  readonly header: JournalHeader;
  /** Answers by item key, in the order they were written. */
  readonly answers: Map<string, ResponseRecord>;
  /** The header's provenance with every patch applied. */
  provenance: Provenance;
  /** The last status written, if any. */
  status: (RunUpdate & { readonly at: number }) | null;
  /** What reading had to repair (a torn last line). */
  readonly notes: string[];
  /** Bytes of the file that hold whole lines (where appending resumes). */
  readonly validBytes: number;
}

/**
 * Reads a journal. Returns `null` when the file is missing, empty, or holds
 * only a torn first line (nothing was answered yet).
 * @throws InvalidInputError naming the file and line for a damaged line, or a file that is not a journal.
 */
export function readJournal(path: string): JournalState | null {
  if (!existsSync(path)) return null;
  const text = readFileSync(path, 'utf8');
  const end = text.lastIndexOf('\n') + 1;
  const notes: string[] = [];
  if (end < text.length) {
    notes.push(`${path}: the last line was cut off (the process was killed while writing it); it was dropped and its item will be asked again.`);
  }
  const lines = text.slice(0, end).split('\n').slice(0, -1);
  if (lines.length === 0) return null;
  const parsed: JournalLine[] = lines.map((line, i) => {
    try {
      return JSON.parse(line) as JournalLine;
    } catch {
      throw new InvalidInputError(`${path}: line ${i + 1} is not valid JSON; the journal was damaged or edited, so the run cannot resume from it.`, { file: path, line: i + 1 });
    }
  });
  const header = parsed[0]!;
  if (header.kind !== 'header' || header.format !== JOURNAL_FORMAT) {
    throw new InvalidInputError(`${path}: line 1: not a NeuroEval run journal (expected "format": "${JOURNAL_FORMAT}").`, { file: path, line: 1 });
  }
  if (header.version !== JOURNAL_VERSION) {
    throw new InvalidInputError(`${path}: line 1: journal version ${String(header.version)} is not one this NeuroEval reads (${JOURNAL_VERSION}).`, { file: path, line: 1, field: 'version' });
  }
  const state: JournalState = { header, answers: new Map(), provenance: header.provenance, status: null, notes, validBytes: Buffer.byteLength(text.slice(0, end)) };
  parsed.slice(1).forEach((line, i) => {
    const at = i + 2;
    if (line.kind === 'answer' && line.row && typeof line.row.itemKey === 'string') {
      // The runner never asks an answered item again; were a line repeated, the later one stands, as in the app's store.
      state.answers.delete(line.row.itemKey);
      state.answers.set(line.row.itemKey, line.row);
    } else if (line.kind === 'provenance' && line.patch) state.provenance = applyProvenancePatch(state.provenance, line.patch);
    else if (line.kind === 'status' && line.update) state.status = { ...line.update, at: line.at };
    else throw new InvalidInputError(`${path}: line ${at}: not a journal entry (kind ${JSON.stringify((line as { kind?: unknown }).kind) ?? 'missing'}).`, { file: path, line: at });
  });
  return state;
}

/** Appends lines to a journal, each written and fsync'ed before `append` returns. */
export class JournalWriter {
  readonly path: string;
  #fd: number | null;

  private constructor(path: string, fd: number) {
    this.path = path;
    this.#fd = fd;
  }

  /** Starts a new journal (replacing any file there) with its header. */
  static create(path: string, header: JournalHeader): JournalWriter {
    const writer = new JournalWriter(path, openSync(path, 'w'));
    writer.append(header);
    return writer;
  }

  /** Opens a journal that was read, cutting off a torn last line first. */
  static resume(path: string, state: JournalState): JournalWriter {
    truncateSync(path, state.validBytes);
    return new JournalWriter(path, openSync(path, 'a'));
  }

  append(line: JournalLine): void {
    if (this.#fd === null) throw new Error(`${this.path}: the journal is closed.`);
    const bytes = Buffer.from(`${JSON.stringify(line)}\n`, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(this.#fd, bytes, written, bytes.length - written);
    fsyncSync(this.#fd);
  }

  close(): void {
    if (this.#fd === null) return;
    closeSync(this.#fd);
    this.#fd = null;
  }
}

/**
 * The runner's store over a journal: answered items come from it, every save
 * is one fsync'ed line. No answer is reused from elsewhere (the CLI has no
 * store of other runs), so a shard asks exactly what the unsharded run asks.
 */
export function journalRunStore(state: JournalState, writer: JournalWriter, options: { retryErrors?: boolean; now?: () => number } = {}): RunStore {
  const now = options.now ?? Date.now;
  return {
    async completedItemKeys() {
      // With retryErrors, failed answers count as missing: their items are asked again and the new answer replaces them.
      return new Set([...state.answers].filter(([, r]) => !options.retryErrors || r.finishReason !== 'error').map(([k]) => k));
    },
    async findCached() {
      return undefined;
    },
    async saveResponse(row) {
      writer.append({ kind: 'answer', row });
      state.answers.delete(row.itemKey);
      state.answers.set(row.itemKey, row);
    },
    async updateRun(_runId, update) {
      const at = now();
      writer.append({ kind: 'status', update, at });
      state.status = { ...update, at };
    },
    async recordProvenance(_runId, patch) {
      writer.append({ kind: 'provenance', patch });
      state.provenance = applyProvenancePatch(state.provenance, patch);
    },
  };
}
