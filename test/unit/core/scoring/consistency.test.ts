import { describe, expect, it } from 'vitest';
import { mirrorImage, transformsPixels, variantImage } from '../../../../src/core/imaging/variant-image.ts';
import { decodePng } from '../../../../src/core/imaging/degrade/pixels.ts';
import { checkVariants, variantLabel } from '../../../../src/core/runner/variants.ts';
import { mirrorConsistency, paraphraseConsistency, runConsistency } from '../../../../src/core/scoring/run/consistency.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';

function answer(modelId: string, caseId: string, variant: string, parsed: unknown, parseError: string | null = null): ResponseRecord {
  return {
    id: `${caseId}|${modelId}|${variant}`, runId: 'r', itemKey: `${caseId}|${modelId}|${variant}`, caseId, questionId: 'q1', cacheKey: 'k', modelId, variant, sample: 0,
    rawText: JSON.stringify(parsed), parsed, parseError, usage: { promptTokens: null, completionTokens: null, ttftMs: null, prefillTps: null, decodeTps: null }, latencyMs: 1, finishReason: 'stop', createdAt: 1,
  };
}

describe('the mirror probe', () => {
  it('sends the image flipped left to right, and is a variant in words', () => {
    const img = { width: 3, height: 2, channels: 1 as const, data: new Uint8Array([1, 2, 3, 4, 5, 6]) };
    expect([...mirrorImage(img).data]).toEqual([3, 2, 1, 6, 5, 4]);
    const rgb = { width: 2, height: 1, channels: 3 as const, data: new Uint8Array([1, 2, 3, 4, 5, 6]) };
    expect([...mirrorImage(rgb).data]).toEqual([4, 5, 6, 1, 2, 3]);
    const png = variantImage(img, 'probe:mirror', 'seed');
    expect(png.mime).toBe('image/png');
    expect([...decodePng(png.bytes).data]).toEqual([3, 2, 1, 6, 5, 4]);
    expect(transformsPixels('probe:mirror')).toBe(true);
    expect(transformsPixels('text-only')).toBe(false);
    expect(checkVariants(['none', 'probe:mirror'])).toEqual(['none', 'probe:mirror']);
    expect(variantLabel('probe:mirror')).toBe('mirrored left–right (consistency probe)');
  });

  it('counts an answer pair consistent when the diagnosis stays and the side flips', () => {
    const responses = [
      // Lesion answers: flips (consistent), keeps its side (not), bilateral stays (consistent).
      answer('a', 'c1', 'none', { type: 'glioma', location: 'frontal', laterality: 'left', sequence: null }),
      answer('a', 'c1', 'probe:mirror', { type: 'glioma', location: 'frontal', laterality: 'right', sequence: null }),
      answer('a', 'c2', 'none', { laterality: 'right' }),
      answer('a', 'c2', 'probe:mirror', { laterality: 'right' }),
      answer('a', 'c3', 'none', { laterality: 'bilateral' }),
      answer('a', 'c3', 'probe:mirror', { laterality: 'bilateral' }),
      // NeuroVLM answers: the class after normalisation ("Tumour" is "tumor").
      answer('b', 'c1', 'none', { diagnosis_name: 'tumor' }),
      answer('b', 'c1', 'probe:mirror', { diagnosis_name: 'Tumor ' }),
      answer('b', 'c2', 'none', { diagnosis_name: 'stroke' }),
      answer('b', 'c2', 'probe:mirror', { diagnosis_name: 'normal' }),
      // No pair: the mirrored answer did not parse.
      answer('b', 'c3', 'none', { diagnosis_name: 'normal' }),
      answer('b', 'c3', 'probe:mirror', null, 'no JSON object found'),
    ];
    const [a, b] = mirrorConsistency(responses);
    expect(a).toEqual({ modelId: 'a', probe: 'mirror', probed: 3, probedUnreadable: 0, pairs: 3, diagnosisPairs: 0, sameDiagnosis: 0, lateralityPairs: 2, flippedLaterality: 1, consistent: 2 });
    expect(b).toEqual({ modelId: 'b', probe: 'mirror', probed: 3, probedUnreadable: 1, pairs: 2, diagnosisPairs: 2, sameDiagnosis: 1, lateralityPairs: 0, flippedLaterality: 0, consistent: 1 });
    expect(mirrorConsistency(responses.filter((r) => r.variant === 'none'))).toEqual([]);
  });
});

