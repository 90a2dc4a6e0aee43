/**
 * Finding the JSON answer in a model's text: fenced blocks, JSON inside
 * prose, and JSON cut off by the token limit (closed by a repair step and
 * marked `repaired`, so a scorer can tell a model that answered in JSON from
 * one the parser helped). Never throws.
 */

export type JsonExtraction =
  | { readonly ok: true; readonly value: Record<string, unknown> | unknown[]; readonly repaired: boolean; readonly source: 'fence' | 'braces' | 'balanced' | 'repair' }
  | { readonly ok: false; readonly error: string };

export interface ExtractOptions {
  /** Accept a top-level array (`[{…}, {…}]`) as well as an object. */
  readonly allowArray?: boolean;
}

const FENCE = /```[ \t]*(?:json5?|JSON|javascript|js)?[ \t]*\r?\n?([\s\S]*?)```/g;
const MAX_REPAIR_TRIES = 64;
const MAX_STARTS = 200;

function tryParse(text: string, allowArray: boolean): Record<string, unknown> | unknown[] | undefined {
  try {
    const v: unknown = JSON.parse(text);
    if (v !== null && typeof v === 'object' && (allowArray || !Array.isArray(v))) return v as Record<string, unknown> | unknown[];
  } catch {
    // not JSON: the caller tries the next strategy
  }
  return undefined;
}

function firstOpen(text: string, allowArray: boolean): number {
  const brace = text.indexOf('{');
  if (!allowArray) return brace;
  // Only an array of objects or strings counts: "image [1]" in prose is not the answer.
  const bracket = /\[\s*[{"]/.exec(text)?.index ?? -1;
  if (brace === -1) return bracket;
  return bracket === -1 ? brace : Math.min(brace, bracket);
}

/** The substring from the first `{` (or `[`) to the last matching closer: NeuroVLM-Bench's rule. */
function braces(text: string, allowArray: boolean): string | undefined {
  const start = firstOpen(text, allowArray);
  if (start === -1) return undefined;
  const end = text.lastIndexOf(text[start] === '[' ? ']' : '}');
  return end > start ? text.slice(start, end + 1) : undefined;
}

/** The first complete bracketed value from `start`, scanning strings properly. */
function balanced(text: string, start: number): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  return undefined;
}

interface Cut {
  readonly at: number;
  readonly closers: string;
}

/**
 * Closes JSON cut off mid-way: ends an open string, then tries the whole
 * text and, failing that, shorter prefixes ending before the last comma or
 * after the last opening bracket, each closed with the brackets still open.
 */
export function repairTruncatedJson(text: string): string | undefined {
  // `closers` is kept as a string that grows and shrinks at its front, so each cut stores a cheap reference.
  let closers = '';
  const cuts: Cut[] = [];
  const cut = (at: number) => {
    cuts.push({ at, closers });
    if (cuts.length > MAX_REPAIR_TRIES) cuts.shift();
  };
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') {
      closers = (ch === '{' ? '}' : ']') + closers;
      // After a comma the comma's own cut is cleaner (no empty `{}` item appended).
      if (!/,\s*$/.test(text.slice(Math.max(0, i - 16), i))) cut(i + 1);
    } else if (ch === '}' || ch === ']') {
      closers = closers.slice(1);
      if (closers === '') return undefined; // complete already: not a truncation
    } else if (ch === ',') cut(i);
  }
  if (closers === '') return undefined;
  let whole = text.replace(/\\$/, '');
  if (inString) whole += '"';
  let end = whole.length;
  while (end > 0 && /[\s,:]/.test(whole[end - 1]!)) end--; // not a /…+$/ regex: that is quadratic on long whitespace
  const attempts = [whole.slice(0, end) + closers];
  for (let k = cuts.length - 1; k >= 0 && attempts.length < MAX_REPAIR_TRIES; k--) attempts.push(text.slice(0, cuts[k]!.at) + cuts[k]!.closers);
  for (const candidate of attempts) {
    try {
      JSON.parse(candidate);
      return candidate;
    } catch {
      // try a shorter prefix
    }
  }
  return undefined;
}

/** Where a JSON value may start: every `{` (and `[` before an object or string when arrays count). */
function openings(text: string, allowArray: boolean): number[] {
  const re = allowArray ? /\{|\[\s*[{"]/g : /\{/g;
  return [...text.matchAll(re)].slice(0, MAX_STARTS).map((m) => m.index);
}

type Found = { value: Record<string, unknown> | unknown[]; source: 'braces' | 'balanced' } | { truncatedAt: number } | undefined;

/**
 * The whole block, then first-opener-to-last-closer, then each balanced value
 * in turn (skipping values nested in one that failed, so an inner object is
 * never mistaken for the answer). Reports where a value starts that never
 * closes (a truncation) when nothing parses.
 */
function fromBlock(block: string, allowArray: boolean): Found {
  const trimmed = block.trim();
  const direct = tryParse(trimmed, allowArray);
  if (direct) return { value: direct, source: 'braces' };
  const span = braces(trimmed, allowArray);
  const viaBraces = span === undefined ? undefined : tryParse(span, allowArray);
  if (viaBraces) return { value: viaBraces, source: 'braces' };
  let skipUntil = -1;
  for (const start of openings(trimmed, allowArray)) {
    if (start < skipUntil) continue;
    const value = balanced(trimmed, start);
    if (value === undefined) return { truncatedAt: start };
    const parsed = tryParse(value, allowArray);
    if (parsed) return { value: parsed, source: 'balanced' };
    skipUntil = start + value.length;
  }
  return undefined;
}

/**
 * Extracts one JSON object from a model answer, in this order: a fenced
 * ```json block; the text from the first `{` to the last `}`; the first
 * balanced `{…}` that parses; a repair of JSON truncated at the end
 * (`repaired: true`). Strip reasoning blocks first ({@link stripThink}).
 */
export function extractJsonObject(text: string, options: ExtractOptions = {}): JsonExtraction {
  const allowArray = options.allowArray ?? false;
  for (const m of text.matchAll(FENCE)) {
    const found = fromBlock(m[1] ?? '', allowArray);
    if (found && 'value' in found) return { ok: true, value: found.value, repaired: false, source: 'fence' };
  }
  const found = fromBlock(text, allowArray);
  if (found && 'value' in found) return { ok: true, value: found.value, repaired: false, source: found.source };
  if (firstOpen(text, allowArray) === -1) return { ok: false, error: 'no JSON object found in the answer' };
  const trimmed = text.trim();
  const repaired = found ? repairTruncatedJson(trimmed.slice(found.truncatedAt).trimEnd()) : undefined;
  const value = repaired === undefined ? undefined : tryParse(repaired, allowArray);
  if (value) return { ok: true, value, repaired: true, source: 'repair' };
  return { ok: false, error: 'the answer contains "{" but no valid JSON object' };
}

/** True for a plain JSON object (not an array, not null). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
