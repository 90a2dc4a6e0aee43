import { describe, expect, it } from 'vitest';
import { answerLabeller, answerLine } from '../../../../src/features/runs/answer-label.ts';
import { variantLabel } from '../../../../src/core/runner/variants.ts';
import { testProvenance } from '../../../support/run-record.ts';

describe('answers of a run in plain words', () => {
  it('names the case, the question and the model by its display name, never the item key', () => {
    const p = testProvenance({ models: [{ id: 'self-test', label: 'Self-test model', runtime: 'transformers', files: [] }] });
    const line = answerLine(answerLabeller(p)({ caseId: 'case_11', questionId: '1', modelId: 'self-test', variant: 'none', sample: 0 }));
    expect(line).toBe('case_11 · question 1 · Self-test model');
    expect(line).not.toContain('|');
  });

  it('adds the variant in words and the sample only where the run has several', () => {
    const p = testProvenance({ samples: 3, variants: ['none', 'degrade:noise:2'] });
    const label = answerLabeller(p)({ caseId: 'c2', questionId: 'q2', modelId: 'm', variant: 'degrade:noise:2', sample: 1 });
    expect(label.question).toBe('question 2');
    expect(label.extra).toBe('noise, level 2 of 3 · sample 2 of 3');
    // A model the provenance does not name keeps its id.
    expect(answerLabeller(p)({ caseId: 'c2', questionId: 'q', modelId: 'other', variant: 'none', sample: 0 }).model).toBe('other');
  });

  it('reads every variant in words', () => {
    expect(variantLabel('none')).toBe('original images');
    expect(variantLabel('text-only')).toBe('text only (no images)');
    expect(variantLabel('degrade:jpeg:3')).toBe('JPEG compression, level 3 of 3');
    expect(variantLabel('degrade:unknown:1')).toBe('degrade:unknown:1');
  });
});
