/**
 * Who answered a run: a reader's run holds one "model" whose id is
 * `reader:<pseudonym>` and whose provenance runtime is `reader`. A module of
 * its own (no protocols, no hashing) so that every list of runs can tell a
 * reader's session from a model run cheaply.
 */
import type { RunRecord } from '../runner/records.ts';

/** The runtime a reader's provenance names: a person, not an engine. */
export const READER_RUNTIME = 'reader';
const PREFIX = 'reader:';

export interface ReaderIdentity {
  /** What the reader goes by in this study (initials, a code): never their full name by default. */
  readonly pseudonym: string;
  /** E.g. neurologist, resident, medical student; null when not given. */
  readonly role: string | null;
}

/** The reader's model id. Changing it orphans stored reader answers. */
export function readerModelId(pseudonym: string): string {
  return `${PREFIX}${pseudonym.trim()}`;
}

export function isReaderModelId(modelId: string): boolean {
  return modelId.startsWith(PREFIX);
}

/** "Reader: AB (neurologist)". */
export function readerLabel(r: ReaderIdentity): string {
  return `Reader: ${r.pseudonym}${r.role ? ` (${r.role})` : ''}`;
}

/** The reader a run holds the answers of, or null for a model run. */
export function readerOf(run: Pick<RunRecord, 'provenance'>): ReaderIdentity | null {
  const m = run.provenance.models[0];
  if (!m || m.runtime !== READER_RUNTIME || !isReaderModelId(m.id)) return null;
  const pseudonym = m.id.slice(PREFIX.length);
  const role = m.label?.startsWith(`Reader: ${pseudonym} (`) && m.label.endsWith(')') ? m.label.slice(`Reader: ${pseudonym} (`.length, -1) : null;
  return { pseudonym, role };
}

/** A reader's session of a reader study: never listed, counted or scored as a model run. */
export function isReaderRun(run: Pick<RunRecord, 'provenance'>): boolean {
  return readerOf(run) !== null;
}

/** A reader run's reader as people read it ("Reader: AB (neurologist)"); null for a model run. */
export function readerName(run: Pick<RunRecord, 'provenance'>): string | null {
  const who = readerOf(run);
  return who ? readerLabel(who) : null;
}
