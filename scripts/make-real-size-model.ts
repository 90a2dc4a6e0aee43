/**
 * Writes the real-size random-weight models (the dimensions and q4 layout of
 * SmolVLM-256M-Instruct and of the 2.2 B SmolVLM-Instruct) for speed
 * measurements, to .cache/real-size-models/<id>/ (git-ignored) or --out <dir>.
 * A folder that is already complete is kept. They are large (≈0.6 and ≈1.9 GB):
 * never commit them.
 *
 *   npx tsx scripts/make-real-size-model.ts [--model <id>[,<id>]] [--out <dir>]
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REAL_SIZE_MODELS } from './real-size-model/dims.ts';
import { ensureRealSizeModel } from './real-size-model/build.ts';

/** Where the bench looks for (and generates) the models. */
export const REAL_SIZE_CACHE = fileURLToPath(new URL('../.cache/real-size-models/', import.meta.url));

function main(argv: readonly string[]): void {
  const arg = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const out = resolve(arg('--out') ?? REAL_SIZE_CACHE);
  const wanted = arg('--model')?.split(',');
  for (const d of REAL_SIZE_MODELS.filter((m) => !wanted || wanted.includes(m.id))) {
    const t0 = performance.now();
    const { stamp, generated } = ensureRealSizeModel(join(out, d.id), d);
    const total = stamp.files.reduce((n, f) => n + f.bytes, 0);
    console.log(`${generated ? 'wrote' : 'kept'} ${join(out, d.id)}: ${(total / 1e9).toFixed(2)} GB in ${stamp.files.length} files (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    for (const f of stamp.files) console.log(`  ${f.path.padEnd(42)} ${String(f.bytes).padStart(12)} bytes`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
