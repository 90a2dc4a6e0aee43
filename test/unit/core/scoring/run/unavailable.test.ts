/**
 * A figure the answers cannot give says why. What each protocol's scorer
 * compares with (reference-needs.ts) matches the scorer itself, protocol by
 * protocol; and a scored arm lists the metrics no answer gave a value, with
 * the reason in words and its counts (failed calls, answers that did not
 * parse, cases without the reference, a judge that could not decide).
 */
import { describe, expect, it } from 'vitest';
import type { BenchCase, Question, ReferenceAnswer } from '../../../../../src/core/bundle/types.ts';
import { itemKeyOf } from '../../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../../src/core/model/answer.ts';
import { referenceNeed } from '../../../../../src/core/scoring/run/reference-needs.ts';
import { scoreRun } from '../../../../../src/core/scoring/run/score-run.ts';
import { answer, nvbCase, nvbResponse } from '../neurovlm/fixtures.ts';

function kase(id: string, question: Partial<Question>, taskFamily: BenchCase['taskFamily'] = 'open-question'): BenchCase {
  return { id, taskFamily, images: [{ path: 'images/a.png', sha256: 'ab'.repeat(32), mime: 'image/png' }], questions: [{ id: 'q', text: 'Which?', ...question }] };
}

function response(c: BenchCase, parsed: unknown, extra: Partial<ResponseRecord> = {}, modelId = 'm'): ResponseRecord {
  const itemKey = itemKeyOf({ caseId: c.id, questionId: 'q', modelId, variant: 'none', sample: 0 });
  return {
    id: `r/${itemKey}`, runId: 'r', itemKey, caseId: c.id, questionId: 'q', cacheKey: '', modelId, variant: 'none', sample: 0,
    rawText: JSON.stringify(parsed), parsed, parseError: null, latencyMs: 1, finishReason: 'stop', createdAt: 1,
    usage: { promptTokens: 1, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1 }, ...extra,
  };
}

/** Per protocol: a reference its scorer reads, and an answer that parses. */
const PROTOCOLS: readonly { id: string; reference: ReferenceAnswer; parsed: unknown; options?: Question['options'] }[] = [
  { id: 'neurovlm-structured', reference: { labels: { diagnosis_name: 'tumor' } }, parsed: answer({ diagnosis_name: 'tumor' }) },
  { id: 'nmb-differential', reference: { diagnosis: 'Glioma' }, parsed: { hypotheses: [{ rank: 1, diagnosis: 'Glioma', confidence: 0.8, evidence: null }] } },
  { id: 'structured-review', reference: { diagnosis: 'Glioma' }, parsed: { hypotheses: [{ rank: 1, diagnosis: 'Glioma', confidence: 0.8, evidence: null }] } },
  { id: 'nmb-multi-round', reference: { diagnosis: 'Glioma' }, parsed: { hypotheses: [{ rank: 1, diagnosis: 'Glioma', confidence: 0.8, evidence: null }] } },
  { id: 'nmb-lesion', reference: { lesion: { type: 'infarct', laterality: 'left' } }, parsed: { type: 'infarct', location: 'MCA', laterality: 'left', sequence: 'DWI' } },
  { id: 'mcq', reference: { answer: 'A' }, parsed: { choice: 'A', rule: 'exact' }, options: [{ key: 'A', text: 'Glioma' }, { key: 'B', text: 'Abscess' }] },
  { id: 'nmb-rationale', reference: { rationale: 'A ring-enhancing mass.' }, parsed: { text: 'A ring-enhancing mass.' } },
  { id: 'open-question', reference: { diagnosis: 'Glioma' }, parsed: { text: 'Glioma' } },
];

describe('what each protocol scores against', () => {
  for (const p of PROTOCOLS) {
    it(`${p.id}: the scorer gives its headline metric exactly when the reference has ${referenceNeed(p.id)!.what}`, async () => {
      const need = referenceNeed(p.id)!;
      const withIt = kase('with', { reference: p.reference, ...(p.options ? { options: p.options } : {}) });
      const without = kase('without', { ...(p.options ? { options: p.options } : {}) });
      expect(need.has(withIt.questions[0])).toBe(true);
      expect(need.has(without.questions[0])).toBe(false);
      const { items, summary } = await scoreRun({ protocolId: p.id, cases: [withIt, without], responses: [response(withIt, p.parsed), response(without, p.parsed)] }, { resamples: 10 });
      const scored = items.find((i) => i.caseId === 'with')!;
      const unscored = items.find((i) => i.caseId === 'without')!;
      expect(typeof scored.metrics[scored.primary!]?.value).toBe('number');
      expect(unscored.primary === null || unscored.metrics[unscored.primary] === undefined).toBe(true);
      // One of the two cases has the reference, so the arm has its figure.
      expect(summary.arms[0]!.unavailable).toBeUndefined();
    });
  }

  it('a class label that means "unknown" is no class, as the scorer reads it', () => {
    expect(referenceNeed('neurovlm-structured')!.has({ id: 'q', text: '', reference: { labels: { diagnosis_name: 'n/a' } } })).toBe(false);
    expect(referenceNeed('no-such-protocol')).toBeUndefined();
  });
});

