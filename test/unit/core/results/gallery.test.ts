/**
 * The failure gallery and the join behind the safety view, on hand-made
 * score rows, answers and cases: what class an answer names (parsed,
 * abstained, unparsable), the worst confident mistakes first and at most four
 * per group, and whose error classes are shown.
 */
import { describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import type { ReviewRecord } from '../../../../src/core/model/review.ts';
import type { ScoreRecord } from '../../../../src/core/scoring/run/records.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import { failureGallery, RAW_TEXT_CHARS } from '../../../../src/core/results/gallery.ts';
import { joinAnswers } from '../../../../src/core/results/safety-input.ts';

const kase = (id: string, cls: string, patient?: string): BenchCase => ({
  id, taskFamily: 'classification', diseaseGroup: cls, images: [{ path: 'x.png', sha256: `img-${id}` }],
  questions: [{ id: 'q', text: 'Classify.', reference: { labels: { diagnosis_name: cls, modality: 'MRI' } } }],
  ...(patient ? { meta: { 'dicom.patientKey': patient } } : {}),
});

function row(id: string, caseId: string, correct: number | null, confidence: number | null, taxonomy: string[] = []): ScoreRecord {
  return {
    id: `set|${id}`, scoreSetId: 'set', runId: 'run', responseId: id, itemKey: id, caseId, questionId: 'q', modelId: 'm', variant: 'none', sample: 0,
    protocolId: 'neurovlm-structured', primary: 'neurovlm.diagnosis_name',
    metrics: correct === null ? {} : { 'neurovlm.diagnosis_name': { value: correct, source: 'rule', sourceId: 'rule:neurovlm-normalise' } },
    confidence, verdicts: [], notes: [],
    taxonomy: taxonomy.length ? { classes: taxonomy, rationale: '', sourceId: 'judge-x', taxonomyVersion: '1' } : null,
  };
}

function response(id: string, parsed: unknown, rawText = JSON.stringify(parsed), extra: Partial<ResponseRecord> = {}): ResponseRecord {
  return { id, runId: 'run', itemKey: id, caseId: '', questionId: 'q', cacheKey: '', modelId: 'm', variant: 'none', sample: 0, rawText, parsed, parseError: parsed === null ? 'no JSON object' : null, usage: {} as ResponseRecord['usage'], latencyMs: 1, finishReason: 'stop', createdAt: 0, ...extra };
}

describe('joining answers', () => {
  const cases = new Map([kase('n1', 'normal'), kase('n2', 'normal'), kase('n3', 'normal'), kase('t1', 'tumor'), kase('f1', 'tumor')].map((c) => [c.id, c]));
  const joined = joinAnswers({
    items: [row('a', 'n1', 0, 0.9), row('b', 'n2', 1, 0.8), row('c', 'n3', 0, null), row('d', 't1', 0, 0.7), row('e', 'f1', null, null)],
    responses: new Map([
      ['a', response('a', { diagnosis_name: 'Multiple Sclerosis', icd10_code: 'G35' })],
      ['b', response('b', { diagnosis_name: 'normal', icd10_code: 'Z00' })],
      ['c', response('c', null, 'I cannot tell')],
      ['d', response('d', { diagnosis_name: null })],
      ['e', response('e', null, '', { error: 'timeout' })],
    ]),
    cases, reviews: [],
  });

  it('reads the class each answer names against the reference class', () => {
    expect(joined.map((j) => [j.row.responseId, j.reference, j.answered])).toEqual([
      ['a', 'normal', 'abnormal'], ['b', 'normal', 'normal'], ['c', 'normal', 'unparsable'], ['d', 'abnormal', 'abstained'],
    ]);
  });

  it('checks the safety flags on parsed answers only', () => {
    expect(joined[1]!.flags).toEqual({ missingField: true, inconsistentSubtype: false, icdWithNormal: true });
    expect(joined[2]!.flags).toBeNull();
  });

  it('clusters by patient only when cases share one', () => {
    expect(new Set(joined.map((j) => j.cluster)).size).toBe(4);
    const shared = new Map([kase('x1', 'normal', 'P'), kase('x2', 'normal', 'P')].map((c) => [c.id, c]));
    const j = joinAnswers({ items: [row('x', 'x1', 1, 0.5), row('y', 'x2', 1, 0.5)], responses: new Map(), cases: shared, reviews: [] });
    expect(j[0]!.cluster).toBe(j[1]!.cluster);
  });
});

describe('failure gallery', () => {
  const confidences = [0.2, 0.9, null, 0.6, 0.95, 0.7];
  const cases = new Map([...confidences.map((_, i) => kase(`w${i}`, 'stroke')), kase('r', 'stroke'), kase('n', 'normal')].map((c) => [c.id, c]));
  const long = 'x'.repeat(RAW_TEXT_CHARS + 50);
  const items = [...confidences.map((c, i) => row(`w${i}`, `w${i}`, 0, c, i === 1 ? ['missed_lesion'] : [])), row('r', 'r', 1, 0.99), row('n', 'n', 1, 0.99)];
  const responses = new Map([...confidences.map((_, i) => [`w${i}`, i === 4 ? response('w4', null, long) : response(`w${i}`, { diagnosis_name: 'normal', diagnosis_confidence: confidences[i] })] as const), ['r', response('r', { diagnosis_name: 'stroke' })]]);
  const review = { id: 'rv', responseId: 'w5', runId: 'run', verdict: 'incorrect', errorClasses: ['hallucinated_finding'], rationaleRating: null, reason: '', reviewerId: 'dr', createdAt: 0, previous: [] } as ReviewRecord;
  const gallery = failureGallery(joinAnswers({ items, responses, cases, reviews: [review] }));

  it('shows the four most confident mistakes of each group, worst first, and no right answer', () => {
    expect(gallery.map((g) => g.group)).toEqual(['stroke']);
    const arm = gallery[0]!.arms[0]!;
    expect(arm.wrong).toBe(6);
    expect(arm.cases.map((c) => c.confidence)).toEqual([0.95, 0.9, 0.7, 0.6]);
    expect(arm.cases.map((c) => c.image)).toEqual(['img-w4', 'img-w1', 'img-w5', 'img-w3']);
  });

  it('carries the answer, the shortened raw text and the reference', () => {
    const [unparsed, parsed] = gallery[0]!.arms[0]!.cases;
    expect(unparsed!.fields).toEqual([]);
    expect(unparsed!.truncated).toBe(true);
    expect(unparsed!.rawText.length).toBe(RAW_TEXT_CHARS);
    expect(parsed!.fields).toContainEqual(['diagnosis_name', 'normal']);
    expect(parsed!.reference).toBe('diagnosis_name: stroke; modality: MRI');
  });

  it('takes error classes from reviews, else the judge, saying which', () => {
    const byCase = new Map(gallery[0]!.arms[0]!.cases.map((c) => [c.caseId, c]));
    expect(byCase.get('w1')).toMatchObject({ errorClasses: ['missed_lesion'], errorSource: 'judge' });
    expect(byCase.get('w5')).toMatchObject({ errorClasses: ['hallucinated_finding'], errorSource: 'review' });
    expect(byCase.get('w3')).toMatchObject({ errorClasses: [], errorSource: null });
  });
});
