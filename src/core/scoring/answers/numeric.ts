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
 * {@link scoreNumeric} is the benchmark's verdict, equal to its code (held
 * to it by test/unit/core/scoring/answers/medcalc-parity.test.ts): the answer
 * is the last `answer": …}` of the reply; numbers are Python literals; an
 * expression the model wrote as `str(…)` is computed as the benchmark's
 * `eval` would, by python/arith.ts, which evaluates arithmetic and nothing
 * else; where the benchmark's code raises, its run counts the reply wrong,
 * and so does this. {@link scoreNumericAnywhere} is NeuroEval's reading for
 * replies without the JSON answer: the whole reply, same rules.
 * Without a calculator id, the kind comes from the reference (`kind`), and a
 * decimal without limits must equal the reference within 1e-9 relative.
 */

import { ARITHMETIC_BUILTINS, MATH_MODULES, pyEvalArithmetic, pyNumberStr, pyRound, toFloat, type PyNumber } from '../../python/arith.ts';
import { PyException, pyStrip } from '../../python/values.ts';

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

const PLACEHOLDERS = new Set(['str(short_and_direct_answer_of_the_question)', 'str(value which is the answer to the question)', 'X.XX']);
const WEEKS_DAYS = /\(?["']?(\d+)\s*(weeks?)?["']?,?\s*["']?(\d+)\s*(days?)?["']?\s*\)?/;

const stripQuotes = (s: string): string => s.replace(/^"+|"+$/g, '');

/** The answer text the benchmark reads from a reply, or "Not Found". */
export function answerText(reply: string): string {
  const all = [...reply.matchAll(/[Aa]nswer":\s*([^\n]*?)\}/g)];
  if (all.length === 0) return 'Not Found';
  const t = stripQuotes(pyStrip(all[all.length - 1]![1]!));
  return PLACEHOLDERS.has(t) ? 'Not Found' : t;
}

/** Python's `eval` of a number MedCalc-Bench's code evaluates (`08` is a SyntaxError, `N/A` a NameError). */
const pyEval = (text: string): PyNumber => pyEvalArithmetic(text, {});

/** MedCalc-Bench's clean-up of a `str(…)` answer before its `eval`, in its order ("g" goes last but one, so `log` becomes `lo`). */
const EXPRESSION_EDITS: readonly [string, string][] = [
  ['^', '**'], ['is odd', '% 2 == 1'], ['is even', '% 2 == 0'], ['sqrt', 'math.sqrt'], ['.math', ''], ['weight', ''], ['height', ''],
  ['mg/dl', ''], ['g/dl', ''], ['mmol/L', ''], ['kg', ''], ['g', ''], ['mEq/L', ''],
];

/**
 * A `str(…)` answer as MedCalc-Bench evaluates it: its clean-up, the part
 * before a `#`, unbalanced parentheses closed, then `eval` with only min,
 * pow, round, abs, int, float, math and np — here NeuroEval's arithmetic
 * evaluator (python/arith.ts), which runs nothing but arithmetic. Any error
 * gives "N/A", as the benchmark's `except` does.
 */
function medcalcExpression(inner: string): string {
  let expression = EXPRESSION_EDITS.reduce((e, [from, to]) => e.split(from).join(to), inner);
  expression = expression.split('#')[0]!;
  const open = expression.split('(').length - 1;
  const close = expression.split(')').length - 1;
  if (open > close) expression += ')'.repeat(open - close);
  else if (close > open) expression = '('.repeat(close - open) + expression;
  try {
    return pyNumberStr(pyEvalArithmetic(expression, { ...ARITHMETIC_BUILTINS, ...MATH_MODULES }));
  } catch (e) {
    if (e instanceof PyException) return 'N/A';
    throw e;
  }
}

/**
 * `extract_answer` for one kind: the answer as MedCalc-Bench hands it to
 * `check_correctness` ("N/A" when it reads none). Throws {@link PyException}
 * where the benchmark's code raises, which its run counts as incorrect.
 */
export function extractValue(text: string, kind: NumericKind): string {
  if (kind === 'date') {
    const m = /^(0?[1-9]|1[0-2])\/(0?[1-9]|[12][0-9]|3[01])\/(\d{4})/.exec(text);
    return m ? `${m[1]!.padStart(2, '0')}/${m[2]!.padStart(2, '0')}/${m[3]}` : 'N/A';
  }
  if (kind === 'weeks-days') {
    // The benchmark reads the uncleaned answer first (its `match.group(1)` raises when that finds nothing).
    if (!WEEKS_DAYS.exec(text)) throw new PyException('AttributeError', "'NoneType' object has no attribute 'group'");
    const cleaned = text.replace(/\[/g, '(').replace(/\]/g, ')').replace(/'/g, '').replace(/"/g, '');
    const m = WEEKS_DAYS.exec(cleaned);
    return m ? `(${m[1]}, ${m[3]})` : 'N/A';
  }
  if (kind === 'integer') {
    const outOf = /(\d+) out of/.exec(text);
    if (outOf) return outOf[1]!;
    const list = /-?\d+(, ?-?\d+)+/.exec(text);
    if (list) return String(list[0].split(',').length);
    const all = [...text.matchAll(/(-?\d+(\.\d+)?)/g)];
    return all.length ? all[all.length - 1]![1]! : 'N/A';
  }
  // decimal: the value is evaluated here and handed on as Python's str() of it.
  const expression = /str\(([^\n]*)\)/.exec(text);
  if (expression) return medcalcExpression(expression[1]!);
  const egfr = /(-?\d+(\.\d+)?)\s*mL\/min\/1.73/.exec(text);
  if (egfr) return pyNumberStr(pyEval(egfr[1]!));
  const pct = [...text.matchAll(/(-?\d+(\.\d+)?)%/g)];
  if (pct.length) return pyNumberStr(pyEvalArithmetic(`${pct[pct.length - 1]![1]!} / 100`, {}));
  const all = [...text.matchAll(/(-?\d+(\.\d+)?)/g)];
  return all.length ? pyNumberStr(pyEval(all[all.length - 1]![1]!)) : 'N/A';
}

/** `datetime.strptime(text, "%m/%d/%Y")` as the day it names (ValueError for anything else, or a day that does not exist). */
function strptimeDay(text: string): string {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  if (m) {
    const [mo, d, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const date = new Date(Date.UTC(y, mo - 1, d));
    date.setUTCFullYear(y);
    if (mo >= 1 && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d) return `${mo}/${d}/${y}`;
  }
  throw new PyException('ValueError', `time data '${text}' does not match format '%m/%d/%Y'`);
}

/** `check_correctness` for one kind, on the extracted answer. Throws {@link PyException} where the benchmark's code raises. */
function checkCorrectness(answer: string, ref: NumericReference, kind: NumericKind): boolean {
  if (kind === 'date') return strptimeDay(answer) === strptimeDay(ref.value);
  if (kind === 'weeks-days') {
    const g = WEEKS_DAYS.exec(ref.value);
    if (!g) throw new PyException('AttributeError', "'NoneType' object has no attribute 'group'");
    const a = WEEKS_DAYS.exec(answer);
    if (!a) return false;
    // eval("(4, 2)") == eval("(4, 2)"): each number is a Python literal (a leading zero raises).
    return [a[1]!, a[3]!].every((x, i) => pyEval(x) === pyEval([g[1]!, g[3]!][i]!));
  }
  if (kind === 'integer') return pyEquals(pyRound(pyEval(answer)), pyEval(ref.value));
  const v = pyEval(answer);
  if (ref.lower !== undefined && ref.upper !== undefined) return toFloat(v) >= ref.lower && toFloat(v) <= ref.upper;
  // NeuroEval's rule for a decimal without limits (no MedCalc-Bench calculator): equal within 1e-9 relative.
  const gold = Number(ref.value);
  return Number.isFinite(gold) && Math.abs(toFloat(v) - gold) <= 1e-9 * Math.max(1, Math.abs(gold));
}

const pyEquals = (a: PyNumber, b: PyNumber): boolean => (typeof a !== 'number' && typeof b !== 'number' ? BigInt(a) === BigInt(b) : toFloat(a) === toFloat(b));

export interface NumericVerdict {
  /** What the benchmark's reading extracted; null when it read nothing ("N/A") or its code raised (counted wrong, and as not found). */
  readonly extracted: string | null;
  readonly correct: boolean;
  readonly kind: NumericKind;
  /** The exception MedCalc-Bench's code raises on this reply, which its run counts as incorrect. */
  readonly error?: string;
}

/** One reading of `text` (the JSON answer, or the whole reply), through the benchmark's extraction and check. */
function verdictOn(text: string, ref: NumericReference, kind: NumericKind | undefined): NumericVerdict {
  const k = kind ?? 'decimal';
  try {
    // A calculator id the benchmark does not list raises in its check_correctness.
    if (kind === undefined) throw new PyException('ValueError', `Unknown calculator ID: ${ref.calculatorId}`);
    const extracted = extractValue(text, k);
    const correct = checkCorrectness(extracted, ref, k);
    return { extracted: extracted === 'N/A' ? null : extracted, correct, kind: k };
  } catch (e) {
    if (!(e instanceof PyException)) throw e;
    return { extracted: null, correct: false, kind: k, error: e.pyType };
  }
}

/**
 * Both readings of one reply, the JSON answer read once: MedCalc-Bench's
 * verdict (`extract_answer` then `check_correctness`, an exception counting
 * as incorrect), and NeuroEval's for replies without the JSON answer the
 * prompt asks for (the whole reply, same rules; a reply with one gets the
 * benchmark's verdict).
 */
export function numericReadings(reply: string, ref: NumericReference): { readonly benchmark: NumericVerdict; readonly anywhere: NumericVerdict } {
  const kind = kindFor(ref);
  const text = answerText(reply);
  const benchmark = verdictOn(text, ref, kind);
  return { benchmark, anywhere: text === 'Not Found' ? verdictOn(reply, ref, kind) : benchmark };
}

/** MedCalc-Bench's verdict on one reply. */
export function scoreNumeric(reply: string, ref: NumericReference): NumericVerdict {
  return numericReadings(reply, ref).benchmark;
}

/** NeuroEval's verdict: a reply without the JSON answer is read whole. */
export function scoreNumericAnywhere(reply: string, ref: NumericReference): NumericVerdict {
  return numericReadings(reply, ref).anywhere;
}

/**
 * The figure a reference is scored under: MedCalc-Bench's `numeric.correct`
 * where it names one of its calculators (whose rule then decides), else
 * NeuroEval's `numeric.match` (the reference's own kind and limits). Scoring
 * and the account of figures no answer gave (run/unavailable.ts) name it alike.
 */
export function numericFigure(ref: Pick<NumericReference, 'calculatorId'> | undefined): 'numeric.correct' | 'numeric.match' {
  return ref?.calculatorId !== undefined ? 'numeric.correct' : 'numeric.match';
}

/** The rule of a reference: its calculator's (undefined for an id MedCalc-Bench does not list), else its kind. */
function kindFor(ref: NumericReference): NumericKind | undefined {
  return ref.calculatorId !== undefined ? medcalcKind(ref.calculatorId) : (ref.kind ?? 'decimal');
}
