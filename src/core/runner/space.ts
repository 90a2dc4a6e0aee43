/**
 * Does a run fit on this disk? Before a run starts (or resumes) the space its
 * remaining answers need is compared with what the browser says is free for
 * NeuroEval (`navigator.storage.estimate()`: quota − usage; the quota shrinks
 * as the disk fills). A run that does not fit with a margin is refused with a
 * message, rather than starting and filling the disk, which is what gets a
 * site's storage evicted.
 */
import { NeuroEvalError } from '../errors.ts';
import { formatBytes } from '../text/units.ts';

/**
 * Stored bytes per answer: the row's fixed fields, and the answer text up to
 * the budget (about 4 characters per token) twice (raw and parsed), doubled
 * for IndexedDB's own overhead (its write-ahead log and compaction).
 */
export function bytesPerAnswer(maxTokens: number, turns = 1): number {
  return 2 * turns * (1024 + maxTokens * 4 * 2);
}

/** Always left free beside a run's own need: the browser and the rest of the app need room too. */
export const SPACE_MARGIN_BYTES = 32 * 1024 * 1024;

interface SpaceCheck {
  /** Answers still to be stored. */
  readonly answers: number;
  readonly maxTokens: number;
  /** Most turns an answer has (multi-round dialogues store every turn). */
  readonly turns?: number;
  /** `navigator.storage.estimate()`, or undefined where the browser has none. */
  readonly estimate: { readonly quota?: number; readonly usage?: number } | undefined;
}

/** The bytes a run needs and has, or undefined when the browser gives no estimate (nothing to check against). */
export function runSpace(c: SpaceCheck): { needed: number; free: number } | undefined {
  const { quota, usage } = c.estimate ?? {};
  if (typeof quota !== 'number' || typeof usage !== 'number') return undefined;
  return { needed: c.answers * bytesPerAnswer(c.maxTokens, c.turns), free: Math.max(0, quota - usage) };
}

/** Throws QUOTA_EXCEEDED with what the run needs and what is free when it does not fit with the margin. */
export function assertRunFits(c: SpaceCheck): void {
  const s = runSpace(c);
  if (!s || s.needed + SPACE_MARGIN_BYTES <= s.free) return;
  throw new NeuroEvalError(
    'QUOTA_EXCEEDED',
    `Not enough storage for this run: its ${c.answers} remaining answers need about ${formatBytes(s.needed)}, plus ${formatBytes(SPACE_MARGIN_BYTES)} kept free, ` +
      `and the browser has ${formatBytes(s.free)} free for NeuroEval on this disk. Free space on the disk (or delete older runs), or run fewer items. Nothing was changed.`,
  );
}
