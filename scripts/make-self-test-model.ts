/**
 * Writes the self-test models (tiny, random weights, in real transformers.js
 * layouts) to public/models/<id>/, or to <dir>/<id>/ with --out <dir>:
 *
 * - `self-test`: SmolVLM / Idefics3 (image-text-to-text)
 * - `self-test-text`: a Llama-style causal LM (text-generation, e.g. judging)
 * - `self-test-embed`: a BERT encoder (feature-extraction, similarity scoring)
 *
 * The output is byte-identical on every run; the files are committed:
 *
 *   npm run self-test-model
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SELF_TEST_MODEL_ID, buildSelfTestModel, type ModelFile } from './self-test-model/build.ts';
import { SELF_TEST_EMBED_MODEL_ID, buildSelfTestEmbedModel } from './self-test-model/encoder-model.ts';
import { SELF_TEST_TEXT_MODEL_ID, buildSelfTestTextModel } from './self-test-model/text-model.ts';

/** public/models/: each self-test model is a folder in here. */
const DEFAULT_MODELS_DIR = fileURLToPath(new URL('../public/models/', import.meta.url));

/** Every self-test model, by folder name. */
export const SELF_TEST_MODELS: Readonly<Record<string, () => ModelFile[]>> = {
  [SELF_TEST_MODEL_ID]: buildSelfTestModel,
  [SELF_TEST_TEXT_MODEL_ID]: buildSelfTestTextModel,
  [SELF_TEST_EMBED_MODEL_ID]: buildSelfTestEmbedModel,
};

/** Replaces `dir` with the given files. */
export function writeModelFiles(dir: string, files: readonly ModelFile[]): void {
  rmSync(dir, { recursive: true, force: true });
  for (const file of files) {
    const target = join(dir, ...file.path.split('/'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.bytes);
  }
}

/** Replaces `dir` with the VLM self-test model's files; returns what was written. */
export function writeSelfTestModel(dir: string): ModelFile[] {
  const files = buildSelfTestModel();
  writeModelFiles(dir, files);
  return files;
}

/** Writes every self-test model to `<modelsDir>/<id>/`; returns the files by model id. */
function writeSelfTestModels(modelsDir: string): Record<string, ModelFile[]> {
  const written: Record<string, ModelFile[]> = {};
  for (const [id, build] of Object.entries(SELF_TEST_MODELS)) {
    const files = build();
    writeModelFiles(join(modelsDir, id), files);
    written[id] = files;
  }
  return written;
}

function main(argv: readonly string[]): void {
  const outIndex = argv.indexOf('--out');
  const out = outIndex >= 0 && argv[outIndex + 1] ? resolve(argv[outIndex + 1]!) : DEFAULT_MODELS_DIR;
  for (const [id, files] of Object.entries(writeSelfTestModels(out))) {
    const total = files.reduce((n, f) => n + f.bytes.length, 0);
    console.log(`wrote ${files.length} files to ${join(out, id)}`);
    for (const f of files) console.log(`  ${f.path.padEnd(34)} ${String(f.bytes.length).padStart(8)} bytes`);
    console.log(`  total ${(total / 1024).toFixed(1)} KiB`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
