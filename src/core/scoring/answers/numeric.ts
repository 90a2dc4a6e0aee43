/**
 * Numeric, date and duration answers scored by MedCalc-Bench's rules
 * (ncbi-nlp/MedCalc-Bench, `evaluation/run.py` `extract_answer` and
 * `evaluation/evaluate.py` `check_correctness`), chosen by calculator id:
 *
 * | calculators | kind | correct when |
 * |---|---|---|
 * | 13, 68 | `date` | the answer's M/D/YYYY is the same day as the reference |
 * | 69 | `weeks-days` | (weeks, days) equal the reference's |
 * | 4, 15, 16, … 51 (the benchmark's list) | `integer` | the answer rounded is the reference |
 * | 2, 3, 5, … 67 (the benchmark's list) | `decimal` | lower limit ≤ answer ≤ upper limit |
 *
 * The answer is the last `answer": …}` of the reply (the benchmark asks for
 * JSON), else — NeuroEval's addition for replies that are not JSON — the
 * whole reply. Where the benchmark evaluates an arithmetic expression the
 * model wrote as `str(…)` with Python's `eval`, NeuroEval never runs model
 * output: such an answer counts as not found (docs/protocols.md says so).
 * Without a calculator id, the kind comes from the reference (`kind`), and a
 * decimal without limits must equal the reference within 1e-9 relative.
 */

export type NumericKind = 'decimal' | 'integer' | 'date' | 'weeks-days';

export interface NumericReference {
  /** The ground truth as written (`17.3`, `08/21/2021`, `(4 weeks, 2 days)`). */
  readonly value: string;
  readonly lower?: number;
  readonly upper?: number;
  readonly kind?: NumericKind;
  /** MedCalc-Bench's calculator id, which decides the rule when given. */
  readonly calculatorId?: number;
}

const DATE_IDS = new Set([13, 68]);
const WEEKS_DAYS_IDS = new Set([69]);
const INTEGER_IDS = new Set([4, 15, 16, 17, 18, 20, 21, 25, 27, 28, 29, 32, 33, 36, 43, 45, 48, 51, 69]);
const DECIMAL_IDS = new Set([2, 3, 5, 6, 7, 8, 9, 10, 11, 19, 22, 23, 24, 26, 30, 31, 38, 39, 40, 44, 46, 49, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67]);

/** The rule MedCalc-Bench applies to a calculator, or undefined for an id it does not list. */
export function medcalcKind(calculatorId: number): NumericKind | undefined {
  if (DATE_IDS.has(calculatorId)) return 'date';
  if (WEEKS_DAYS_IDS.has(calculatorId)) return 'weeks-days';
  if (INTEGER_IDS.has(calculatorId)) return 'integer';
  if (DECIMAL_IDS.has(calculatorId)) return 'decimal';
  return undefined;
}

export function kindOf(ref: NumericReference): NumericKind {
  return (ref.calculatorId !== undefined ? medcalcKind(ref.calculatorId) : undefined) ?? ref.kind ?? 'decimal';
}

