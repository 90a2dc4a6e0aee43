/**
 * BERTScore's IDF as bert_score's `get_idf_dict` builds it: over the
 * reference of every scored pair, a repeated reference counted each time.
 */
import { describe, expect, it } from 'vitest';
import { SimilarityService, type SimilarityEncoder } from '../../../../../src/core/scoring/run/similarity.ts';

/** Whitespace tokens, one-hot vectors: enough to see which texts were tokenised and how often. */
function wordEncoder(calls: string[]): SimilarityEncoder {
  return {
    id: 'words',
    sentenceEmbeddings: async (texts) => texts.map(() => new Float32Array([1])),
    tokenEmbeddings: async (text) => {
      calls.push(text);
      const tokens = text.split(' ');
      return { tokens, vectors: tokens.map(() => new Float32Array([1])) };
    },
  };
}

describe('BERTScore IDF over the references', () => {
  it('counts a repeated reference every time, as bert_score does, and tokenises each distinct text once', async () => {
    const calls: string[] = [];
    const s = new SimilarityService(wordEncoder(calls));
    // Two answers to the first question, one to the second: M = 3 references.
    await s.useIdf(['glioma with oedema', 'glioma with oedema', 'acute stroke']);
    const idf = s.idf!;
    expect(calls.sort()).toEqual(['acute stroke', 'glioma with oedema']);
    expect(idf.unseen).toBeCloseTo(Math.log(4), 12);
    // "glioma" is in 2 of the 3 references (not 1 of 2, as de-duplicating would give).
    expect(idf.weights.get('glioma')).toBeCloseTo(Math.log(4 / 3), 12);
    expect(idf.weights.get('stroke')).toBeCloseTo(Math.log(4 / 2), 12);
  });
});
