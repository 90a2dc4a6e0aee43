/** Text clean-up shared by the parsers: reasoning blocks, whitespace. */
import { pyStrip } from '../python/values.ts';

const CLOSED = /<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi;
const OPEN = /<(think|thinking|reasoning)>/i;
const CLOSE = /<\/(think|thinking|reasoning)>/i;

export interface StrippedText {
  readonly text: string;
  /** A `<think>` was opened and never closed: everything after it was dropped. */
  readonly unterminated: boolean;
  /** Any reasoning was removed. */
  readonly removed: boolean;
}

/**
 * Removes reasoning blocks and reports what was removed: closed
 * `<think>…</think>` (also `<thinking>`, `<reasoning>`) anywhere; a stray
 * `</think>` whose opening tag was in the prompt (everything before it is
 * reasoning); an unterminated `<think>` (everything after it is reasoning
 * cut off by the token limit).
 */
export function stripThinkDetailed(text: string): StrippedText {
  // Without a closing tag there is no closed block; skipping the scan keeps long unterminated reasoning linear.
  let out = CLOSE.test(text) ? text.replace(CLOSED, '') : text;
  let removed = out !== text;
  let unterminated = false;
  const close = CLOSE.exec(out);
  const open = OPEN.exec(out);
  if (close && (!open || close.index < open.index)) {
    out = out.slice(close.index + close[0].length);
    removed = true;
  }
  const stillOpen = OPEN.exec(out);
  if (stillOpen) {
    out = out.slice(0, stillOpen.index);
    removed = true;
    unterminated = true;
  }
  // Python's strip(), as the benchmarks' own code trims: JavaScript's trim() also drops a byte-order mark (U+FEFF).
  return { text: pyStrip(out), unterminated, removed };
}

/** The answer without reasoning blocks, trimmed (see {@link stripThinkDetailed}). */
export function stripThink(text: string): string {
  return stripThinkDetailed(text).text;
}

/** Counts tokens roughly as a reader would: whitespace-separated words, and each CJK character. */
export function roughTokenCount(text: string): number {
  const cjk = text.match(/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g)?.length ?? 0;
  const words = text.replace(/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g, ' ').split(/\s+/).filter(Boolean).length;
  return words + cjk;
}
