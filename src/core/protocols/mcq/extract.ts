/**
 * Answer-letter extraction for multiple choice, in the fixed order of
 * MedFrameQA's `parse_multi_choice_response` (VLMEvalKit-style):
 *   1. `\boxed{X}`            2. after "Answer:" / "Final Answer"
 *   3. `(X)`                  4. `X.` / `X)` at the start of a line
 *   5. the text of exactly one option (answers longer than 5 tokens)
 *   6. the last standalone option letter
 * Only the question's option keys count, case-sensitively. Nothing found →
 * `invalid` (scored wrong, counted apart). Reasoning blocks are removed first.
 */
import type { QuestionOption } from '../../bundle/types.ts';
import { Warnings } from '../coerce.ts';
import { roughTokenCount, stripThinkDetailed } from '../text.ts';
import type { ParseResult } from '../types.ts';

export type McqRule = 'boxed' | 'answer-marker' | 'parenthesis' | 'line-start' | 'option-text' | 'last-letter';

export interface McqAnswer {
  /** The chosen option key, e.g. `C`. */
  readonly choice: string;
  /** Which extraction rule found it. */
  readonly rule: McqRule;
}

/** Option keys used when the question is not at hand: VLMEvalKit's A–J. */
export const DEFAULT_OPTION_KEYS: readonly string[] = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J'];

/** Longer answers than this (in rough tokens) may be matched on option text (MedFrameQA: > 5). */
const OPTION_TEXT_MIN_TOKENS = 5;
/** The answer follows its marker closely; looking further only finds prose. */
const LINE_LIMIT = 200;
const MAX_MARKERS = 50;

const MARKERS = [
  /\b(?:final\s+)?answer\s*(?:\*\*|__)?\s*[:：]/gi,
  /\b(?:final\s+)?answer\s*\*\*/gi,
  /\bfinal\s+answer\b/gi,
  /\b(?:the\s+)?(?:correct\s+|best\s+)?(?:answer|option|choice)\s+is\b/gi,
  /(?:正确|最终)?(?:答案|选项)\s*(?:是|为|应为|应该是)?\s*[:：]?/g,
];

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

interface Keys {
  readonly alt: string;
  /** A key standing alone: not part of a word or number. */
  readonly standalone: RegExp;
}

function keyPattern(keys: readonly string[]): Keys {
  const alt = [...keys].sort((a, b) => b.length - a.length).map(escape).join('|');
  return { alt, standalone: new RegExp(`(?<![A-Za-z0-9])(${alt})(?![A-Za-z0-9])`, 'g') };
}

function boxed(text: string, k: Keys): string | undefined {
  for (const m of text.matchAll(/boxed\s*\{((?:[^{}]|\{[^{}]*\})*)\}/g)) {
    const inner = (m[1] ?? '').replace(/\\[a-zA-Z]+\s*\{([^{}]*)\}/g, '$1');
    const hit = new RegExp(`^\\s*\\(?(${k.alt})\\)?(?![A-Za-z0-9])`).exec(inner);
    if (hit) return hit[1];
  }
  return undefined;
}

/** The first non-empty line from `pos`, at most {@link LINE_LIMIT} characters. */
function lineFrom(text: string, pos: number): string {
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    const line = text.slice(pos, Math.min(nl === -1 ? text.length : nl, pos + LINE_LIMIT));
    if (line.trim()) return line;
    if (nl === -1) break;
    pos = nl + 1;
  }
  return '';
}

function afterMarker(text: string, k: Keys): string | undefined {
  const ends = MARKERS.flatMap((re) => [...text.matchAll(re)].map((m) => m.index + m[0].length)).sort((a, b) => b - a);
  for (const end of ends.slice(0, MAX_MARKERS)) {
    const line = lineFrom(text, end);
    const hit = new RegExp(k.standalone.source).exec(line);
    if (hit) return hit[1];
    // "answer: c" alone on its line is still unambiguous.
    const lower = /^\s*\(?([a-z])\)?[.)]?\s*$/.exec(line)?.[1]?.toUpperCase();
    if (lower && new RegExp(`^(?:${k.alt})$`).test(lower)) return lower;
  }
  return undefined;
}

/** All matches of `re` (whose group 1 is a key) as [key, index]. */
function occurrences(text: string, re: RegExp): [string, number][] {
  return [...text.matchAll(re)].map((m) => [m[1]!, m.index]);
}

function lastOf(found: readonly [string, number][], rule: string, w: Warnings): string | undefined {
  if (!found.length) return undefined;
  const distinct = [...new Set(found.map(([key]) => key))];
  if (distinct.length > 1) w.add(`ambiguous: ${distinct.join(', ')} all match the ${rule} rule; the last one was taken`);
  return found.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
}

function optionText(text: string, options: readonly QuestionOption[]): string | undefined {
  if (roughTokenCount(text) <= OPTION_TEXT_MIN_TOKENS) return undefined;
  const lower = text.toLowerCase();
  const matched = options.filter((o) => o.text.trim() && lower.includes(o.text.trim().toLowerCase()));
  // "T1-weighted" inside a matched "T1-weighted with contrast" is not a second match.
  const unique = matched.filter((o) => !matched.some((p) => p !== o && p.text.toLowerCase().includes(o.text.trim().toLowerCase())));
  return unique.length === 1 ? unique[0]!.key : undefined;
}

/**
 * Extracts the chosen option. `options` are the question's options (only
 * their keys count; their texts feed rule 5); without them the keys are A–J
 * and rule 5 is skipped.
 */
export function extractChoice(rawText: string, options?: readonly QuestionOption[]): ParseResult<McqAnswer> {
  const { text } = stripThinkDetailed(rawText);
  const keys = options?.length ? options.map((o) => o.key) : DEFAULT_OPTION_KEYS;
  const k = keyPattern(keys);
  const w = new Warnings();
  const found = (choice: string | undefined, rule: McqRule): ParseResult<McqAnswer> | undefined =>
    choice === undefined ? undefined : { ok: true, value: { choice, rule }, ...w.result };
  if (!text) return { ok: false, error: 'invalid' };

  const byBoxed = found(boxed(text, k), 'boxed');
  if (byBoxed) return byBoxed;
  const byMarker = found(afterMarker(text, k), 'answer-marker');
  if (byMarker) return byMarker;
  const paren = found(lastOf(occurrences(text, new RegExp(`\\((${k.alt})\\)`, 'g')), '(X)', w), 'parenthesis');
  if (paren) return paren;

  const lineRe = new RegExp(`^[ \\t]*(?:[-*>][ \\t]*)?(?:\\*\\*)?(${k.alt})(?:\\*\\*)?[.)](?=\\s|$|\\*)`, 'gm');
  const lineStart = occurrences(text, lineRe);
  // Every option at a line start is the option list echoed back, not an answer: look past it.
  const echo = keys.length >= 3 && new Set(lineStart.map(([key]) => key)).size === keys.length;
  const byLine = echo ? undefined : found(lastOf(lineStart, 'X. at line start', w), 'line-start');
  if (byLine) return byLine;
  const rest = echo ? text.split(/\r?\n/).filter((line) => !new RegExp(lineRe.source).test(line)).join('\n') : text;
  if (echo) w.add('the option list was repeated in the answer and ignored');

  const byText = options?.length ? found(optionText(rest, options), 'option-text') : undefined;
  if (byText) return byText;
  const byLast = found(lastOf(occurrences(rest, k.standalone), 'standalone letter', w), 'last-letter');
  return byLast ?? { ok: false, error: 'invalid' };
}
