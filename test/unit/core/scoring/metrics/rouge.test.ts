import { describe, expect, it } from 'vitest';
import {
  lcsIndices, lcsTable, rougeL, rougeLsum, rougeScore, rougeScoreMulti, rougeTokenize, type PrfScore,
} from '../../../../../src/core/scoring/metrics/rouge.ts';

function expectPrf(actual: PrfScore, precision: number, recall: number, f: number): void {
  expect(actual.precision).toBeCloseTo(precision, 5);
  expect(actual.recall).toBeCloseTo(recall, 5);
  expect(actual.f).toBeCloseTo(f, 5);
}

// docs/reference-values.md#rouge rows 1–5 (google-research rouge_scorer_test.py). Upstream's other rows need
// rouge/testdata/target.txt and prediction.txt, which this project does not ship.
describe('ROUGE (rouge_score compatible)', () => {
  it('ROUGE-1: "testing one two" vs "testing" → P=1, R=1/3, F=1/2', () => {
    expectPrf(rougeScore('testing one two', 'testing', ['rouge1']).rouge1, 1, 1 / 3, 1 / 2);
  });

  it('ROUGE-2: vs "testing one" → P=1, R=1/2, F=2/3', () => {
    expectPrf(rougeScore('testing one two', 'testing one', ['rouge2']).rouge2, 1, 1 / 2, 2 / 3);
  });

  it('ROUGE-L: a non-consecutive LCS ("testing two") → P=1, R=2/3, F=4/5', () => {
    expectPrf(rougeScore('testing one two', 'testing two', ['rougeL']).rougeL, 1, 2 / 3, 4 / 5);
    expectPrf(rougeScore('testing one two', 'testing one', ['rougeL']).rougeL, 1, 2 / 3, 4 / 5);
  });

  it('scores several types in one call, keyed by type', () => {
    const r = rougeScore('testing one two', 'testing one', ['rouge1', 'rougeL']);
    expect(Object.keys(r).sort()).toEqual(['rouge1', 'rougeL']);
    expectPrf(r.rouge1, 1, 2 / 3, 4 / 5);
  });

  it('an empty prediction scores 0 for every type', () => {
    const r = rougeScore('testing one two', '', ['rouge1', 'rouge2', 'rougeL', 'rougeLsum']);
    for (const s of Object.values(r)) expectPrf(s, 0, 0, 0);
    expectPrf(rougeScore('', '', ['rouge1']).rouge1, 0, 0, 0);
    expectPrf(rougeScore('', 'w1', ['rougeLsum']).rougeLsum, 0, 0, 0);
    expectPrf(rougeScore('w1 w2 w3 w4 w5', '/', ['rougeLsum']).rougeLsum, 0, 0, 0);
  });

  it('ROUGE-Lsum: union LCS over newline-split sentences → R=0.8, P=0.4, F≈0.5333', () => {
    expectPrf(rougeScore('w1 w2 w3 w4 w5', 'w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5', ['rougeLsum']).rougeLsum, 0.4, 0.8, 0.53333);
  });

  it('ROUGE-Lsum does not count a target token twice', () => {
    // Both prediction sentences match the single target "a"; only one hit is allowed.
    expectPrf(rougeLsum([['a']], [['a'], ['a']]), 0.5, 1, 2 / 3);
    expectPrf(rougeLsum([['reference']], [[]]), 0, 0, 0);
  });

  it('reads back the same LCS as _lcs_table/_backtrack_norec', () => {
    const ref = ['1', '2', '3', '4', '5'];
    expect(lcsTable(ref, ['2', '5', '3', '4'])[5]![4]).toBe(3);
    expect(lcsIndices(ref, ['2', '5', '3', '4'])).toEqual([1, 2, 3]);
    expect(lcsIndices(ref, ['8', '9'])).toEqual([]);
    expect(lcsIndices(ref, ['1', '2', '6', '7', '8'])).toEqual([0, 1]);
    expect(lcsIndices(ref, ['1', '3', '8', '9', '5'])).toEqual([0, 2, 4]);
    expectPrf(rougeL([], ['a']), 0, 0, 0);
  });

  it('tokenizes like rouge_score: lower-case, non-alphanumerics split, optional stemming of long tokens', () => {
    expect(rougeTokenize("The T1-weighted MRI's lesions, 3cm!")).toEqual(['the', 't1', 'weighted', 'mri', 's', 'lesions', '3cm']);
    expect(rougeTokenize('Café naïve')).toEqual(['caf', 'na', 've']);
    expect(rougeTokenize('lesions were enhancing', { useStemmer: true })).toEqual(['lesion', 'were', 'enhanc']);
    expect(rougeTokenize('flies', { useStemmer: true })).toEqual(['fli']);
    expect(rougeTokenize('ties', { useStemmer: true })).toEqual(['tie']);
    expect(rougeTokenize('cats', { useStemmer: true })).toEqual(['cat']);
    expect(rougeTokenize('is was', { useStemmer: true })).toEqual(['is', 'was']);
  });

  it('stemming lets inflections match', () => {
    expect(rougeScore('enhancing lesions', 'enhanced lesion', ['rouge1']).rouge1.f).toBe(0);
    expect(rougeScore('enhancing lesions', 'enhanced lesion', ['rouge1'], { useStemmer: true }).rouge1.f).toBeCloseTo(1, 10);
  });

  it('takes the best target by F over several references', () => {
    const r = rougeScoreMulti(['glioma', 'testing one two'], 'testing one', ['rouge1']);
    expectPrf(r.rouge1, 1, 2 / 3, 4 / 5);
    expectPrf(rougeScoreMulti([], 'x', ['rougeL']).rougeL, 0, 0, 0);
  });

  it('rejects an unknown ROUGE type', () => {
    expect(() => rougeScore('a', 'b', ['rouge0' as 'rouge1'])).toThrow(/Unknown ROUGE type/);
  });
});
