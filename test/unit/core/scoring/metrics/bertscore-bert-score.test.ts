/**
 * BERTScore against bert_score's algorithm on hand-made embeddings. The
 * expected numbers come from scripts/bertscore-reference.py, an independent
 * torch implementation of bert_score's greedy_cos_idf and get_idf_dict
 * formulas (one pair per batch).
 */
import { describe, expect, it } from 'vitest';
import { bertScore, computeIdf, type EmbeddedText } from '../../../../../src/core/scoring/metrics/bertscore.ts';

// Token ids and 4-dimensional embeddings, as in the reference script.
const E: Record<string, number[]> = {
  '[CLS]': [1, 0, 0, 1],
  '[SEP]': [0, 1, 0, 1],
  mass: [1, 0.2, 0, 0.9], // best match: the reference's [CLS]
  left: [0, 1, 0.1, 0],
  lesion: [0.1, 0, 1, 0],
  right: [0, 0.9, 0.2, 0.1],
  tumour: [0.2, 0.1, 0.9, 0.3],
  enhancing: [0, 0.3, 0, 1], // best match: the candidate's [SEP]
};
const text = (words: string[]): EmbeddedText => {
  const tokens = ['[CLS]', ...words, '[SEP]'];
  return { tokens, vectors: tokens.map((t) => Float32Array.from(E[t]!)), special: tokens.map((t) => t === '[CLS]' || t === '[SEP]') };
};
const contentOnly = (words: string[]): EmbeddedText => ({ tokens: words, vectors: words.map((t) => Float32Array.from(E[t]!)) });

const candidate = text(['mass', 'left', 'lesion']);
const reference = text(['right', 'tumour', 'enhancing']);

describe('BERTScore as bert_score computes it', () => {
  it('matches content tokens against [CLS]/[SEP] too, which weigh 0 (no IDF)', () => {
    const s = bertScore(candidate, reference);
    expect(s.precision).toBeCloseTo(0.9713722511834775, 6);
    expect(s.recall).toBeCloseTo(0.9356082960478461, 6);
    expect(s.f).toBeCloseTo(0.9531549108641117, 6);
    // Leaving the special tokens out, as this project did before, gives another figure.
    const without = bertScore(contentOnly(['mass', 'left', 'lesion']), contentOnly(['right', 'tumour', 'enhancing']));
    expect(without.f).toBeCloseTo(0.8674644543096441, 6);
  });

  it('weights by IDF over the references, a repeated reference counted each time, [CLS]/[SEP] at 0', () => {
    const refs = [['[CLS]', 'right', 'tumour', 'enhancing', '[SEP]'], ['[CLS]', 'right', 'tumour', 'enhancing', '[SEP]'], ['[CLS]', 'left', 'tumour', '[SEP]']];
    const idf = computeIdf(refs);
    expect(idf.weights.get('[CLS]')).toBe(0);
    expect(idf.weights.get('right')).toBeCloseTo(0.28768207245178085, 12);
    expect(idf.unseen).toBeCloseTo(1.3862943611198906, 12);
    const s = bertScore(candidate, reference, { idf });
    expect(s.precision).toBeCloseTo(0.9682190812441163, 6);
    expect(s.recall).toBeCloseTo(0.9338046004012293, 6);
    expect(s.f).toBeCloseTo(0.9507004996697959, 6);
  });

  it('weighs [CLS]/[SEP] 0 even where an IDF table would give them weight', () => {
    const idf = computeIdf([['left']]);
    const marked = bertScore(candidate, reference, { idf });
    const unmarked = bertScore({ ...candidate, special: undefined }, { ...reference, special: undefined }, { idf });
    expect(marked.precision).not.toBeCloseTo(unmarked.precision, 3);
  });

  it('scores an empty text ([CLS][SEP] only) 0 on either side, as bert_score masks it', () => {
    expect(bertScore(text([]), reference)).toEqual({ precision: 0, recall: 0, f: 0 });
    expect(bertScore(candidate, text([]))).toEqual({ precision: 0, recall: 0, f: 0 });
  });

  it('rejects special-token marks that do not line up with the embeddings', () => {
    expect(() => bertScore({ ...candidate, special: [true] }, reference)).toThrow(/special tokens/);
  });
});
