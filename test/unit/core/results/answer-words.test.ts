import { describe, expect, it } from 'vitest';
import { decidedByLabel, lengthLabel } from '../../../../src/features/results/answer-words.ts';

describe('answer cards in plain words', () => {
  it('names rules, judges and encoders instead of their keys', () => {
    expect(decidedByLabel('rule', 'rule:json')).toBe('JSON rule (the answer parsed as one JSON object)');
    expect(decidedByLabel('rule', 'rule:exact')).toBe('exact-match rule');
    expect(decidedByLabel('rule', 'rule:lesion-location')).toBe('lesion rule (location)');
    expect(decidedByLabel('judge', 'self-test-text')).toBe('local judge Self-test text model (random weights)');
    expect(decidedByLabel('encoder', 'self-test-embed')).toBe('encoder Self-test encoder (random weights)');
    expect(decidedByLabel('reviewer', 'dr-a')).toBe('reviewer dr-a');
    for (const id of ['rule:json', 'rule:none', 'rule:rouge', 'rule:boxed']) expect(decidedByLabel('rule', id)).not.toMatch(/^rule:|\brule:[a-z]/);
  });

  it('says why an answer ended', () => {
    expect(lengthLabel(64, 'length', true)).toBe('64 tokens: reached the answer budget, so the answer is cut off');
    expect(lengthLabel(12, 'stop', false)).toBe('12 tokens, the model finished on its own');
    expect(lengthLabel(null, 'error', false)).toBe('unknown number of tokens, the call failed');
  });
});
