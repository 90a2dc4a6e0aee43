/**
 * The few Python built-ins NeuroVLM-Bench's evaluator applies to JSON values,
 * with Python's semantics rather than JavaScript's, because the benchmark's
 * labels and filters are defined by them: `str(x)` (a label is
 * `str(x).strip().lower()`), `str.strip()` (Python's whitespace set, not
 * JavaScript's), truthiness (`x or default`) and `int(x)` for token counts.
 *
 * Values are what `json.loads` would have produced, as `parseJsonText` with
 * `pythonSpecials: 'numbers'` reads them (NaN and ±Infinity stay numbers).
 * One thing JSON parsing in JavaScript loses cannot be recovered: whether a
 * number was written `1` (Python int) or `1.0` (float); integral numbers are
 * treated as ints. No NeuroVLM-Bench label or ground truth is a number.
 */

/** Characters `str.isspace()` is true for (what `str.strip()` removes). */
const PY_SPACE = '\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';

/** `str.strip()` with no argument: JavaScript's `trim()` also strips U+FEFF and keeps U+001C–U+001F and U+0085. */
export function pyStrip(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && PY_SPACE.includes(s[a]!)) a++;
  while (b > a && PY_SPACE.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/** `repr(float)`: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const [mantissa, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  const fixed = String(x);
  return /[.e]/.test(fixed) ? fixed : `${fixed}.0`;
}

/** `repr(str)`: single quotes unless the text has a single quote and no double quote. */
function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return quote + out + quote;
}

function repr(x: unknown): string {
  return typeof x === 'string' ? strRepr(x) : pyStr(x);
}

/** Python's `str(x)` of a JSON value (`None`, `True`, `1`, `0.5`, `['a']`, `{'k': 1}`). */
export function pyStr(x: unknown): string {
  if (x === null || x === undefined) return 'None';
  if (typeof x === 'string') return x;
  if (typeof x === 'boolean') return x ? 'True' : 'False';
  if (typeof x === 'number') return Number.isInteger(x) && Math.abs(x) < 1e16 ? String(x) : floatRepr(x);
  if (Array.isArray(x)) return `[${x.map(repr).join(', ')}]`;
  if (typeof x === 'object') return `{${Object.entries(x as Record<string, unknown>).map(([k, v]) => `${strRepr(k)}: ${repr(v)}`).join(', ')}}`;
  return String(x);
}

/** Python truthiness of a JSON value: None, False, 0, "", [] and {} are falsy; NaN is truthy. */
export function pyTruthy(x: unknown): boolean {
  if (x === null || x === undefined || x === false || x === '' || x === 0) return false;
  if (Array.isArray(x)) return x.length > 0;
  if (typeof x === 'object') return Object.keys(x).length > 0;
  return true;
}

/** A JSON object as a Python dict, or undefined. */
export function pyDict(x: unknown): Readonly<Record<string, unknown>> | undefined {
  return x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined;
}

const PY_INT = /^[+-]?\d(?:_?\d)*$/;

/**
 * `int(x or 0)` for a token count. Where Python raises (`int("1.5")`,
 * `int(nan)`), the evaluator stops; NeuroEval counts 0 and carries on.
 */
export function pyIntOrZero(x: unknown): number {
  if (!pyTruthy(x)) return 0;
  if (x === true) return 1;
  if (typeof x === 'number') return Number.isFinite(x) ? Math.trunc(x) : 0;
  if (typeof x === 'string') {
    const s = pyStrip(x);
    return PY_INT.test(s) ? Number(s.replace(/_/g, '')) : 0;
  }
  return 0;
}
