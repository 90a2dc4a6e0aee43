import { describe, expect, it } from 'vitest';
import { bertScore, computeIdf, rescaleWithBaseline } from '../../../../../src/core/scoring/metrics/bertscore.ts';

const v = (...xs: number[]): Float32Array => Float32Array.from(xs);
const e1 = v(1, 0, 0);
const e2 = v(0, 1, 0);
const e3 = v(0, 0, 1);
const d12 = v(1, 1, 0); // cos 1/√2 with e1 and e2

describe('BERTScore-style matching', () => {
  it('scores identical token sets 1 regardless of order and vector length', () => {
    const s = bertScore({ vectors: [e1, e2] }, { vectors: [v(0, 3, 0), v(2, 0, 0)] });
    expect(s.precision).toBeCloseTo(1, 6);
    expect(s.recall).toBeCloseTo(1, 6);
    expect(s.f).toBeCloseTo(1, 6);
  });

  it('matches each token greedily to its most similar counterpart', () => {
    // candidate [e1, d12], reference [e1, e2, e3]
    // P = (1 + 1/√2)/2; R = (1 + 1/√2 + 0)/3
    const s = bertScore({ vectors: [e1, d12] }, { vectors: [e1, e2, e3] });
    const p = (1 + Math.SQRT1_2) / 2;
    const r = (1 + Math.SQRT1_2) / 3;
    expect(s.precision).toBeCloseTo(p, 6);
    expect(s.recall).toBeCloseTo(r, 6);
    expect(s.f).toBeCloseTo((2 * p * r) / (p + r), 6);
  });

  it('weights tokens by IDF, with the maximum weight for unseen tokens', () => {
    const idf = computeIdf([['the', 'glioma'], ['the', 'stroke']]);
    expect(idf.weights.get('the')).toBeCloseTo(Math.log(3 / 3), 12);
    expect(idf.weights.get('glioma')).toBeCloseTo(Math.log(3 / 2), 12);
    expect(idf.unseen).toBeCloseTo(Math.log(3), 12);
    // "the" weighs 0, so only "glioma" (e1 vs e1 → 1) counts on either side.
    const s = bertScore({ vectors: [e2, e1], tokens: ['the', 'glioma'] }, { vectors: [e3, e1], tokens: ['the', 'glioma'] }, { idf });
    expect(s.precision).toBeCloseTo(1, 6);
    expect(s.recall).toBeCloseTo(1, 6);
    // An unseen candidate token gets weight ln 3: P = (ln3·0 + ln1.5·1)/(ln3 + ln1.5) for e3 vs {e1}.
    const u = bertScore({ vectors: [e3, e1], tokens: ['rare', 'glioma'] }, { vectors: [e1], tokens: ['glioma'] }, { idf });
    expect(u.precision).toBeCloseTo(Math.log(1.5) / (Math.log(3) + Math.log(1.5)), 6);
  });

  it('rescales with a baseline: (0.98433024 − 0.83150584)/(1 − 0.83150584) = 0.907001 (docs/reference-values.md#bertscore)', () => {
    const b = 0.83150584;
    const r = rescaleWithBaseline({ precision: 0.98433024, recall: 0.98433024, f: 0.98433024 }, { precision: b, recall: b, f: b });
    expect(r.precision).toBeCloseTo(0.907001, 6);
    const s = bertScore({ vectors: [e1] }, { vectors: [e1] }, { baseline: { precision: 0.5, recall: 0.2, f: 0.8 } });
    expect([s.precision, s.recall, s.f].map((x) => Math.round(x * 1e6) / 1e6)).toEqual([1, 1, 1]);
    const half = bertScore({ vectors: [e1] }, { vectors: [d12] }, { baseline: { precision: 0.5, recall: 0.5, f: 0.5 } });
    expect(half.precision).toBeCloseTo((Math.SQRT1_2 - 0.5) / 0.5, 6);
  });

  it('returns 0 for an empty side or a zero vector, never NaN', () => {
    expect(bertScore({ vectors: [] }, { vectors: [e1] })).toEqual({ precision: 0, recall: 0, f: 0 });
    expect(bertScore({ vectors: [e1] }, { vectors: [] })).toEqual({ precision: 0, recall: 0, f: 0 });
    const z = bertScore({ vectors: [v(0, 0, 0)] }, { vectors: [e1] });
    expect(z).toEqual({ precision: 0, recall: 0, f: 0 });
  });

  it('rejects mismatched dimensions and IDF without tokens', () => {
    expect(() => bertScore({ vectors: [e1] }, { vectors: [v(1, 0)] })).toThrow(/dimension/);
    expect(() => bertScore({ vectors: [e1] }, { vectors: [e1] }, { idf: computeIdf([]) })).toThrow(/one token per embedding/);
  });
});
