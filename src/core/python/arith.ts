/**
 * Python arithmetic, as `eval` computes the expressions a benchmark's own
 * code evaluates from model output (MedCalc-Bench's `str(…)` answers):
 * int and float literals (an int with a leading zero is a SyntaxError),
 * `+ - * / // % **`, unary signs, comparisons (giving `True`/`False`),
 * parentheses, and calls of the functions and module attributes the caller
 * names. Ints are exact (`bigint`), floats are doubles, `bool` counts as an
 * int; `/` is true division, `//` and `%` floor toward minus infinity, and
 * errors are those CPython raises (`ZeroDivisionError`, `NameError`, …).
 *
 * Nothing else of Python is read: strings, lists, subscripts, keywords and
 * any name the caller does not pass are errors, so model output can never do
 * more than arithmetic. An exponent beyond 10,000 on an int is refused
 * (`OverflowError`) rather than computed.
 */
import { PyException, pyFloatRepr, type PyExceptionType } from './values.ts';

export type PyNumber = bigint | number | boolean;
export type PyCallable = (args: readonly PyNumber[]) => PyNumber;
/** What a name evaluates to: a number, a function, or a module of them. */
export type PyBinding = PyNumber | PyCallable | { readonly [attribute: string]: PyNumber | PyCallable };

const raise = (type: PyExceptionType, message: string): never => {
  throw new PyException(type as PyExceptionType, message);
};

// ── Tokens ────────────────────────────────────────────────────────────────────

type Token = { kind: 'num'; value: PyNumber } | { kind: 'name'; value: string } | { kind: 'op'; value: string } | { kind: 'end' };

/** Digits with single underscores between them, as Python writes long literals (`1_000`). */
const D = String.raw`\d(?:_?\d)*`;
const NUMBER = new RegExp(`^(?:${D}\\.(?:${D})?(?:[eE][+-]?${D})?|\\.${D}(?:[eE][+-]?${D})?|${D}[eE][+-]?${D}|${D})`);
const OPS = ['**', '//', '==', '!=', '<=', '>=', '+', '-', '*', '/', '%', '(', ')', ',', '.', '<', '>'];

function tokens(source: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === ' ' || ch === '\t') {
      i++;
      continue;
    }
    const rest = source.slice(i);
    const num = NUMBER.exec(rest);
    if (num) {
      const text = num[0].replace(/_/g, '');
      if (/^\d+$/.test(text)) {
        // Python 3 has no octal-looking ints: "08" and "00012" are SyntaxErrors, "0" and "000" are not.
        if (/^0+[1-9]/.test(text)) raise('SyntaxError', 'leading zeros in decimal integer literals are not permitted');
        out.push({ kind: 'num', value: BigInt(text) });
      } else out.push({ kind: 'num', value: Number(text) });
      i += num[0].length;
      if (/^[A-Za-z_]/.test(source.slice(i))) raise('SyntaxError', 'invalid decimal literal');
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (name) {
      out.push({ kind: 'name', value: name[0] });
      i += name[0].length;
      continue;
    }
    const op = OPS.find((o) => rest.startsWith(o));
    if (!op) raise('SyntaxError', `invalid syntax at "${rest.slice(0, 10)}"`);
    out.push({ kind: 'op', value: op! });
    i += op!.length;
  }
  out.push({ kind: 'end' });
  return out;
}

// ── Values ────────────────────────────────────────────────────────────────────

const isInt = (x: PyNumber): x is bigint | boolean => typeof x !== 'number';
const asInt = (x: bigint | boolean): bigint => (typeof x === 'boolean' ? (x ? 1n : 0n) : x);

/** int → float as CPython converts (OverflowError beyond the largest double). */
export function toFloat(x: PyNumber): number {
  if (typeof x === 'number') return x;
  const f = Number(asInt(x));
  if (!Number.isFinite(f)) raise('OverflowError', 'int too large to convert to float');
  return f;
}

const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
};

