import { closeSync, openSync, readFileSync, readSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { decodeText, type InputFile } from '../core/bundle/importer.ts';
import { checkInputSize } from '../core/bundle/read-inputs.ts';
import { decodeUnicode } from '../core/text/decode.ts';

/** Files of a path as importer inputs, read lazily: a folder's files get paths relative to the folder. */
export function inputFilesFrom(target: string): InputFile[] {
  const st = statSync(target);
  const make = (full: string, path: string): InputFile => ({
    path,
    size: statSync(full).size,
    bytes: async () => new Uint8Array(readFileSync(full)),
    text: async () => decodeText(new Uint8Array(readFileSync(full)), path),
    slice: async (start, end) => readRange(full, start, end),
  });
  if (st.isFile()) return [make(target, basename(target))];
  const out: InputFile[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.')) continue;
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(make(full, relative(target, full).split(sep).join('/')));
    }
  };
  walk(target);
  return out;
}

/** Bytes `start` to `end` of a file on disk, without reading the rest (Parquet row groups). */
function readRange(full: string, start: number, end: number): Uint8Array {
  const out = new Uint8Array(Math.max(0, end - start));
  const fd = openSync(full, 'r');
  try {
    let done = 0;
    while (done < out.length) {
      const n = readSync(fd, out, done, out.length - done, start + done);
      if (n === 0) break;
      done += n;
    }
    return done === out.length ? out : out.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

/**
 * A run export or results file as text, read as the app reads it: refused by
 * size before reading, UTF-8 or UTF-16, other bytes an error naming the line.
 * @throws InvalidInputError naming the file.
 */
export function readUnicodeFile(path: string): string {
  checkInputSize(path, statSync(path).size);
  return decodeUnicode(new Uint8Array(readFileSync(path)), path);
}
