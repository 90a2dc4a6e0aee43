/**
 * JSON parsing helpers for result files: error positions as line numbers, and
 * Python's `json.dumps` extensions (`NaN`, `Infinity`), which the NeuroVLM-Bench
 * harness can write and `JSON.parse` refuses.
 */
import { InvalidInputError } from '../../errors.ts';

/** Line (1-based) of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Marks a Python special number that stood where this string now stands (`specials: 'numbers'`). */
const SPECIAL_MARK = '\u0000python-float:';

/** Replaces bare `NaN` / `Infinity` / `-Infinity` tokens outside strings with `null`, or with a marked string. */
function pythonJsonToJson(text: string, specials: 'null' | 'numbers'): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      continue;
    }
    const rest = text.startsWith('-Infinity', i) ? '-Infinity' : text.startsWith('Infinity', i) ? 'Infinity' : text.startsWith('NaN', i) ? 'NaN' : '';
    if (rest) {
      out += specials === 'null' ? 'null' : JSON.stringify(SPECIAL_MARK + rest);
      i += rest.length - 1;
    } else out += ch;
  }
  return out;
}

const SPECIAL_VALUES: Readonly<Record<string, number>> = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };

/** Turns the marked strings back into the numbers Python's `json.loads` reads. */
function reviveSpecials(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.startsWith(SPECIAL_MARK) ? SPECIAL_VALUES[value.slice(SPECIAL_MARK.length)] : value;
}

/**
 * `JSON.parse` that also accepts Python's NaN/Infinity and throws
 * {@link InvalidInputError} naming the file and line of a syntax error.
 * `firstLine` is the line number of `text`'s first line within the file.
 * `specials`: read NaN/Infinity as `null` (default), or as the numbers
 * Python's `json.loads` gives, for code that follows Python's semantics.
 */
export function parseJsonText(text: string, file: string, firstLine = 1, specials: 'null' | 'numbers' = 'null'): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (/NaN|Infinity/.test(text)) {
      try {
        return specials === 'null' ? JSON.parse(pythonJsonToJson(text, 'null')) : JSON.parse(pythonJsonToJson(text, 'numbers'), reviveSpecials);
      } catch {
        // fall through: report the original error
      }
    }
    const message = error instanceof Error ? error.message : String(error);
    const pos = /position (\d+)/.exec(message);
    const line = pos ? firstLine + lineAt(text, Number(pos[1])) - 1 : firstLine;
    throw new InvalidInputError(`${file}:${line}: not valid JSON (${message}).`, { file, line });
  }
}
