import { describe, expect, it } from 'vitest';
import { bertScoreLayerFor, describeLayer, differsFromBertScore } from '../../../../../src/core/scoring/metrics/bertscore-layers.ts';

describe("bert_score's layer per model", () => {
  it('finds the model under its own name, a converter’s copy or the hub’s new home', () => {
    expect(bertScoreLayerFor('bert-base-uncased')).toBe(9);
    expect(bertScoreLayerFor('roberta-large')).toBe(17);
    expect(bertScoreLayerFor('microsoft/deberta-xlarge-mnli')).toBe(40);
    expect(bertScoreLayerFor('Xenova/bert-base-uncased')).toBe(9);
    expect(bertScoreLayerFor('google-bert/bert-base-uncased')).toBe(9);
    expect(bertScoreLayerFor('FacebookAI/roberta-large')).toBe(17);
    expect(bertScoreLayerFor('Xenova/deberta-v3-base')).toBe(9);
  });

  it('has no layer for models its table does not list, nor for a look-alike under another owner', () => {
    expect(bertScoreLayerFor('sentence-transformers/all-MiniLM-L6-v2')).toBeNull();
    expect(bertScoreLayerFor('someone/bert-base-uncased')).toBeNull();
    expect(bertScoreLayerFor(null)).toBeNull();
  });

  it('says which layer a figure comes from and whether it is bert_score’s', () => {
    const exact = { used: 9, layers: 12, bertScore: 9, model: 'bert-base-uncased' };
    expect(describeLayer(exact)).toBe("layer 9 of 12 (bert_score's layer for bert-base-uncased)");
    expect(differsFromBertScore(exact)).toBe(false);
    const last = { used: 12, layers: 12, bertScore: 9, model: 'bert-base-uncased' };
    expect(describeLayer(last)).toMatch(/^last layer 12 of 12 \(bert_score uses layer 9 .*not bert_score-exact\)$/);
    expect(differsFromBertScore(last)).toBe(true);
    const unlisted = { used: 6, layers: 6, bertScore: null, model: 'sentence-transformers/all-MiniLM-L6-v2' };
    expect(describeLayer(unlisted)).toBe("layer 6 of 6 (last; bert_score's layer table does not list sentence-transformers/all-MiniLM-L6-v2)");
    expect(differsFromBertScore(unlisted)).toBe(false);
  });
});