describe('the paraphrase probe', () => {
  it('is a variant in words that sends the stored images', () => {
    expect(checkVariants(['none', 'probe:paraphrase'])).toEqual(['none', 'probe:paraphrase']);
    expect(variantLabel('probe:paraphrase')).toBe('paraphrased prompt (consistency probe)');
    expect(transformsPixels('probe:paraphrase')).toBe(false);
  });

  it('counts an answer pair consistent when the reworded prompt gets the same diagnosis, whatever the side', () => {
    const responses = [
      // NeuroVLM: same class after normalisation (consistent), another class (not).
      answer('a', 'c1', 'none', { diagnosis_name: 'stroke' }),
      answer('a', 'c1', 'probe:paraphrase', { diagnosis_name: ' Stroke' }),
      answer('a', 'c2', 'none', { diagnosis_name: 'tumor' }),
      answer('a', 'c2', 'probe:paraphrase', { diagnosis_name: 'normal' }),
      // A side that changes is not what this probe asks: only the diagnosis counts.
      answer('a', 'c3', 'none', { diagnosis: 'Glioma', laterality: 'left' }),
      answer('a', 'c3', 'probe:paraphrase', { diagnosis: 'glioma', laterality: 'right' }),
      // First-ranked hypotheses differ; MCQ letters agree.
      answer('b', 'c1', 'none', { hypotheses: [{ rank: 1, diagnosis: 'Multiple sclerosis' }, { rank: 2, diagnosis: 'ADEM' }] }),
      answer('b', 'c1', 'probe:paraphrase', { hypotheses: [{ rank: 1, diagnosis: 'ADEM' }] }),
      answer('b', 'c2', 'none', { choice: 'C' }),
      answer('b', 'c2', 'probe:paraphrase', { choice: 'C' }),
      // No pair: the original did not parse; the mirror's answers belong to the other probe.
      answer('b', 'c3', 'none', null, 'no JSON object found'),
      answer('b', 'c3', 'probe:paraphrase', { choice: 'A' }),
      answer('b', 'c2', 'probe:mirror', { choice: 'D' }),
    ];
    const [a, b] = paraphraseConsistency(responses);
    expect(a).toEqual({ modelId: 'a', probe: 'paraphrase', probed: 3, probedUnreadable: 0, pairs: 3, diagnosisPairs: 3, sameDiagnosis: 2, lateralityPairs: 0, flippedLaterality: 0, consistent: 2 });
    expect(b).toEqual({ modelId: 'b', probe: 'paraphrase', probed: 3, probedUnreadable: 0, pairs: 2, diagnosisPairs: 2, sameDiagnosis: 1, lateralityPairs: 0, flippedLaterality: 0, consistent: 1 });
    // The run's summary holds both probes' rows, the mirror's first.
    expect(runConsistency(responses).map((r) => [r.probe, r.modelId, r.pairs])).toEqual([['mirror', 'b', 1], ['paraphrase', 'a', 3], ['paraphrase', 'b', 2]]);
    expect(paraphraseConsistency(responses.filter((r) => r.variant !== 'probe:paraphrase'))).toEqual([]);
    // A model that loses the answer format under the reworded prompt has no pairs, and a row that says so.
    const lost = [answer('c', 'c1', 'none', { diagnosis_name: 'tumor' }), answer('c', 'c1', 'probe:paraphrase', null, 'no JSON object found')];
    expect(paraphraseConsistency(lost)).toEqual([{ modelId: 'c', probe: 'paraphrase', probed: 1, probedUnreadable: 1, pairs: 0, diagnosisPairs: 0, sameDiagnosis: 0, lateralityPairs: 0, flippedLaterality: 0, consistent: 0 }]);
  });
});
