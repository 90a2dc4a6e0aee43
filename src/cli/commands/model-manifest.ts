import { openAsBlob, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashBlob } from '../../core/hash/hash-blob.ts';
import { MODEL_MANIFEST, type ModelManifest } from '../../core/models/manifest.ts';
import type { CliCommand } from '../command.ts';
import { inputFilesFrom } from '../files.ts';

/**
 * `neuroeval model-manifest <folder>`: lists every file of a model folder with
 * its size and SHA-256 in manifest.json, so the app can download it from an
 * on-prem mirror with real progress and verify each file (also after a USB copy).
 */
export const modelManifestCommand: CliCommand = {
  name: 'model-manifest',
  usage: 'model-manifest <folder> [--print]',
  summary: 'Write manifest.json (sizes and SHA-256) for a model folder on a mirror or USB stick',
  help: [
    'Usage: neuroeval model-manifest <folder> [--print]',
    '',
    'Hashes every file of a model folder (as laid out on Hugging Face: config.json,',
    'tokenizer files, onnx/…) and writes <folder>/manifest.json, which NeuroEval uses',
    'to download the model from an on-prem mirror and to verify it after copying.',
    '',
    '  --print   Print the manifest instead of writing it',
  ].join('\n'),
  async run(args, io) {
    const folder = args.find((a) => !a.startsWith('--'));
    if (!folder) {
      io.err.write('neuroeval model-manifest: give a model folder\n');
      return 2;
    }
    const files = inputFilesFrom(folder).filter((f) => f.path !== MODEL_MANIFEST);
    const manifest: ModelManifest = {
      files: await Promise.all(files.map(async (f) => ({ path: f.path, bytes: f.size, sha256: await hashBlob(await openAsBlob(join(folder, f.path))) }))),
    };
    const text = `${JSON.stringify(manifest, null, 2)}\n`;
    if (args.includes('--print')) io.out.write(text);
    else {
      writeFileSync(join(folder, MODEL_MANIFEST), text);
      io.out.write(`Wrote ${join(folder, MODEL_MANIFEST)} (${manifest.files.length} files)\n`);
    }
    return 0;
  },
};
