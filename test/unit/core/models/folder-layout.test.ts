import { describe, expect, it } from 'vitest';
import { CATALOGUE, type CatalogueEntry } from '../../../../src/core/engines/catalogue.ts';
import { checkModelFolder, mlcShardPaths } from '../../../../src/core/models/folder-layout.ts';

const entry = (id: string): CatalogueEntry => CATALOGUE.models.find((m) => m.id === id)!;
const smolvlm = entry('smolvlm-256m');
const phi = entry('phi-3.5-vision-q4f32');
/** The files the catalogue lists for SmolVLM-256M. */
const smolvlmFiles = smolvlm.source!.files.map((f) => f.path);

describe('model folder layout against the catalogue', () => {
  it('accepts a transformers.js folder holding every listed file where the repository keeps it', () => {
    expect(checkModelFolder(smolvlm, [...smolvlmFiles, 'README.md'])).toEqual([]);
  });

  it('names each listed file that is missing, and ignores one the catalogue could not confirm', () => {
    const unverified = smolvlm.source!.files.filter((f) => f.unverified).map((f) => f.path);
    expect(unverified).toContain('onnx/vision_encoder.onnx');
    const problems = checkModelFolder(smolvlm, smolvlmFiles.filter((f) => f !== 'onnx/embed_tokens.onnx' && f !== 'tokenizer.json' && !unverified.includes(f)));
    expect(problems.map((p) => [p.kind, p.file])).toEqual([
      ['missing-file', 'tokenizer.json'],
      ['missing-file', 'onnx/embed_tokens.onnx'],
    ]);
    expect(problems[1]!.message).toContain('HuggingFaceTB/SmolVLM-256M-Instruct@acc054744d60');
  });

  it('takes a folder with one device\'s decoder (either), and names both when it has neither', () => {
    const without = (file: string) => smolvlmFiles.filter((f) => f !== file);
    expect(checkModelFolder(smolvlm, without('onnx/decoder_model_merged_quantized.onnx'))).toEqual([]);
    expect(checkModelFolder(smolvlm, without('onnx/decoder_model_merged_q4.onnx'))).toEqual([]);
    const neither = checkModelFolder(smolvlm, smolvlmFiles.filter((f) => !f.startsWith('onnx/decoder_model_merged')));
    expect(neither.map((p) => p.file)).toEqual(['onnx/decoder_model_merged_q4.onnx']);
    expect(neither[0]!.message).toMatch(/^onnx\/decoder_model_merged_q4\.onnx \(or onnx\/decoder_model_merged_quantized\.onnx\) is missing: SmolVLM 256M Instruct \(fp32 math\) loads one of them/);
  });

  it('says where a misplaced graph is, and when the folder picked is one level too high', () => {
    const flat = smolvlmFiles.map((f) => f.replace(/^onnx\//, ''));
    const misplaced = checkModelFolder(smolvlm, flat);
    expect(misplaced.every((p) => p.kind === 'misplaced')).toBe(true);
    expect(misplaced.find((p) => p.file === 'onnx/decoder_model_merged_q4.onnx')?.message).toContain('a file of that name is at decoder_model_merged_q4.onnx');
    const nested = checkModelFolder(smolvlm, smolvlmFiles.map((f) => `SmolVLM/${f}`));
    expect(nested).toEqual([expect.objectContaining({ kind: 'nested', file: 'SmolVLM/config.json' })]);
  });

  it('tells the two runtimes\' folders apart', () => {
    expect(checkModelFolder(smolvlm, ['mlc-chat-config.json', 'tensor-cache.json'])[0]).toMatchObject({ kind: 'wrong-runtime' });
    expect(checkModelFolder(phi, smolvlmFiles)[0]).toMatchObject({ kind: 'wrong-runtime', file: 'config.json' });
    expect(checkModelFolder(phi, ['notes.txt'])[0]).toMatchObject({ kind: 'missing-file', file: 'mlc-chat-config.json' });
    expect(checkModelFolder(phi, ['Phi/mlc-chat-config.json', 'Phi/tensor-cache.json'])[0]).toMatchObject({ kind: 'nested' });
  });

  it('checks an MLC folder for its weight index, every shard the index names and exactly one model library', () => {
    const index = JSON.stringify({ records: [{ dataPath: 'params_shard_0.bin' }, { dataPath: 'params_shard_1.bin' }] });
    const shards = mlcShardPaths(index);
    expect(shards).toEqual(['params_shard_0.bin', 'params_shard_1.bin']);
    const good = ['mlc-chat-config.json', 'tensor-cache.json', 'params_shard_0.bin', 'params_shard_1.bin', 'tokenizer.json', 'phi.wasm'];
    expect(checkModelFolder(phi, good, shards)).toEqual([]);
    const bad = checkModelFolder(phi, ['mlc-chat-config.json', 'params_shard_0.bin', 'a.wasm', 'b.wasm'], shards);
    expect(bad.map((p) => [p.kind, p.file])).toEqual([
      ['missing-file', 'tensor-cache.json'],
      ['missing-file', 'params_shard_1.bin'],
      ['model-library', 'a.wasm'],
    ]);
    expect(bad[2]!.message).toContain('it holds 2');
    expect(mlcShardPaths('not json')).toBeNull();
    expect(mlcShardPaths('{"records": 3}')).toBeNull();
  });
});
