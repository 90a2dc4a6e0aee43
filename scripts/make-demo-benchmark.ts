/**
 * Builds the synthetic demo benchmark (src/core/demo) and writes it as a
 * bundle ZIP to public/demo/neuroeval-demo.zip, where the app can load it
 * offline. The output is byte-identical on every run; run this after
 * changing anything under src/core/demo:
 *
 *   npm run demo
 *
 * With a seed it draws a fresh held-out set instead (NeuroVLM-Bench style
 * single-image cases, the five classes in equal measure), written to
 * neuroeval-demo-s<seed>.zip in the current folder unless --out says where:
 *
 *   npm run demo -- --seed 7 --cases 100 [--out held-out.zip]
 *
 * `--task lesion` asks the same drawn slices Neural-MedBench's lesion
 * recognition instead (type, location, side, sequence), for the mirror probe.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { finalizeBundle } from '../src/core/bundle/finalize.ts';
import { writeBundleZip } from '../src/core/bundle/zip-write.ts';
import { buildDemoDraft, buildDrawnDraft } from '../src/core/demo/index.ts';

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const { values } = (() => {
  try {
    return parseArgs({ options: { seed: { type: 'string' }, cases: { type: 'string' }, out: { type: 'string' }, task: { type: 'string' } }, strict: true });
  } catch (e) {
    return fail(`${(e as Error).message}\nUsage: npm run demo [-- --seed <n> --cases <k> [--task classification|lesion] [--out <file.zip>]]`);
  }
})();
const whole = (name: string, v: string | undefined, min: number): number | null => {
  if (v === undefined) return null;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be a whole number ≥ ${min}, got "${v}".`);
  return n;
};
const seed = whole('seed', values.seed, 0);
const count = whole('cases', values.cases, 1);
if ((seed === null) !== (count === null)) fail('--seed and --cases go together: npm run demo -- --seed 7 --cases 100');
const task = values.task ?? 'classification';
if (task !== 'classification' && task !== 'lesion') fail(`--task must be classification or lesion, got "${task}".`);
if (values.task !== undefined && seed === null) fail('--task goes with --seed and --cases: npm run demo -- --seed 7 --cases 100 --task lesion');

const started = performance.now();
const draft = seed === null ? buildDemoDraft() : buildDrawnDraft(seed, count!, task);
const generatedMs = performance.now() - started;

const { bundle, issues } = finalizeBundle(draft, { inputName: draft.manifest.id });
for (const issue of issues) console.warn(`${issue.severity}: ${issue.message}`);
if (!bundle) fail('The demo benchmark has errors (above); nothing was written.');

const zip = writeBundleZip(bundle);
let out: string;
if (seed === null) {
  const dir = fileURLToPath(new URL('../public/demo/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  out = resolve(dir, 'neuroeval-demo.zip');
} else {
  // npm runs scripts from the package root: a relative --out is taken from where npm was called.
  out = resolve(process.env.INIT_CWD ?? process.cwd(), values.out ?? (task === 'lesion' ? `neuroeval-demo-lesion-s${seed}.zip` : `neuroeval-demo-s${seed}.zip`));
}
writeFileSync(out, zip);

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`wrote ${out}`);
console.log(`  cases:        ${bundle.manifest.caseCount}`);
console.log(`  images:       ${bundle.manifest.imageCount}`);
console.log(`  zip size:     ${kib(zip.length)} (${zip.length} bytes)`);
console.log(`  content hash: ${bundle.manifest.contentHash}`);
console.log(`  generated in: ${Math.round(generatedMs)} ms`);
