import { describe, expect, it } from 'vitest';
import type { ReferenceAnswer } from '../../../../src/core/bundle/types.ts';
import { decide, JUDGE_CAVEAT, passAtKChain, type ReviewerVerdict } from '../../../../src/core/scoring/equivalence/chain.ts';
import type { JudgeVerdict } from '../../../../src/core/scoring/equivalence/judge.ts';

const ref: ReferenceAnswer = { diagnosis: 'Glioblastoma', aliases: ['GBM, IDH-wildtype'] };

function fakeJudge(answer: (c: string) => boolean | null): { judge: (c: string, r: ReferenceAnswer) => Promise<JudgeVerdict>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    judge: (c) => {
      calls.push(c);
      return Promise.resolve({ equivalent: answer(c), source: 'judge', judgeModelId: 'judge-m', rubricId: 'r', rubricVersion: '1.0.0', raw: '{}', rationale: '', confidence: null });
    },
  };
}

const reviewer = (equivalent: boolean): ReviewerVerdict => ({ equivalent, source: 'reviewer', reviewerId: 'dr-a' });

describe('decide', () => {
  it('lets the rule short-circuit the judge', async () => {
    const j = fakeJudge(() => false);
    const v = await decide('GBM', ref, { judge: j.judge });
    expect(v).toMatchObject({ equivalent: true, source: 'rule', decidedBy: 'rule:exact' });
    expect(j.calls).toHaveLength(0);
    expect(v.trail).toHaveLength(1);
  });

  it('uses the judge only when the rule says no', async () => {
    const j = fakeJudge(() => true);
    const v = await decide('grade 4 astrocytoma, IDH-wildtype', ref, { judge: j.judge });
    expect(v).toMatchObject({ equivalent: true, source: 'judge', decidedBy: 'judge-m' });
    expect(j.calls).toEqual(['grade 4 astrocytoma, IDH-wildtype']);
    expect(v.trail.map((t) => t.source)).toEqual(['rule', 'judge']);
  });

  it('keeps an undecided judge verdict undecided', async () => {
    const v = await decide('something', ref, { judge: fakeJudge(() => null).judge });
    expect(v).toMatchObject({ equivalent: null, source: 'judge' });
  });

  it('falls back to the rule without a judge', async () => {
    expect(await decide('meningioma', ref)).toMatchObject({ equivalent: false, source: 'rule', decidedBy: 'rule:none' });
  });

  it('lets the reviewer override the rule and the judge', async () => {
    const overRule = await decide('glioblastoma', ref, { adjudication: reviewer(false) });
    expect(overRule).toMatchObject({ equivalent: false, source: 'reviewer', decidedBy: 'dr-a' });
    expect(overRule.trail.map((t) => t.source)).toEqual(['rule', 'reviewer']);

    const j = fakeJudge(() => true);
    const judged = await fakeJudge(() => true).judge('high-grade glioma', ref);
    const overJudge = await decide('high-grade glioma', ref, { judge: j.judge, judged, adjudication: reviewer(false) });
    expect(overJudge).toMatchObject({ equivalent: false, source: 'reviewer' });
    expect(overJudge.trail.map((t) => t.source)).toEqual(['rule', 'judge', 'reviewer']);
    expect(j.calls).toHaveLength(0);
  });

  it('labels the local judge as not the papers\' GPT-4o grader', () => {
    expect(JUDGE_CAVEAT).toMatch(/NOT equivalent/);
    expect(JUDGE_CAVEAT).toMatch(/GPT-4o/);
  });
});

describe('passAtKChain', () => {
  const hyps = ['meningioma', 'metastasis', 'high-grade glioma', 'lymphoma', 'abscess', 'glioblastoma'];

  it('stops at the first equivalent hypothesis', async () => {
    const j = fakeJudge((c) => c === 'high-grade glioma');
    const r = await passAtKChain(hyps, ref, 5, { judge: j.judge });
    expect(r).toMatchObject({ pass: true, k: 5, matchedIndex: 2, undecided: false });
    expect(r.verdicts).toHaveLength(3);
    expect(j.calls).toEqual(['meningioma', 'metastasis', 'high-grade glioma']);
  });

  it('evaluates only the top k', async () => {
    const j = fakeJudge(() => false);
    const r = await passAtKChain(hyps, ref, 5, { judge: j.judge });
    expect(r).toMatchObject({ pass: false, matchedIndex: null });
    expect(j.calls).toHaveLength(5);
    expect((await passAtKChain(hyps, ref, 6, { judge: j.judge })).matchedIndex).toBe(5);
  });

  it('matches by rule at pass@1 without calling the judge, and flags undecided cases', async () => {
    const j = fakeJudge(() => null);
    expect(await passAtKChain(['GBM'], ref, 1, { judge: j.judge })).toMatchObject({ pass: true, matchedIndex: 0 });
    expect(j.calls).toHaveLength(0);
    expect(await passAtKChain(['lymphoma'], ref, 1, { judge: j.judge })).toMatchObject({ pass: false, undecided: true });
    expect(await passAtKChain(hyps, ref, 0)).toMatchObject({ pass: false, verdicts: [] });
  });

  it('applies per-hypothesis adjudications', async () => {
    const r = await passAtKChain(['lymphoma', 'glioblastoma'], ref, 2, { adjudications: [reviewer(true)] });
    expect(r).toMatchObject({ pass: true, matchedIndex: 0 });
    expect(r.verdicts[0]?.source).toBe('reviewer');
  });
});
