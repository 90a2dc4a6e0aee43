/**
 * JSON input with locations: a parse failure names its line and column, and
 * entries of an array can be traced back to the line of their key field
 * (e.g. `"case_id": "case_12"`) without a position-tracking parser.
 */
import { InvalidInputError } from '../errors.ts';
import { nonFiniteField, nonFiniteMessage } from '../bundle/json-values.ts';

/**
 * Parses JSON; a syntax error becomes InvalidInputError with the line (and
 * column in the message), and so does a number too large to be finite
 * (naming its field).
 */
export function parseJsonWithLocation(text: string, file: string): unknown {
  const clean = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(clean) as unknown;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const where = syntaxErrorPosition(message, clean);
    const at = where ? ` (line ${where.line}, column ${where.column})` : '';
    throw new InvalidInputError(`${file} is not valid JSON${at}: ${message}`, where ? { file, line: where.line } : { file });
  }
  const infinite = nonFiniteField(value);
  if (infinite !== null) throw new InvalidInputError(`${file}: ${nonFiniteMessage(infinite)}`, { file, field: infinite });
  return value;
}

/** Line and column from a JSON.parse message: V8 gives "position N" (newer: "line L column C"), Firefox "line L column C". */
export function syntaxErrorPosition(message: string, text: string): { line: number; column: number } | undefined {
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc) return { line: Number(lc[1]), column: Number(lc[2]) };
  const pos = /position (\d+)/.exec(message);
  if (!pos) return undefined;
  const offset = Math.min(Number(pos[1]), text.length);
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Lines where `"key": value` occurs, per value, in file order. Entry k with
 * value v takes the k-th occurrence of v, so duplicates and entries missing
 * the key do not shift the others. Values are strings or plain numbers.
 */
export class KeyLines {
  private readonly lines = new Map<string, number[]>();

  constructor(text: string, key: string) {
    const re = new RegExp(`"${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*"|-?\\d+(?:\\.\\d+)?)`, 'g');
    let line = 1;
    let scanned = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      for (let i = text.indexOf('\n', scanned); i >= 0 && i < m.index; i = text.indexOf('\n', i + 1)) line++;
      scanned = m.index;
      const raw = m[1]!;
      let value: string;
      try {
        value = raw.startsWith('"') ? String(JSON.parse(raw)) : raw;
      } catch {
        continue;
      }
      const list = this.lines.get(value);
      if (list) list.push(line);
      else this.lines.set(value, [line]);
    }
  }

  /** The line of the next unclaimed occurrence of this value, if any. */
  take(value: string): number | undefined {
    return this.lines.get(value)?.shift();
  }
}
