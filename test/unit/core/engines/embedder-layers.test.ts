/**
 * What BERTScore needs of the encoder, through the real transformers.js code
 * on the bundled self-test encoder (2 layers; its graph also outputs
 * hidden_states.0 and hidden_states.1): a chosen layer's vectors, and
 * [CLS]/[SEP] kept and marked when asked.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransformersEmbedder, cosine } from '../../../../src/core/engines/transformers/embedder.ts';
import { SimilarityService, encoderFromEmbedder } from '../../../../src/core/scoring/run/similarity.ts';
import { loadNodeTransformers } from '../../../support/transformers-node.ts';

const EMBED_DIR = fileURLToPath(new URL('../../../../public/models/self-test-embed/', import.meta.url));
const TIMEOUT_MS = 30_000;

describe('encoder layers and special tokens for BERTScore', () => {
  let embedder: TransformersEmbedder;
  beforeAll(async () => {
    embedder = await TransformersEmbedder.load(await loadNodeTransformers(), { source: { kind: 'folder', location: EMBED_DIR } });
  }, TIMEOUT_MS);
  afterAll(async () => {
    await embedder?.dispose();
  });

  it('states its depth and the layers its graph outputs', () => {
    expect(embedder.info).toMatchObject({ layers: 2, hiddenStates: [0, 1], upstream: null });
  });

  it('reads the chosen layer: layer 1 differs from the last, and layer 2 is the last', async () => {
    const text = 'Left frontal lobe lesion';
    const last = await embedder.tokenEmbeddings(text);
    const one = await embedder.tokenEmbeddings(text, { layer: 1 });
    const two = await embedder.tokenEmbeddings(text, { layer: 2 });
    expect(last.layer).toBe(2);
    expect(one.layer).toBe(1);
    expect(one.tokens).toEqual(last.tokens);
    expect(two.vectors).toEqual(last.vectors);
    // Another layer's vector of the same token is another vector.
    expect(cosine(one.vectors[0]!, last.vectors[0]!)).toBeLessThan(0.999);
    await expect(embedder.tokenEmbeddings(text, { layer: 5 })).rejects.toThrow(/not layer 5/);
  });

  it('keeps [CLS] and [SEP] when asked, marked special, with the same content vectors', async () => {
    const dropped = await embedder.tokenEmbeddings('left lobe.');
    const kept = await embedder.tokenEmbeddings('left lobe.', { specialTokens: 'keep' });
    expect(dropped.tokens).toEqual(['left', 'lobe', '.']);
    expect(kept.tokens).toEqual(['[CLS]', 'left', 'lobe', '.', '[SEP]']);
    expect(kept.special).toEqual([true, false, false, false, true]);
    expect(kept.vectors.slice(1, 4)).toEqual(dropped.vectors);
    const empty = await embedder.tokenEmbeddings('', { specialTokens: 'keep' });
    expect(empty.tokens).toEqual(['[CLS]', '[SEP]']);
  });

  it('scores with special tokens in the matrix and records the layer it read', async () => {
    const service = new SimilarityService(encoderFromEmbedder(embedder));
    // Not in bert_score's table: the last layer, said so.
    expect(await service.layer()).toEqual({ used: 2, layers: 2, bertScore: null, model: null });
    const same = await service.score('left frontal lobe lesion', 'left frontal lobe lesion');
    expect(same.bert?.f).toBeCloseTo(1, 5);
    const empty = await service.score('', 'left frontal lobe lesion');
    expect(empty.bert).toEqual({ precision: 0, recall: 0, f: 0 });
  });
});
