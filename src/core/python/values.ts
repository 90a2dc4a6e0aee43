/**
 * Python's built-ins on the values `json.loads` produces, with CPython's
 * semantics rather than JavaScript's: a benchmark whose figures are defined by
 * Python code (NeuroVLM-Bench's `evaluate_detailed.py`) turns answers into
 * labels with `str(x)`, filters them with `float()` and `int()`, and orders
 * them with `sorted()`; each of these differs from its JavaScript look-alike
 * on some input (`str(1.0)` is "1.0", `float("\x851")` is 1.0, `sorted()`
 * orders by code point, not UTF-16 unit).
 *
 * Values: `null` (None), `boolean`, `bigint` (int, exact at any size),
 * `number` (float), `string` (str), arrays (list) and {@link PyDict} (dict,
 * insertion-ordered). Where CPython raises, these throw {@link PyException}
 * with the Python exception's name, so a caller can tell "Python would stop
 * here" from a bug of its own. Expected values in the tests were printed by
 * CPython (scripts/parity/python-semantics.py).
 */

/** A dict as `json.loads` builds one: string keys, insertion order, a repeated key keeps its first place and its last value. */
export class PyDict extends Map<string, PyValue> {}

export type PyValue = null | boolean | bigint | number | string | PyValue[] | PyDict;

export type PyExceptionType = 'ValueError' | 'TypeError' | 'OverflowError' | 'AttributeError' | 'KeyError' | 'JSONDecodeError' | 'RecursionError' | 'UnicodeDecodeError' | 'SyntaxError' | 'NameError' | 'ZeroDivisionError';

/** What CPython would raise at this point; `pyType` is the exception class's name. */
export class PyException extends Error {
  override readonly name = 'PyException';
  constructor(
    readonly pyType: PyExceptionType,
    message: string,
  ) {
    super(`${pyType}: ${message}`);
  }
}

/** `str.isspace()`: what `str.strip()` and `str.split()` treat as whitespace (U+001C–U+001F and U+0085 included, U+200B and U+FEFF not). */
const PY_SPACE_CHARS = '\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';
const PY_SPACE = new Set(PY_SPACE_CHARS);
/** A run of Python whitespace, as `str.split()` and `re`'s `\s+` see it (global: for `replace` and `split`). */
export const PY_SPACE_RUN = new RegExp(`[${[...PY_SPACE_CHARS].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}]+`, 'gu');

export function pyIsSpace(ch: string): boolean {
  return PY_SPACE.has(ch);
}

/** `str.strip()` with no argument. JavaScript's `trim()` also strips U+FEFF and keeps U+001C–U+001F and U+0085. */
export function pyStrip(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && PY_SPACE.has(s[a]!)) a++;
  while (b > a && PY_SPACE.has(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/** Python truthiness: None, False, 0, 0.0, "", [] and {} are false; NaN is true. */
export function pyTruthy(x: PyValue | undefined): boolean {
  if (x === null || x === undefined || x === false || x === '' || x === 0n || x === 0) return false;
  if (Array.isArray(x)) return x.length > 0;
  if (x instanceof PyDict) return x.size > 0;
  return true;
}

/** `repr(float)`: shortest round-trip digits; exponent form below 1e-4 and from 1e16, with at least two exponent digits. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  const fixed = String(x);
  return fixed.includes('.') ? fixed : `${fixed}.0`;
}

/** `str.isprintable()` of one code point: false for categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs other than the space. */
const NOT_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

/** `repr(str)`: single quotes unless the text has a single quote and no double quote; non-printable characters escaped. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x7f || (ch !== ' ' && !NOT_PRINTABLE.test(ch))) out += ch;
    else if (cp <= 0xff) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return quote + out + quote;
}

/** `repr(x)`. */
export function pyRepr(x: PyValue): string {
  return typeof x === 'string' ? pyStrRepr(x) : pyStr(x);
}

/** CPython refuses to turn an int of more digits than this into text, and text of more digits into an int (3.11+). */
export const PY_INT_MAX_STR_DIGITS = 4300;

/** `str(x)`: `None`, `True`, `1`, `1.0`, `-0.0`, `1e+16`, `['a', 1]`, `{'k': None}`. */
export function pyStr(x: PyValue): string {
  if (x === null) return 'None';
  if (typeof x === 'string') return x;
  if (typeof x === 'boolean') return x ? 'True' : 'False';
  if (typeof x === 'bigint') {
    const text = x.toString();
    if (text.replace('-', '').length > PY_INT_MAX_STR_DIGITS) throw new PyException('ValueError', `Exceeds the limit (${PY_INT_MAX_STR_DIGITS} digits) for integer string conversion`);
    return text;
  }
  if (typeof x === 'number') return pyFloatRepr(x);
  if (Array.isArray(x)) return `[${x.map(pyRepr).join(', ')}]`;
  return `{${[...x].map(([k, v]) => `${pyStrRepr(k)}: ${pyRepr(v)}`).join(', ')}}`;
}

/** Whitespace `float()` and `int()` skip around a number: ASCII \t \n \v \f \r and space, and the non-ASCII `isspace()` characters (not U+001C–U+001F). */
const NUMBER_SPACE_ASCII = ' \t\n\x0b\x0c\r';
const DECIMAL = /^\p{Nd}$/u;

/** The value of a decimal digit of any script (`unicodedata.decimal`): Unicode puts each script's digits 0–9 in consecutive code points. */
function decimalValue(ch: string): number {
  let start = ch.codePointAt(0)!;
  while (DECIMAL.test(String.fromCodePoint(start - 1))) start--;
  return (ch.codePointAt(0)! - start) % 10;
}

/**
 * `_PyUnicode_TransformDecimalAndSpaceToASCII` then the stripping both
 * `float()` and `int()` do: non-ASCII whitespace becomes a space, digits of
 * any script become ASCII digits, anything else non-ASCII makes the text
 * invalid (null).
 */
function asciiNumberText(s: string): string | null {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 127) out += ch;
    else if (PY_SPACE.has(ch)) out += ' ';
    else if (DECIMAL.test(ch)) out += String(decimalValue(ch));
    else return null;
  }
  let a = 0;
  let b = out.length;
  while (a < b && NUMBER_SPACE_ASCII.includes(out[a]!)) a++;
  while (b > a && NUMBER_SPACE_ASCII.includes(out[b - 1]!)) b--;
  return out.slice(a, b);
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Drops underscores that stand between two digits; null when any other underscore is there. */
function withoutUnderscores(s: string): string | null {
  if (!s.includes('_')) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '_') out += s[i];
    else if (!isDigit(s[i - 1]) || !isDigit(s[i + 1])) return null;
  }
  return out;
}

