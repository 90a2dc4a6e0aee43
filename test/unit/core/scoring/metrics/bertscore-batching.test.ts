/**
 * BERTScore as bert_score computes it in padded batches: hand-made token
 * embeddings (first and last vector of each text are [CLS]/[SEP]) scored by
 * bert_score's own `bert_cos_score_idf` at batch size 64 (its default) and
 * 1 (scripts/parity/bertscore-batching.py wrote test/fixtures/bertscore/
 * batching.json). Some tokens' best cosine is negative: in a batch whose
 * other texts are longer, the padded position (similarity 0) is their best
 * match, so they score 0 there and their negative cosine alone.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bertScore, bertScoreBatch, paddingOf, type EmbeddedText } from '../../../../../src/core/scoring/metrics/bertscore.ts';

interface Fixture {
  pairs: { candidate: number[][]; reference: number[][] }[];
  batch_64: [number, number, number][];
  batch_1: [number, number, number][];
}
const fixture = JSON.parse(readFileSync(new URL('../../../../fixtures/bertscore/batching.json', import.meta.url), 'utf8')) as Fixture;

const text = (vs: number[][]): EmbeddedText => ({ vectors: vs.map((v) => Float32Array.from(v)), special: vs.map((_, i) => i === 0 || i === vs.length - 1) });
const pairs = fixture.pairs.map((p) => ({ candidate: text(p.candidate), reference: text(p.reference) }));
const triple = (s: { precision: number; recall: number; f: number }): number[] => [s.precision, s.recall, s.f];

/** bert_score computes in float32: agreement to 2e-6, relative where F is large (P and R of opposite signs). */
function within(got: number[][], want: number[][]): string[] {
  const bad: string[] = [];
  want.forEach((w, i) => w.forEach((x, k) => Math.abs(got[i]![k]! - x) > 2e-6 * Math.max(1, Math.abs(x)) && bad.push(`pair ${i} ${'PRF'[k]}: ${got[i]![k]} ≠ bert_score ${x}`)));
  return bad;
}

describe("BERTScore in bert_score's padded batches", () => {
  it('the fixture has pairs the padding changes (a token whose best cosine is negative)', () => {
    const changed = fixture.batch_64.filter((s, i) => s.some((x, k) => Math.abs(x - fixture.batch_1[i]![k]!) > 1e-3));
    expect(changed.length).toBeGreaterThan(10);
    expect(fixture.pairs.length).toBeGreaterThan(64);
  });

  it('at the default batch size (64) every P, R and F equals bert_score', () => {
    expect(within(bertScoreBatch(pairs).map(triple), fixture.batch_64)).toEqual([]);
  });

  it('at batch size 1 (and pair by pair) every P, R and F equals bert_score', () => {
    expect(within(bertScoreBatch(pairs, { batchSize: 1 }).map(triple), fixture.batch_1)).toEqual([]);
    expect(within(pairs.map((p) => triple(bertScore(p.candidate, p.reference))), fixture.batch_1)).toEqual([]);
  });

  it('pads each side to the longest of its batch, batches taken in order', () => {
    const lengths = [{ candidate: 3, reference: 5 }, { candidate: 4, reference: 2 }, { candidate: 9, reference: 9 }];
    expect(paddingOf(lengths, 2)).toEqual([
      { candidate: true, reference: false },
      { candidate: false, reference: true },
      { candidate: false, reference: false },
    ]);
    expect(() => paddingOf(lengths, 0)).toThrow(/batch size/);
  });
});
