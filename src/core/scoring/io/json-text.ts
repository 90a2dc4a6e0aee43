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

/** Replaces bare `NaN` / `Infinity` / `-Infinity` tokens outside strings with `null`. */
function pythonJsonToJson(text: string): string {
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
      out += 'null';
      i += rest.length - 1;
    } else out += ch;
  }
  return out;
}

/**
 * `JSON.parse` that also accepts Python's NaN/Infinity (as `null`) and throws
 * {@link InvalidInputError} naming the file and line of a syntax error.
 * `firstLine` is the line number of `text`'s first line within the file.
 */
export function parseJsonText(text: string, file: string, firstLine = 1): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (/NaN|Infinity/.test(text)) {
      try {
        return JSON.parse(pythonJsonToJson(text));
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
