import { describe, expect, it } from 'vitest';
import { mcqAccuracy, pairedSetScore } from '../../../../../src/core/scoring/metrics/mcq.ts';

describe('multiple-choice accuracy', () => {
  it('counts unparsed answers as wrong and as invalid', () => {
    const r = mcqAccuracy([{ gold: 'A', pred: 'A' }, { gold: 'B', pred: 'C' }, { gold: 'C', pred: null }, { gold: 'D', pred: 'D' }]);
    expect(r).toEqual({ n: 4, correct: 2, invalid: 1, accuracy: 0.5, invalidRate: 0.25 });
  });

  it('returns NaN rates for no items', () => {
    const r = mcqAccuracy([]);
    expect(r.accuracy).toBeNaN();
    expect(r.invalidRate).toBeNaN();
  });
});

describe('MediConfusion paired set score', () => {
  it('counts a pair only when both items are correct, and flags same-option pairs as confused', () => {
    const r = pairedSetScore([
      { first: { gold: 'A', pred: 'A' }, second: { gold: 'B', pred: 'B' } }, // both right
      { first: { gold: 'A', pred: 'A' }, second: { gold: 'B', pred: 'A' } }, // confused
      { first: { gold: 'B', pred: 'A' }, second: { gold: 'A', pred: 'A' } }, // confused
      { first: { gold: 'A', pred: null }, second: { gold: 'B', pred: null } }, // invalid, not confused
    ]);
    expect(r.pairs).toBe(4);
    expect(r.bothCorrect).toBe(1);
    expect(r.setScore).toBeCloseTo(0.25, 12);
    expect(r.individualAccuracy).toBeCloseTo(4 / 8, 12);
    expect(r.confused).toBe(2);
    expect(r.confusedRate).toBeCloseTo(0.5, 12);
    expect(r.invalid).toBe(2);
  });

  it('returns NaN rates for no pairs', () => {
    const r = pairedSetScore([]);
    expect([r.setScore, r.individualAccuracy, r.confusedRate].every(Number.isNaN)).toBe(true);
  });
});
