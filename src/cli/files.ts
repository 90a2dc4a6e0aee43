import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { decodeText, type InputFile } from '../core/bundle/importers/importer.ts';
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

/**
 * A run export or results file as text, read as the app reads it: refused by
 * size before reading, UTF-8 or UTF-16, other bytes an error naming the line.
 * @throws InvalidInputError naming the file.
 */
export function readUnicodeFile(path: string): string {
  checkInputSize(path, statSync(path).size);
  return decodeUnicode(new Uint8Array(readFileSync(path)), path);
}
