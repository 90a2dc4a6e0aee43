/**
 * Writes the hostile benchmark inputs the tests use (test/support/hostile-archives.ts)
 * into a folder, to try them by hand in the app or with the CLI:
 *
 *   npx tsx scripts/make-hostile-archives.ts <folder> [name…]
 *   node bin/neuroeval.js validate <folder>/ratio-bomb.zip
 *
 * Every input is small on disk (the largest, about 9 MB, declares 4 GB);
 * delete the folder when done.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { HOSTILE_ARCHIVES, writeHostile } from '../test/support/hostile-archives.ts';

const [folder, ...names] = process.argv.slice(2);
if (!folder) {
  console.error(`Usage: npx tsx scripts/make-hostile-archives.ts <folder> [${Object.keys(HOSTILE_ARCHIVES).join('|')}…]`);
  process.exit(2);
}
const unknown = names.filter((n) => !(n in HOSTILE_ARCHIVES));
if (unknown.length) {
  console.error(`Unknown input(s): ${unknown.join(', ')}. Known: ${Object.keys(HOSTILE_ARCHIVES).join(', ')}.`);
  process.exit(2);
}
const dir = resolve(folder);
mkdirSync(dir, { recursive: true });
for (const name of names.length ? names : Object.keys(HOSTILE_ARCHIVES)) {
  console.log(`${name}: ${writeHostile(HOSTILE_ARCHIVES[name]!(), dir)}`);
}
