/**
 * `json.loads(s)` as CPython's C scanner reads text, into {@link PyValue}s:
 * integers stay exact `bigint`s apart from floats (`1` and `1.0` differ
 * under `str()`), `NaN`, `Infinity` and `-Infinity` are floats, a repeated
 * key keeps its first place and its last value, only space, tab, LF and CR
 * count as whitespace, control characters inside strings are refused, and a
 * UTF-8 byte order mark is a decode error. Errors are thrown as
 * {@link PyException}: `JSONDecodeError` for what the decoder rejects, and the
 * others CPython raises from inside `loads` (`ValueError` for an integer of
 * more than 4,300 digits, `RecursionError` for deep nesting), which callers
 * catching only `JSONDecodeError` do not catch.
 */
import { PY_INT_MAX_STR_DIGITS, PyDict, PyException, type PyValue } from './values.ts';

/**
 * Nesting deeper than this is not read: CPython stops with RecursionError at
 * a depth that depends on the caller's own stack (about 1,000 less the frames
 * already in use), so no single number reproduces it.
 */
export const PY_JSON_SAFE_DEPTH = 900;

function lineCol(s: string, pos: number): string {
  const before = s.slice(0, pos);
  const line = before.split('\n').length;
  const col = pos - before.lastIndexOf('\n');
  return `line ${line} column ${col} (char ${pos})`;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;

class Scanner {
  private pos = 0;
  private depth = 0;
  constructor(private readonly s: string) {}

  private fail(msg: string, pos: number): never {
    throw new PyException('JSONDecodeError', `${msg}: ${lineCol(this.s, pos)}`);
  }

  private skipWs(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s[this.pos];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.pos++;
      else break;
    }
  }

  document(): PyValue {
    if (this.s.startsWith('\ufeff')) this.fail('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
    this.skipWs();
    const v = this.value();
    this.skipWs();
    if (this.pos !== this.s.length) this.fail('Extra data', this.pos);
    return v;
  }

  private value(): PyValue {
    const s = this.s;
    const start = this.pos;
    const c = s[start];
    if (c === '"') return this.string();
    if (c === '{' || c === '[') {
      if (++this.depth > PY_JSON_SAFE_DEPTH) throw new PyException('RecursionError', 'maximum recursion depth exceeded while decoding a JSON document');
      const v = c === '{' ? this.object() : this.array();
      this.depth--;
      return v;
    }
    for (const [word, v] of [['null', null], ['true', true], ['false', false], ['NaN', NaN], ['Infinity', Infinity], ['-Infinity', -Infinity]] as const) {
      if (s.startsWith(word, start)) {
        this.pos += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = start;
    const m = NUMBER.exec(s);
    if (m && m[0] !== '-') {
      this.pos += m[0].length;
      if (m[1] !== undefined || m[2] !== undefined) return Number(m[0]);
      if (m[0].replace('-', '').length > PY_INT_MAX_STR_DIGITS) throw new PyException('ValueError', `Exceeds the limit (${PY_INT_MAX_STR_DIGITS} digits) for integer string conversion`);
      return BigInt(m[0]);
    }
    return this.fail('Expecting value', start);
  }

  private string(): string {
    const s = this.s;
    const begin = this.pos;
    this.pos++;
    let out = '';
    for (;;) {
      if (this.pos >= s.length) this.fail('Unterminated string starting at', begin);
      const c = s[this.pos]!;
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c.charCodeAt(0) < 0x20) this.fail('Invalid control character at', this.pos);
      if (c !== '\\') {
        out += c;
        this.pos++;
        continue;
      }
      const e = s[this.pos + 1];
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e !== undefined && e in simple) {
        out += simple[e];
        this.pos += 2;
        continue;
      }
      if (e !== 'u') this.fail('Invalid \\escape', this.pos);
      const hex = (at: number): number | null => (/^[0-9a-fA-F]{4}$/.test(s.slice(at, at + 4)) ? parseInt(s.slice(at, at + 4), 16) : null);
      const u = hex(this.pos + 2);
      if (u === null) this.fail('Invalid \\uXXXX escape', this.pos + 1);
      this.pos += 6;
      // A high surrogate followed by an escaped low surrogate is one character; a lone one stays as it is.
      if (u >= 0xd800 && u <= 0xdbff && s[this.pos] === '\\' && s[this.pos + 1] === 'u') {
        const low = hex(this.pos + 2);
        if (low !== null && low >= 0xdc00 && low <= 0xdfff) {
          out += String.fromCharCode(u, low);
          this.pos += 6;
          continue;
        }
      }
      out += String.fromCharCode(u);
    }
  }

  private object(): PyDict {
    const s = this.s;
    const d = new PyDict();
    this.pos++;
    this.skipWs();
    if (s[this.pos] === '}') {
      this.pos++;
      return d;
    }
    for (;;) {
      if (s[this.pos] !== '"') this.fail('Expecting property name enclosed in double quotes', this.pos);
      const key = this.string();
      this.skipWs();
      if (s[this.pos] !== ':') this.fail("Expecting ':' delimiter", this.pos);
      this.pos++;
      this.skipWs();
      d.set(key, this.value());
      this.skipWs();
      const c = s[this.pos];
      if (c === '}') {
        this.pos++;
        return d;
      }
      if (c !== ',') this.fail("Expecting ',' delimiter", this.pos);
      this.pos++;
      this.skipWs();
    }
  }

  private array(): PyValue[] {
    const s = this.s;
    const out: PyValue[] = [];
    this.pos++;
    this.skipWs();
    if (s[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.skipWs();
      const c = s[this.pos];
      if (c === ']') {
        this.pos++;
        return out;
      }
      if (c !== ',') this.fail("Expecting ',' delimiter", this.pos);
      this.pos++;
      this.skipWs();
    }
  }
}

/** `json.loads(text)`. */
export function pyJsonLoads(text: string): PyValue {
  return new Scanner(text).document();
}

/** A JavaScript value (as `JSON.parse` gives one) as the Python value `json.loads` of its `JSON.stringify` gives. */
export function pyFromJs(x: unknown): PyValue {
  return pyJsonLoads(JSON.stringify(x) ?? 'null');
}
