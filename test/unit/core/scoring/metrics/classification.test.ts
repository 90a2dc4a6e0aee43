import { describe, expect, it } from 'vitest';
import { accuracy, averagedPrf, classificationReport } from '../../../../../src/core/scoring/metrics/classification.ts';

// 9 items: one with no gold label (not scorable), two abstentions (a null and the marker).
const gold = ['tumor', 'tumor', 'tumor', 'stroke', 'stroke', 'multiple sclerosis', 'multiple sclerosis', null, 'normal'];
const pred = ['tumor', 'stroke', 'undetermined', 'stroke', 'tumor', 'multiple sclerosis', null, 'tumor', 'normal'];

describe('classification report', () => {
  const r = classificationReport({ gold, pred });

  it('leaves items without a gold label out, and counts them', () => {
    expect(r.n).toBe(9);
    expect(r.scorable).toBe(8);
    expect(r.notScorable).toBe(1);
  });

  it('counts abstentions as wrong for accuracy', () => {
    expect(r.correct).toBe(4);
    expect(r.accuracy).toBeCloseTo(0.5, 12);
    expect(r.abstained).toBe(2);
    expect(r.abstentionRate).toBeCloseTo(0.25, 12);
    expect(r.balancedAccuracy).toBeCloseTo((0.5 + 1 + 0.5 + 1 / 3) / 4, 12);
  });

  it('builds the confusion matrix in label order, with abstentions in their own column', () => {
    expect(r.labels).toEqual(['multiple sclerosis', 'normal', 'stroke', 'tumor']);
    expect(r.confusion.matrix).toEqual([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]);
    expect(r.confusion.abstained).toEqual([1, 0, 0, 1]);
    expect(r.confusion.other).toEqual([0, 0, 0, 0]);
  });

  it('reports per-label P/R/F1, one-vs-rest balanced accuracy and abstention rate', () => {
    const byLabel = Object.fromEntries(r.perLabel.map((l) => [l.label, l]));
    const ms = byLabel['multiple sclerosis']!;
    expect([ms.support, ms.precision, ms.recall]).toEqual([2, 1, 0.5]);
    expect(ms.f1).toBeCloseTo(2 / 3, 12);
    expect(ms.balancedAccuracy).toBeCloseTo(0.75, 12);
    expect(ms.abstentionRate).toBeCloseTo(0.5, 12);
    const tumor = byLabel['tumor']!;
    expect(tumor.precision).toBeCloseTo(0.5, 12);
    expect(tumor.recall).toBeCloseTo(1 / 3, 12);
    expect(tumor.f1).toBeCloseTo(0.4, 12);
    expect(tumor.balancedAccuracy).toBeCloseTo((1 / 3 + 0.8) / 2, 12);
    expect(tumor.abstentionRate).toBeCloseTo(1 / 3, 12);
    expect(byLabel['stroke']!.balancedAccuracy).toBeCloseTo((0.5 + 5 / 6) / 2, 12);
    expect(byLabel['normal']!.balancedAccuracy).toBe(1);
  });

  it('F1 with abstention: abstentions are false negatives, never false positives', () => {
    const { macro, weighted, micro } = r.withAbstention;
    expect(macro.precision).toBeCloseTo(0.75, 12);
    expect(macro.recall).toBeCloseTo((0.5 + 1 + 0.5 + 1 / 3) / 4, 12);
    expect(macro.f1).toBeCloseTo((2 / 3 + 1 + 0.5 + 0.4) / 4, 12);
    expect(weighted.precision).toBeCloseTo(5.5 / 8, 12);
    expect(weighted.recall).toBeCloseTo(0.5, 12);
    expect(weighted.f1).toBeCloseTo((2 * (2 / 3) + 1 + 1 + 1.2) / 8, 12);
    expect(micro.precision).toBeCloseTo(4 / 6, 12);
    expect(micro.recall).toBeCloseTo(0.5, 12);
    expect(micro.f1).toBeCloseTo(8 / 14, 12);
  });

  it('standard (sklearn default labels) treats the abstention marker as a class of its own', () => {
    const { macro, weighted, micro } = r.standard;
    expect(macro.precision).toBeCloseTo(3 / 5, 12);
    expect(macro.f1).toBeCloseTo((2 / 3 + 1 + 0.5 + 0.4) / 5, 12);
    expect(weighted.f1).toBeCloseTo(r.withAbstention.weighted.f1, 12);
    expect([micro.precision, micro.recall, micro.f1]).toEqual([0.5, 0.5, 0.5]);
  });

  it('an out-of-vocabulary answer is a class in standard and a false negative with abstention', () => {
    const oov = classificationReport({ gold: ['a', 'b'], pred: ['a', 'banana'] });
    expect(oov.confusion.other).toEqual([0, 1]);
    // withAbstention classes {a, b}: P = (1 + 0)/2; standard adds "banana" (P 0): (1 + 0 + 0)/3.
    expect(oov.withAbstention.macro.precision).toBeCloseTo(0.5, 12);
    expect(oov.standard.macro.precision).toBeCloseTo(1 / 3, 12);
  });

  it('uses the given label order; absent labels score 0 with undefined rates as NaN', () => {
    const rep = classificationReport({ gold: ['b', 'a'], pred: ['b', 'a'], labels: ['b', 'c', 'a', 'undetermined'] });
    expect(rep.labels).toEqual(['b', 'c', 'a']);
    const c = rep.perLabel[1]!;
    expect([c.label, c.support, c.precision, c.recall, c.f1]).toEqual(['c', 0, 0, 0, 0]);
    expect(c.balancedAccuracy).toBeNaN();
    expect(c.abstentionRate).toBeNaN();
    expect(rep.withAbstention.macro.f1).toBeCloseTo(2 / 3, 12);
  });

  it('handles all-abstention input without throwing', () => {
    const rep = classificationReport({ gold: ['a', 'b'], pred: [null, 'undetermined'] });
    expect(rep.accuracy).toBe(0);
    expect(rep.abstentionRate).toBe(1);
    expect(rep.withAbstention.macro).toEqual({ precision: 0, recall: 0, f1: 0 });
    expect(rep.perLabel.map((l) => l.abstentionRate)).toEqual([1, 1]);
  });

  it('returns NaN rates, never throws, when nothing is scorable', () => {
    for (const rep of [classificationReport({ gold: [], pred: [] }), classificationReport({ gold: [null, 'undetermined'], pred: ['a', 'b'] })]) {
      expect(rep.scorable).toBe(0);
      expect(rep.accuracy).toBeNaN();
      expect(rep.balancedAccuracy).toBeNaN();
      expect(rep.withAbstention.macro.f1).toBeNaN();
      expect(rep.perLabel).toEqual([]);
    }
  });

  it('rejects gold and predictions of different lengths', () => {
    expect(() => classificationReport({ gold: ['a'], pred: [] })).toThrow(/differ in length/);
  });

  it('exposes the building blocks', () => {
    expect(accuracy(['a', 'b'], ['a', null])).toBe(0.5);
    expect(accuracy([], [])).toBeNaN();
    expect(averagedPrf(['a'], ['a'], []).macro.f1).toBeNaN();
  });
});
