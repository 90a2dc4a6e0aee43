/**
 * Builds the synthetic demo benchmark (src/core/demo) and writes it as a
 * bundle ZIP to public/demo/neuroeval-demo.zip, where the app can load it
 * offline. The output is byte-identical on every run; run this after
 * changing anything under src/core/demo:
 *
 *   npx tsx scripts/make-demo-benchmark.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { finalizeBundle } from '../src/core/bundle/finalize.ts';
import { writeBundleZip } from '../src/core/bundle/zip-write.ts';
import { buildDemoDraft } from '../src/core/demo/index.ts';

const started = performance.now();
const draft = buildDemoDraft();
const generatedMs = performance.now() - started;

const { bundle, issues } = finalizeBundle(draft, { inputName: 'neuroeval-demo' });
for (const issue of issues) console.warn(`${issue.severity}: ${issue.message}`);
if (!bundle) {
  console.error('The demo benchmark has errors (above); nothing was written.');
  process.exit(1);
}

const zip = writeBundleZip(bundle);
const dir = new URL('../public/demo/', import.meta.url);
mkdirSync(dir, { recursive: true });
const out = new URL('neuroeval-demo.zip', dir);
writeFileSync(out, zip);

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`wrote public/demo/neuroeval-demo.zip`);
console.log(`  cases:        ${bundle.manifest.caseCount}`);
console.log(`  images:       ${bundle.manifest.imageCount}`);
console.log(`  zip size:     ${kib(zip.length)} (${zip.length} bytes)`);
console.log(`  content hash: ${bundle.manifest.contentHash}`);
console.log(`  generated in: ${Math.round(generatedMs)} ms`);
