import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../../src/cli/main.ts';
import { describeModelConfig, parseModelManifest } from '../../../../src/core/models/manifest.ts';
import { makeTempDir, removeTempDirs } from '../../../support/temp-dir.ts';

afterEach(removeTempDirs);

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('model manifest', () => {
  it('reads the self-test model manifest shipped with the app, which matches its files', () => {
    const dir = new URL('../../../../public/models/self-test/', import.meta.url);
    const manifest = parseModelManifest(JSON.parse(readFileSync(new URL('manifest.json', dir), 'utf8')));
    expect(manifest.files.map((f) => f.path)).toEqual(expect.arrayContaining(['config.json', 'tokenizer.json', 'onnx/decoder_model_merged.onnx']));
    expect(manifest.note).toMatch(/meaningless/i);
    for (const f of manifest.files) {
      const bytes = readFileSync(new URL(f.path, dir));
      expect(bytes.length).toBe(f.bytes);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(f.sha256);
    }
  });

  it('names the field that is wrong', () => {
    expect(() => parseModelManifest({ files: [{ path: '../x', bytes: 1, sha256: 'a'.repeat(64) }] })).toThrow(expect.objectContaining({ location: { file: 'manifest.json', field: 'files[0].path' } }));
    expect(() => parseModelManifest({ files: [{ path: 'a', bytes: 1.5, sha256: 'a'.repeat(64) }] })).toThrow(/whole number/);
    expect(() => parseModelManifest({ files: [{ path: 'a', bytes: 1, sha256: 'xyz' }] })).toThrow(/64 lower-case hex/);
    expect(() => parseModelManifest([])).toThrow(/"files" list/);
  });

  it('reads what a model folder is from config.json', () => {
    expect(describeModelConfig('{"model_type":"idefics3","architectures":["Idefics3ForConditionalGeneration"]}')).toEqual({ modelType: 'idefics3', architecture: 'Idefics3ForConditionalGeneration' });
    expect(() => describeModelConfig('{}')).toThrow(/no "model_type"/);
    expect(() => describeModelConfig('nope')).toThrow(/not valid JSON/);
  });

  it('neuroeval model-manifest writes a manifest the app accepts', async () => {
    const dir = makeTempDir('model');
    mkdirSync(join(dir, 'onnx'));
    writeFileSync(join(dir, 'config.json'), '{"model_type":"idefics3"}');
    writeFileSync(join(dir, 'onnx', 'model.onnx'), 'weights');
    let out = '';
    const io = { out: { write: (t: string) => (out += t) }, err: { write: () => 0 } };
    expect(await main(['model-manifest', dir], io)).toBe(0);
    expect(out).toContain('(2 files)');
    const manifest = parseModelManifest(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')));
    expect(manifest.files).toEqual([
      { path: 'config.json', bytes: 25, sha256: sha('{"model_type":"idefics3"}') },
      { path: 'onnx/model.onnx', bytes: 7, sha256: sha('weights') },
    ]);
  });
});