function arith(op: string, a: PyNumber, b: PyNumber): PyNumber {
  if (isInt(a) && isInt(b)) {
    const x = asInt(a);
    const y = asInt(b);
    switch (op) {
      case '+': return x + y;
      case '-': return x - y;
      case '*': return x * y;
      case '/': return y === 0n ? raise('ZeroDivisionError', 'division by zero') : toFloat(x) / toFloat(y);
      case '//': return y === 0n ? raise('ZeroDivisionError', 'integer division or modulo by zero') : floorDiv(x, y);
      case '%': return y === 0n ? raise('ZeroDivisionError', 'integer modulo by zero') : x - floorDiv(x, y) * y;
      case '**':
        if (y < 0n) return x === 0n ? raise('ZeroDivisionError', '0.0 cannot be raised to a negative power') : floatPow(toFloat(x), toFloat(y));
        if (y > 10_000n && x !== 0n && x !== 1n && x !== -1n) return raise('OverflowError', 'exponent too large to compute here');
        return x ** y;
    }
  }
  const x = toFloat(a);
  const y = toFloat(b);
  switch (op) {
    case '+': return x + y;
    case '-': return x - y;
    case '*': return x * y;
    case '/': return y === 0 ? raise('ZeroDivisionError', 'float division by zero') : x / y;
    case '//': return y === 0 ? raise('ZeroDivisionError', 'float floor division by zero') : Math.floor(x / y);
    case '%': {
      if (y === 0) return raise('ZeroDivisionError', 'float modulo');
      const r = x % y;
      return r !== 0 && (r < 0) !== (y < 0) ? r + y : r;
    }
    case '**': return floatPow(x, y);
  }
  return raise('SyntaxError', `unknown operator ${op}`);
}

function floatPow(x: number, y: number): number {
  if (x === 0 && y < 0) return raise('ZeroDivisionError', '0.0 cannot be raised to a negative power');
  // A negative base to a fractional power is a complex number in Python: not a number a benchmark compares.
  if (x < 0 && !Number.isInteger(y)) return raise('TypeError', 'complex result');
  const r = x ** y;
  if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) return raise('OverflowError', 'Numerical result out of range');
  return r;
}

function compare(op: string, a: PyNumber, b: PyNumber): boolean {
  const [x, y] = isInt(a) && isInt(b) ? [asInt(a), asInt(b)] : [toFloat(a), toFloat(b)];
  switch (op) {
    case '==': return x === y;
    case '!=': return x !== y;
    case '<': return x < y;
    case '>': return x > y;
    case '<=': return x <= y;
    default: return x >= y;
  }
}

// ── Parser-evaluator (Python's precedence: comparison < + - < * / // % < unary < **) ──

class Evaluator {
  #i = 0;
  constructor(
    private readonly toks: readonly Token[],
    private readonly names: Readonly<Record<string, PyBinding>>,
  ) {}

  run(): PyNumber {
    const v = this.comparison();
    if (this.peek().kind !== 'end') raise('SyntaxError', 'invalid syntax');
    return v;
  }