describe('metrics no answer gave a value', () => {
  // Five own cases imported with the class mapped as an answer: no class label anywhere.
  const unlabelled = ['p1', 'p2', 'p3', 'p4', 'p5'].map((id) => ({ ...nvbCase(id, {}), questions: [{ id: 'q1', text: 'What is the diagnosis?', reference: { answer: 'Tumour' } }] }));
  const selfTest = unlabelled.map((c, i) => nvbResponse('r', i === 0 ? { caseId: c.id, modelId: 'self-test', parsed: answer({ diagnosis_name: 'tumor' }) } : { caseId: c.id, modelId: 'self-test', parseError: 'no JSON object' }, i));
  const demo = unlabelled.map((c, i) => nvbResponse('r', { caseId: c.id, modelId: 'demo-trained', parsed: answer({ diagnosis_name: 'tumor' }) }, 10 + i));

  it('name the metric and why: no reference class, and how many answers did not parse', async () => {
    const { summary } = await scoreRun({ protocolId: 'neurovlm-structured', cases: unlabelled, responses: [...selfTest, ...demo] }, { resamples: 10 });
    const byModel = Object.fromEntries(summary.arms.map((a) => [a.modelId, a]));
    expect(byModel['self-test']!.metrics.map((m) => m.metric)).toEqual(['json_valid']);
    expect(byModel['self-test']!.unavailable).toEqual([
      {
        metric: 'neurovlm.diagnosis_name', label: 'Class (diagnosis_name)', answers: 5,
        reason: 'no case has a reference class (diagnosis_name) to score against; 4 of the 5 answers did not parse. When importing a CSV or JSONL, map the column that holds the class as "Class label".',
      },
    ]);
    expect(byModel['demo-trained']!.unavailable?.[0]?.reason).toBe('no case has a reference class (diagnosis_name) to score against. When importing a CSV or JSONL, map the column that holds the class as "Class label".');
  });

  it('are not listed once the class is there, even when answers do not parse (they count as wrong)', async () => {
    const labelled = unlabelled.map((c) => ({ ...c, questions: [{ id: 'q1', text: 'What is the diagnosis?', reference: { labels: { diagnosis_name: 'tumor' } } }] }));
    const { summary } = await scoreRun({ protocolId: 'neurovlm-structured', cases: labelled, responses: selfTest }, { resamples: 10 });
    const arm = summary.arms[0]!;
    expect(arm.unavailable).toBeUndefined();
    const acc = arm.metrics.find((m) => m.metric === 'neurovlm.diagnosis_name')!;
    expect([acc.n, acc.mean]).toEqual([5, 0.2]);
    expect(arm.wrong).toBe(4);
  });

  it('say when every call failed, or some failed and the rest had no reference', async () => {
    const failed = unlabelled.map((c, i) => nvbResponse('r', { caseId: c.id, callError: 'engine stopped' }, i));
    const all = (await scoreRun({ protocolId: 'neurovlm-structured', cases: unlabelled, responses: failed }, { resamples: 10 })).summary.arms[0]!;
    expect(all.unavailable?.map((u) => [u.metric, u.reason])).toEqual([['neurovlm.diagnosis_name', 'every call failed (5 of 5), so there is no answer to score.']]);
    const some = (await scoreRun({ protocolId: 'neurovlm-structured', cases: unlabelled, responses: [...failed.slice(0, 2), ...demo.slice(2).map((r) => ({ ...r, modelId: 'model-a', id: `x${r.id}` }))] }, { resamples: 10 })).summary.arms[0]!;
    expect(some.unavailable?.[0]?.reason).toMatch(/^2 of the 5 calls failed; no answered case has a reference class \(diagnosis_name\) to score against\./);
  });

  it('name a multiple-choice question without an answer key, and a rubric without a judge', async () => {
    const mcq = kase('c', { options: [{ key: 'A', text: 'x' }, { key: 'B', text: 'y' }] });
    const m = (await scoreRun({ protocolId: 'auto', cases: [mcq], responses: [response(mcq, { choice: 'A', rule: 'exact' })] }, { resamples: 10 })).summary.arms[0]!;
    expect(m.unavailable?.map((u) => [u.label, u.reason])).toEqual([
      ['Multiple-choice accuracy', 'no case has an answer key (the correct option) to score against. When importing a CSV or JSONL, map the correct option key as "Answer" and the options as "Option columns".'],
    ]);
    const rubric = kase('r', { reference: { rubric: [{ id: 'r1', text: 'Names the lesion', points: 1 }] } });
    const r = (await scoreRun({ protocolId: 'rubric', cases: [rubric], responses: [response(rubric, { text: 'A lesion.' })] }, { resamples: 10 })).summary.arms[0]!;
    expect(r.unavailable?.map((u) => [u.metric, u.reason])).toEqual([['rubric', 'the answer could not be marked: rubric items need a local judge, or every item marked in review.']]);
  });

  it("name a numeric figure by the rule that would have scored it: MedCalc-Bench's with a calculator id, NeuroEval's without", async () => {
    const failed = (c: BenchCase) => response(c, null, { error: 'engine stopped', rawText: '' });
    const theirs = kase('t', { reference: { numeric: { value: '41.77', lower: 39.68, upper: 43.86, calculatorId: 2 } } });
    const own = kase('o', { reference: { numeric: { value: '12.0' } } });
    const arm = async (c: BenchCase) => (await scoreRun({ protocolId: 'auto', cases: [c], responses: [failed(c)] }, { resamples: 10 })).summary.arms[0]!;
    expect((await arm(theirs)).unavailable?.map((u) => u.metric)).toEqual(['numeric.correct']);
    expect((await arm(own)).unavailable?.map((u) => [u.metric, u.reason])).toEqual([['numeric.match', 'every call failed (1 of 1), so there is no answer to score.']]);
  });
});