const FLOAT_TEXT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

/** `float(x)`. */
export function pyFloat(x: PyValue): number {
  if (typeof x === 'number') return x;
  if (typeof x === 'boolean') return x ? 1 : 0;
  if (typeof x === 'bigint') {
    const f = Number(x);
    if (!Number.isFinite(f)) throw new PyException('OverflowError', 'int too large to convert to float');
    return f;
  }
  if (typeof x === 'string') {
    const ascii = asciiNumberText(x);
    const text = ascii === null ? null : withoutUnderscores(ascii);
    if (text === null || !FLOAT_TEXT.test(text)) throw new PyException('ValueError', `could not convert string to float: ${pyStrRepr(x)}`);
    const sign = text.startsWith('-') ? -1 : 1;
    const body = text.replace(/^[+-]/, '').toLowerCase();
    if (body === 'nan') return NaN;
    if (body === 'inf' || body === 'infinity') return sign * Infinity;
    return sign * Number(body);
  }
  throw new PyException('TypeError', `float() argument must be a string or a real number, not '${pyTypeName(x)}'`);
}

const INT_TEXT = /^[+-]?\d+$/;

/** `int(x)`. */
export function pyInt(x: PyValue): bigint {
  if (typeof x === 'bigint') return x;
  if (typeof x === 'boolean') return x ? 1n : 0n;
  if (typeof x === 'number') {
    if (Number.isNaN(x)) throw new PyException('ValueError', 'cannot convert float NaN to integer');
    if (!Number.isFinite(x)) throw new PyException('OverflowError', 'cannot convert float infinity to integer');
    return BigInt(Math.trunc(x));
  }
  if (typeof x === 'string') {
    const ascii = asciiNumberText(x);
    const text = ascii === null ? null : withoutUnderscores(ascii);
    if (text === null || !INT_TEXT.test(text)) throw new PyException('ValueError', `invalid literal for int() with base 10: ${pyStrRepr(x)}`);
    if (text.replace(/^[+-]/, '').length > PY_INT_MAX_STR_DIGITS) throw new PyException('ValueError', `Exceeds the limit (${PY_INT_MAX_STR_DIGITS} digits) for integer string conversion`);
    return BigInt(text);
  }
  throw new PyException('TypeError', `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(x)}'`);
}

/** `type(x).__name__`. */
export function pyTypeName(x: PyValue): string {
  if (x === null) return 'NoneType';
  if (typeof x === 'boolean') return 'bool';
  if (typeof x === 'bigint') return 'int';
  if (typeof x === 'number') return 'float';
  if (typeof x === 'string') return 'str';
  return Array.isArray(x) ? 'list' : 'dict';
}

/** Python's order of two strings: by code point (JavaScript's `<` compares UTF-16 units, which puts U+10000 before U+FFFF). */
export function pyCompareStr(a: string, b: string): number {
  let i = 0;
  for (;;) {
    if (i >= a.length || i >= b.length) return a.length - i > 0 ? 1 : b.length - i > 0 ? -1 : 0;
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(i)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
  }
}

/** `sorted(set(xs))` of strings. */
export function pySortedUnique(xs: Iterable<string>): string[] {
  return [...new Set(xs)].sort(pyCompareStr);
}

/** `str.splitlines()`: also splits at \v, \f, U+001C–U+001E, U+0085, U+2028 and U+2029; a final line break adds no empty line. */
export function pySplitlines(s: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (!'\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029'.includes(ch)) continue;
    out.push(s.slice(start, i));
    if (ch === '\r' && s[i + 1] === '\n') i++;
    start = i + 1;
  }
  if (start < s.length) out.push(s.slice(start));
  return out;
}

/**
 * The lines `for line in open(path, encoding="utf-8")` yields (universal
 * newlines): a line ends at \n, \r\n or a lone \r, and nowhere else (U+2028
 * and the other `splitlines()` separators stay inside the line). Returned
 * without their line ends.
 */
export function pyFileLines(s: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch !== '\n' && ch !== '\r') continue;
    out.push(s.slice(start, i));
    if (ch === '\r' && s[i + 1] === '\n') i++;
    start = i + 1;
  }
  if (start < s.length) out.push(s.slice(start));
  return out;
}