const PLACEHOLDERS = new Set(['str(short_and_direct_answer_of_the_question)', 'str(value which is the answer to the question)', 'X.XX']);
const WEEKS_DAYS = /\(?["']?(\d+)\s*(weeks?)?["']?,?\s*["']?(\d+)\s*(days?)?["']?\s*\)?/;

/** Python's str.strip(): whitespace both ends. */
const pyStrip = (s: string): string => s.replace(/^\s+|\s+$/g, '');
const stripQuotes = (s: string): string => s.replace(/^"+|"+$/g, '');

/** The answer text the benchmark reads from a reply, or "Not Found". */
export function answerText(reply: string): string {
  const all = [...reply.matchAll(/[Aa]nswer":\s*(.*?)\}/g)];
  if (all.length === 0) return 'Not Found';
  const t = stripQuotes(pyStrip(all[all.length - 1]![1]!));
  return PLACEHOLDERS.has(t) ? 'Not Found' : t;
}

/** A number as Python's float literal reads `-?\d+(\.\d+)?`. */
const num = (s: string): number => Number(s);

/** `extract_answer` for one kind: the value as the benchmark stores it, or null for "N/A". */
export function extractValue(text: string, kind: NumericKind): string | null {
  if (kind === 'date') {
    const m = /^(0?[1-9]|1[0-2])\/(0?[1-9]|[12][0-9]|3[01])\/(\d{4})/.exec(text);
    return m ? `${m[1]!.padStart(2, '0')}/${m[2]!.padStart(2, '0')}/${m[3]}` : null;
  }
  if (kind === 'weeks-days') {
    const cleaned = text.replace(/\[/g, '(').replace(/\]/g, ')').replace(/'/g, '').replace(/"/g, '');
    const m = WEEKS_DAYS.exec(cleaned);
    return m ? `(${m[1]}, ${m[3]})` : null;
  }
  if (kind === 'integer') {
    const outOf = /(\d+) out of/.exec(text);
    if (outOf) return outOf[1]!;
    const list = /-?\d+(, ?-?\d+)+/.exec(text);
    if (list) return String(list[0].split(',').length);
    const all = [...text.matchAll(/(-?\d+(\.\d+)?)/g)];
    return all.length ? all[all.length - 1]![1]! : null;
  }
  // decimal
  if (/str\((.*)\)/.test(text)) return null; // an expression the benchmark eval()s; never run here
  const egfr = /(-?\d+(\.\d+)?)\s*mL\/min\/1.73/.exec(text);
  if (egfr) return String(num(egfr[1]!));
  const pct = [...text.matchAll(/(-?\d+(\.\d+)?)%/g)];
  if (pct.length) return String(num(pct[pct.length - 1]![1]!) / 100);
  const all = [...text.matchAll(/(-?\d+(\.\d+)?)/g)];
  return all.length ? String(num(all[all.length - 1]![1]!)) : null;
}

/** Python's round() (half to even) of a float. */
function pyRound(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

function dayOf(text: string): string | null {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text.trim());
  if (!m) return null;
  const [mo, d, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  // strptime refuses a day that does not exist (02/30/2021).
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return `${mo}/${d}/${y}`;
}

export interface NumericVerdict {
  /** null: nothing could be read from the reply (counted wrong, and as not found). */
  readonly extracted: string | null;
  readonly correct: boolean;
  readonly kind: NumericKind;
}

/** MedCalc-Bench's verdict on one reply. */
export function scoreNumeric(reply: string, ref: NumericReference): NumericVerdict {
  const kind = kindOf(ref);
  const text = answerText(reply);
  // NeuroEval's addition: a reply with no JSON answer is read as it is.
  const extracted = extractValue(text === 'Not Found' ? reply : text, kind);
  if (extracted === null) return { extracted, correct: false, kind };
  let correct: boolean;
  if (kind === 'date') {
    const a = dayOf(extracted);
    correct = a !== null && a === dayOf(ref.value);
  } else if (kind === 'weeks-days') {
    const g = WEEKS_DAYS.exec(ref.value);
    correct = !!g && sameWeeksDays(extracted, `(${g[1]}, ${g[3]})`);
  } else if (kind === 'integer') {
    correct = pyRound(num(extracted)) === num(ref.value);
  } else {
    const v = num(extracted);
    if (ref.lower !== undefined && ref.upper !== undefined) correct = v >= ref.lower && v <= ref.upper;
    else {
      const gold = num(ref.value);
      correct = Number.isFinite(gold) && Math.abs(v - gold) <= 1e-9 * Math.max(1, Math.abs(gold));
    }
  }
  return { extracted, correct, kind };
}

/** eval("(4, 2)") == eval("(4, 02)")… compares the numbers, not the text. */
function sameWeeksDays(a: string, b: string): boolean {
  const pa = /\((\d+), (\d+)\)/.exec(a);
  const pb = /\((\d+), (\d+)\)/.exec(b);
  return !!pa && !!pb && Number(pa[1]) === Number(pb[1]) && Number(pa[2]) === Number(pb[2]);
}
