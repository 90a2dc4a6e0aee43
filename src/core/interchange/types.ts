/**
 * Answers made by another evaluation harness, read from its own result file
 * into one shape: the harness, the model and its settings, and one item per
 * answer with the harness's sample id, the question it was asked (for
 * matching), the raw answer text and the harness's own per-sample scores.
 * Readers (read/) produce it; match.ts joins it to a benchmark's cases and
 * to-run.ts turns it into a NeuroEval run export.
 */
import type { ErrorLocation } from '../errors.ts';
import { InvalidInputError } from '../errors.ts';

/** The harnesses whose result files NeuroEval reads. */
export type ForeignHarness = 'vlmevalkit' | 'lmms-eval' | 'lm-eval' | 'inspect-ai' | 'every-eval-ever';

export const HARNESS_NAMES: Readonly<Record<ForeignHarness, string>> = {
  vlmevalkit: 'VLMEvalKit',
  'lmms-eval': 'lmms-eval',
  'lm-eval': 'lm-evaluation-harness',
  'inspect-ai': 'Inspect AI',
  'every-eval-ever': 'Every Eval Ever',
};

/** Where a NeuroEval export put the item it came from (its own metadata), so a round trip lands on the same item. */
export interface NeuroEvalHint {
  readonly caseId: string;
  readonly questionId: string;
  readonly variant?: string;
  readonly sample?: number;
}

/** A per-sample score as the harness wrote it. */
export type ForeignScore = number | string | boolean | null;

export interface ForeignItem {
  /** Where the item is in the file: the line (JSONL, TSV, sheet row) or the entry (`samples/…` of a ZIP, `samples[3]`). */
  readonly at: ErrorLocation;
  /** The harness's own sample id (VLMEvalKit `index`, lm-eval `doc_id`, Inspect `id`, Every Eval Ever `sample_id`). */
  readonly id: string;
  /** 0-based answer of the same question (Inspect epoch − 1, a repeat); 0 for most harnesses. */
  readonly sample: number;
  /** The question or prompt the harness sent, for matching; null when the file does not hold it. */
  readonly question: string | null;
  /** The model's raw answer; null when there is none (a failed call). */
  readonly answer: string | null;
  /** Why there is no answer (the harness's error), else null. */
  readonly error: string | null;
  /** The harness's target / reference, as text. */
  readonly target: string | null;
  /** The harness's own per-sample scores by name (kept for comparison; NeuroEval scores the answer itself). */
  readonly scores: Readonly<Record<string, ForeignScore>>;
  readonly usage?: { readonly promptTokens: number | null; readonly completionTokens: number | null };
  /** Generation time in milliseconds, when the harness records it. */
  readonly latencyMs?: number | null;
  /** Set when the file was written by NeuroEval: the item it answered. */
  readonly hint?: NeuroEvalHint;
}

/** A generation setting as recorded: temperature, top_p, max_tokens, seed, model arguments… */
export type ForeignSetting = string | number | boolean | null;

export interface ForeignLog {
  readonly harness: ForeignHarness;
  /** The file's name as given. */
  readonly file: string;
  /** SHA-256 of the file's bytes (hex), recorded in the run's provenance. */
  readonly sha256: string;
  /** The model as the harness names it (e.g. `Qwen2-VL-7B-Instruct`, `openai/gpt-4o`). */
  readonly model: string;
  /** The harness's task or dataset name, when it records one. */
  readonly task: string | null;
  /** Generation settings and model arguments, flattened to one level. */
  readonly settings: Readonly<Record<string, ForeignSetting>>;
  /** When the harness ran (ms since the epoch), when it says. */
  readonly createdAt: number | null;
  readonly items: readonly ForeignItem[];
  /** Tolerated oddities, each naming where. */
  readonly warnings: readonly string[];
}

/** Caps on what one file may hold, so a hostile file is refused with its location instead of exhausting memory. */
export const FOREIGN_LIMITS = {
  /** Items in one file. */
  maxItems: 500_000,
  /** Characters of one answer, question or target. */
  maxTextChars: 1_000_000,
  /** Characters of one sample id. */
  maxIdChars: 512,
} as const;

/** Throws an {@link InvalidInputError} whose message starts with the file, line or entry, and field. */
export function foreignError(at: ErrorLocation, message: string): InvalidInputError {
  const where = [at.file, at.line !== undefined ? String(at.line) : undefined].filter(Boolean).join(':');
  return new InvalidInputError(`${where}${at.field ? `: ${at.field}` : ''}: ${message}`, at);
}

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A text field of a foreign record: absent/null → null; a number is written as Python would; anything else is refused. */
export function textField(v: unknown, at: ErrorLocation, what: string, limit: number = FOREIGN_LIMITS.maxTextChars): string | null {
  if (v === undefined || v === null) return null;
  let s: string;
  if (typeof v === 'string') s = v;
  else if (typeof v === 'number' && Number.isFinite(v)) s = String(v);
  else if (typeof v === 'boolean') s = v ? 'True' : 'False';
  else throw foreignError(at, `expected ${what} as text, found ${describe(v)}.`);
  if (s.length > limit) throw foreignError(at, `${what} is ${s.length.toLocaleString('en')} characters long, more than the ${limit.toLocaleString('en')} one field may hold; the file was refused.`);
  return s;
}

/** A sample id: a string or an integer, at most {@link FOREIGN_LIMITS.maxIdChars} characters. */
export function idField(v: unknown, at: ErrorLocation): string {
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  if (typeof v !== 'string' || v.trim() === '') throw foreignError(at, `expected a sample id (text or a whole number), found ${describe(v)}.`);
  if (v.length > FOREIGN_LIMITS.maxIdChars) throw foreignError(at, `the sample id is ${v.length.toLocaleString('en')} characters long, more than ${FOREIGN_LIMITS.maxIdChars}; the file was refused.`);
  return v.trim();
}

/** A count or number when the value is one, else null. */
export function numberOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** A short description of a wrong value for an error message (never the whole value). */
export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return v.length > 40 ? `text of ${v.length.toLocaleString('en')} characters` : JSON.stringify(v);
  return `${typeof v} ${String(v)}`;
}

/** Scalars of a settings object, one level deep (`a.b` for nested keys); long values are cut. */
export function flattenSettings(v: unknown, prefix = '', out: Record<string, ForeignSetting> = {}, depth = 0): Record<string, ForeignSetting> {
  if (!isObj(v) || depth > 3) return out;
  for (const [k, x] of Object.entries(v)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (x === null || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x))) out[key] = x;
    else if (typeof x === 'string') out[key] = x.length > 500 ? `${x.slice(0, 500)}…` : x;
    else if (isObj(x)) flattenSettings(x, key, out, depth + 1);
    else if (Array.isArray(x) && x.every((e) => typeof e === 'string' || typeof e === 'number')) out[key] = JSON.stringify(x).slice(0, 500);
  }
  return out;
}

/** A harness's per-sample score as kept: a scalar; lists and objects (undefined) are left out. */
export function scoreValue(v: unknown): ForeignScore | undefined {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  return undefined;
}
