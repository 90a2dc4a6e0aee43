/**
 * SimilarityService reads bert_score's layer where the encoder's graph
 * offers it, and records the last layer honestly where it does not.
 */
import { describe, expect, it } from 'vitest';
import { SimilarityService, type EncoderLayers, type SimilarityEncoder, type TokenEmbeddingRequest } from '../../../../../src/core/scoring/run/similarity.ts';

/** One-hot token vectors; records what it was asked for. */
function fakeEncoder(layers: EncoderLayers, asked: TokenEmbeddingRequest[]): SimilarityEncoder {
  return {
    id: 'fake',
    sentenceEmbeddings: async (texts) => texts.map(() => new Float32Array([1, 0])),
    tokenEmbeddings: async (text, request = {}) => {
      asked.push(request);
      const tokens = ['[CLS]', ...text.split(' '), '[SEP]'];
      return { tokens, vectors: tokens.map((t) => new Float32Array(t.startsWith('[') ? [0, 1] : [1, 0])), special: tokens.map((t) => t.startsWith('[')), layer: request.layer ?? layers.layers };
    },
    describeLayers: async () => layers,
  };
}

describe('BERTScore layer choice', () => {
  it("asks for bert_score's layer where the graph outputs it, special tokens kept", async () => {
    const asked: TokenEmbeddingRequest[] = [];
    const s = new SimilarityService(fakeEncoder({ upstream: 'roberta-large', layers: 24, hiddenStates: [0, 17, 23] }, asked));
    await s.score('glioma', 'glioma');
    expect(asked).toEqual([{ specialTokens: 'keep', layer: 17 }, { specialTokens: 'keep', layer: 17 }]);
    expect(await s.layer()).toEqual({ used: 17, layers: 24, bertScore: 17, model: 'roberta-large' });
  });

  it('reads the last layer, and says bert_score would not, where the graph has no earlier outputs', async () => {
    const asked: TokenEmbeddingRequest[] = [];
    const s = new SimilarityService(fakeEncoder({ upstream: 'Xenova/bert-base-uncased', layers: 12, hiddenStates: [] }, asked));
    await s.score('glioma', 'glioma');
    expect(asked).toEqual([{ specialTokens: 'keep' }, { specialTokens: 'keep' }]);
    expect(await s.layer()).toEqual({ used: 12, layers: 12, bertScore: 9, model: 'Xenova/bert-base-uncased' });
  });

  it('records an unknown depth for an encoder that cannot describe its layers', async () => {
    const s = new SimilarityService({ id: 'bare', sentenceEmbeddings: async () => [], tokenEmbeddings: async () => ({ tokens: [], vectors: [] }) });
    expect(await s.layer()).toEqual({ used: null, layers: null, bertScore: null, model: null });
  });
});