  private peek(): Token {
    return this.toks[this.#i]!;
  }
  private isOp(...ops: string[]): string | null {
    const t = this.peek();
    return t.kind === 'op' && ops.includes(t.value) ? t.value : null;
  }
  private expect(op: string): void {
    if (!this.isOp(op)) raise('SyntaxError', `expected "${op}"`);
    this.#i++;
  }

  private comparison(): PyNumber {
    let left = this.sum();
    let result: boolean | null = null;
    for (let op = this.isOp('==', '!=', '<', '>', '<=', '>='); op; op = this.isOp('==', '!=', '<', '>', '<=', '>=')) {
      this.#i++;
      const right = this.sum();
      const holds = compare(op, left, right);
      result = (result ?? true) && holds;
      left = right;
    }
    return result ?? left;
  }
  private sum(): PyNumber {
    let v = this.term();
    for (let op = this.isOp('+', '-'); op; op = this.isOp('+', '-')) {
      this.#i++;
      v = arith(op, v, this.term());
    }
    return v;
  }
  private term(): PyNumber {
    let v = this.unary();
    for (let op = this.isOp('*', '/', '//', '%'); op; op = this.isOp('*', '/', '//', '%')) {
      this.#i++;
      v = arith(op, v, this.unary());
    }
    return v;
  }
  private unary(): PyNumber {
    const op = this.isOp('+', '-');
    if (!op) return this.power();
    this.#i++;
    const v = this.unary();
    return op === '-' ? arith('-', 0n, v) : isInt(v) ? asInt(v) : v;
  }
  private power(): PyNumber {
    const base = this.primary();
    if (!this.isOp('**')) return base;
    this.#i++;
    return arith('**', base, this.unary());
  }
  private primary(): PyNumber {
    const t = this.peek();
    if (t.kind === 'num') {
      this.#i++;
      return t.value;
    }
    if (t.kind === 'op' && t.value === '(') {
      this.#i++;
      const v = this.comparison();
      this.expect(')');
      return v;
    }
    if (t.kind !== 'name') return raise('SyntaxError', 'invalid syntax');
    this.#i++;
    // Keywords, whatever the names in scope.
    if (t.value === 'True' || t.value === 'False') return t.value === 'True';
    let bound: PyBinding | undefined = Object.hasOwn(this.names, t.value) ? this.names[t.value] : undefined;
    if (bound === undefined) return raise('NameError', `name '${t.value}' is not defined`);
    while (this.isOp('.')) {
      this.#i++;
      const attr = this.peek();
      if (attr.kind !== 'name') return raise('SyntaxError', 'invalid syntax');
      this.#i++;
      const module: { readonly [attribute: string]: PyNumber | PyCallable } | null = typeof bound === 'object' ? bound : null;
      const next: PyNumber | PyCallable | undefined = module && Object.hasOwn(module, attr.value) ? module[attr.value] : undefined;
      if (next === undefined) return raise('AttributeError', `no attribute '${attr.value}'`);
      bound = next;
    }
    if (this.isOp('(')) {
      this.#i++;
      const args: PyNumber[] = [];
      if (!this.isOp(')')) {
        args.push(this.comparison());
        while (this.isOp(',')) {
          this.#i++;
          if (this.isOp(')')) break;
          args.push(this.comparison());
        }
      }
      this.expect(')');
      if (typeof bound !== 'function') return raise('TypeError', 'object is not callable');
      return bound(args);
    }
    if (typeof bound === 'function' || typeof bound === 'object') return raise('TypeError', 'a function or module is not a number');
    return bound;
  }
}

/** Evaluates `source` as Python's `eval` would, with only `names` defined. Throws {@link PyException}. */
export function pyEvalArithmetic(source: string, names: Readonly<Record<string, PyBinding>>): PyNumber {
  return new Evaluator(tokens(source), names).run();
}

/** `str(x)` of a number: ints in decimal, floats as `repr`, `True`/`False`. */
export function pyNumberStr(x: PyNumber): string {
  if (typeof x === 'boolean') return x ? 'True' : 'False';
  return typeof x === 'bigint' ? x.toString() : pyFloatRepr(x);
}

// ── Builtins ──────────────────────────────────────────────────────────────────

/** Python's `round(x)` (half to even, an int) and `round(x, n)` (a float rounded as its exact decimal value is). */
export function pyRound(x: PyNumber, digits?: PyNumber): PyNumber {
  if (digits === undefined) {
    if (isInt(x)) return asInt(x);
    if (Number.isNaN(x)) return raise('ValueError', 'cannot convert float NaN to integer');
    if (!Number.isFinite(x)) return raise('OverflowError', 'cannot convert float infinity to integer');
    const f = Math.floor(x);
    const diff = x - f;
    const r = diff > 0.5 || (diff === 0.5 && f % 2 !== 0) ? f + 1 : f;
    return BigInt(r);
  }
  if (!isInt(digits)) return raise('TypeError', "'float' object cannot be interpreted as an integer");
  const n = Number(asInt(digits));
  if (isInt(x)) {
    if (n >= 0) return asInt(x);
    const unit = 10n ** BigInt(-n);
    const v = asInt(x);
    const q = floorDiv(v, unit);
    const rem = v - q * unit;
    const twice = rem * 2n;
    return (twice > unit || (twice === unit && q % 2n !== 0n) ? q + 1n : q) * unit;
  }
  if (!Number.isFinite(x) || n > 100) return x;
  if (n < 0) return raise('OverflowError', 'rounding a float to tens or more is not evaluated here');
  // The double's exact decimal expansion decides: 2.675 is 2.67499999…, so it rounds down; an exact tie goes to even.
  const exact = x.toFixed(Math.min(100, n + 60));
  const [whole, frac = ''] = exact.replace('-', '').split('.');
  const keep = frac.slice(0, n);
  const rest = frac.slice(n);
  const digitsText = (whole ?? '0') + keep;
  let q = BigInt(digitsText);
  const half = rest[0] ?? '0';
  const beyond = /[1-9]/.test(rest.slice(1));
  if (half > '5' || (half === '5' && (beyond || q % 2n !== 0n))) q += 1n;
  const text = q.toString().padStart(n + 1, '0');
  const value = Number(`${text.slice(0, text.length - n)}${n ? `.${text.slice(text.length - n)}` : ''}`);
  return x < 0 || Object.is(x, -0) ? -value : value;
}

const one = (name: string, args: readonly PyNumber[], count: number | [number, number]): void => {
  const [lo, hi] = typeof count === 'number' ? [count, count] : count;
  if (args.length < lo || args.length > hi) raise('TypeError', `${name}() takes ${lo === hi ? lo : `${lo} to ${hi}`} arguments (${args.length} given)`);
};
const floatFn = (name: string, f: (x: number) => number, domain?: (x: number) => boolean): PyCallable => (args) => {
  one(name, args, 1);
  const x = toFloat(args[0]!);
  if (domain && !domain(x)) raise('ValueError', 'math domain error');
  return f(x);
};

/** The builtins MedCalc-Bench's eval passes (min, pow, round, abs, int, float), and `math` / `np` functions models write. */
export const ARITHMETIC_BUILTINS: Readonly<Record<string, PyBinding>> = {
  min: (args) => {
    if (args.length < 2) return raise('TypeError', 'min() of a single number: not iterable');
    return args.reduce((m, v) => (compare('<', v, m) ? v : m));
  },
  pow: (args) => {
    one('pow', args, [2, 2]);
    return arith('**', args[0]!, args[1]!);
  },
  round: (args) => {
    one('round', args, [1, 2]);
    return pyRound(args[0]!, args[1]);
  },
  abs: (args) => {
    one('abs', args, 1);
    const x = args[0]!;
    return isInt(x) ? (asInt(x) < 0n ? -asInt(x) : asInt(x)) : Math.abs(x);
  },
  int: (args) => {
    one('int', args, 1);
    const x = args[0]!;
    if (isInt(x)) return asInt(x);
    if (Number.isNaN(x)) return raise('ValueError', 'cannot convert float NaN to integer');
    if (!Number.isFinite(x)) return raise('OverflowError', 'cannot convert float infinity to integer');
    return BigInt(Math.trunc(x));
  },
  float: (args) => {
    one('float', args, 1);
    return toFloat(args[0]!);
  },
};

const MATH: Readonly<Record<string, PyNumber | PyCallable>> = {
  pi: Math.PI,
  e: Math.E,
  sqrt: floatFn('sqrt', Math.sqrt, (x) => x >= 0),
  exp: (args) => {
    one('exp', args, 1);
    const r = Math.exp(toFloat(args[0]!));
    return Number.isFinite(r) ? r : raise('OverflowError', 'math range error');
  },
  log: (args) => {
    one('log', args, [1, 2]);
    const x = toFloat(args[0]!);
    if (x <= 0) return raise('ValueError', 'math domain error');
    if (args.length === 1) return Math.log(x);
    const b = toFloat(args[1]!);
    if (b <= 0) return raise('ValueError', 'math domain error');
    const lb = Math.log(b);
    return lb === 0 ? raise('ZeroDivisionError', 'float division by zero') : Math.log(x) / lb;
  },
  log10: floatFn('log10', Math.log10, (x) => x > 0),
  log2: floatFn('log2', Math.log2, (x) => x > 0),
  fabs: floatFn('fabs', Math.abs),
  floor: (args) => {
    one('floor', args, 1);
    const x = args[0]!;
    return isInt(x) ? asInt(x) : (ARITHMETIC_BUILTINS.int as PyCallable)([Math.floor(x)]);
  },
  ceil: (args) => {
    one('ceil', args, 1);
    const x = args[0]!;
    return isInt(x) ? asInt(x) : (ARITHMETIC_BUILTINS.int as PyCallable)([Math.ceil(x)]);
  },
  trunc: (args) => (ARITHMETIC_BUILTINS.int as PyCallable)(args),
  pow: (args) => {
    one('pow', args, 2);
    return floatPow(toFloat(args[0]!), toFloat(args[1]!));
  },
};

/** NumPy's scalar functions models write: float results; out of the domain they give nan, as NumPy does (with only a warning). */
const NUMPY: Readonly<Record<string, PyNumber | PyCallable>> = {
  pi: Math.PI,
  e: Math.E,
  sqrt: floatFn('sqrt', Math.sqrt),
  exp: floatFn('exp', Math.exp),
  log: floatFn('log', (x) => (x < 0 ? NaN : Math.log(x))),
  log10: floatFn('log10', (x) => (x < 0 ? NaN : Math.log10(x))),
};

export const MATH_MODULES: Readonly<Record<string, PyBinding>> = { math: MATH, np: NUMPY, numpy: NUMPY };
