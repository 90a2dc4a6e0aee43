import { describe, expect, it } from 'vitest';
import { exactMatch, normalizeAnswer, squadScore, tokenF1 } from '../../../../../src/core/scoring/metrics/squad.ts';

describe('SQuAD normalisation and token F1', () => {
  it('lower-cases, strips punctuation and articles, collapses whitespace', () => {
    expect(normalizeAnswer('  The Glioblastoma, (WHO grade-4)!  ')).toBe('glioblastoma who grade4');
    expect(normalizeAnswer('An   apple a day')).toBe('apple day');
    expect(normalizeAnswer('theory anthem')).toBe('theory anthem');
    expect(normalizeAnswer('a')).toBe('');
  });

  it('exact match compares normalised strings', () => {
    expect(exactMatch('The meningioma.', 'meningioma')).toBe(1);
    expect(exactMatch('meningiomas', 'meningioma')).toBe(0);
  });

  it('token F1 counts the multiset overlap', () => {
    // pred tokens: left frontal glioma; gold: glioma of left temporal lobe → overlap 2
    expect(tokenF1('left frontal glioma', 'glioma of the left temporal lobe')).toBeCloseTo((2 * (2 / 3) * (2 / 5)) / (2 / 3 + 2 / 5), 10);
    expect(tokenF1('stroke stroke', 'stroke')).toBeCloseTo((2 * 0.5 * 1) / 1.5, 10);
    expect(tokenF1('tumor', 'stroke')).toBe(0);
  });

  it('two empty answers agree (v2.0); one empty side scores 0', () => {
    expect(tokenF1('the', '')).toBe(1);
    expect(tokenF1('', 'stroke')).toBe(0);
  });

  it('takes the best reference, each metric on its own; no references → null', () => {
    expect(squadScore('ischemic stroke', ['haemorrhagic stroke', 'ischemic stroke'])).toEqual({ exactMatch: 1, f1: 1 });
    const s = squadScore('acute ischemic stroke', ['ischemic stroke', 'stroke'])!;
    expect(s.exactMatch).toBe(0);
    expect(s.f1).toBeCloseTo(0.8, 10);
    expect(squadScore('anything', [])).toBeNull();
  });
});
