import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { decodeText, type InputFile } from '../core/bundle/importers/importer.ts';

/** Files of a path as importer inputs, read lazily: a folder's files get paths relative to the folder. */
export function inputFilesFrom(target: string): InputFile[] {
  const st = statSync(target);
  const make = (full: string, path: string): InputFile => ({
    path,
    size: statSync(full).size,
    bytes: async () => new Uint8Array(readFileSync(full)),
    text: async () => decodeText(new Uint8Array(readFileSync(full))),
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
