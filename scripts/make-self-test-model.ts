/**
 * Writes the self-test model (tiny random-weight SmolVLM / Idefics3 in the
 * transformers.js layout) to public/models/self-test/, or to --out <dir>.
 * The output is byte-identical on every run; the files are committed:
 *
 *   npm run self-test-model
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SELF_TEST_MODEL_ID, buildSelfTestModel, type ModelFile } from './self-test-model/build.ts';

export const DEFAULT_OUT_DIR = fileURLToPath(new URL(`../public/models/${SELF_TEST_MODEL_ID}/`, import.meta.url));

/** Replaces `dir` with the model's files; returns what was written. */
export function writeSelfTestModel(dir: string): ModelFile[] {
  const files = buildSelfTestModel();
  rmSync(dir, { recursive: true, force: true });
  for (const file of files) {
    const target = join(dir, ...file.path.split('/'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.bytes);
  }
  return files;
}

function main(argv: readonly string[]): void {
  const outIndex = argv.indexOf('--out');
  const out = outIndex >= 0 && argv[outIndex + 1] ? resolve(argv[outIndex + 1]!) : DEFAULT_OUT_DIR;
  const files = writeSelfTestModel(out);
  const total = files.reduce((n, f) => n + f.bytes.length, 0);
  console.log(`wrote ${files.length} files to ${out}`);
  for (const f of files) console.log(`  ${f.path.padEnd(34)} ${String(f.bytes.length).padStart(8)} bytes`);
  console.log(`  total ${(total / 1024).toFixed(1)} KiB`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
