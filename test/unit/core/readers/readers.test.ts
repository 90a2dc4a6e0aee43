import { describe, expect, it } from 'vitest';
import { readerConsensus, readerStudy, CONSENSUS_ID, type ReaderInput } from '../../../../src/core/readers/compare.ts';
import { answerKey, readerForm, readerResponse } from '../../../../src/core/readers/answer.ts';
import { readerOrder, readerOf, readerRunRecord } from '../../../../src/core/readers/study.ts';
import { mcqProtocol } from '../../../../src/core/protocols/mcq/protocol.ts';
import { neuroVlmProtocol } from '../../../../src/core/protocols/neurovlm/protocol.ts';
import { scoreRun } from '../../../../src/core/scoring/run/score-run.ts';
import { mcnemar } from '../../../../src/core/scoring/stats/mcnemar.ts';
import type { ScoredItem } from '../../../../src/core/scoring/run/records.ts';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';

const M = 'mcq.correct';
const item = (q: number, modelId: string, value: number | null): ScoredItem => ({
  caseId: `c${q}`, questionId: 'q1', sample: 0, modelId, variant: 'none', protocolId: 'mcq', metrics: { [M]: { value } },
});
function reader(id: string, answers: readonly [string, number][]): ReaderInput {
  return {
    id, label: `Reader: ${id}`,
    items: answers.map(([, v], q) => item(q, `reader:${id}`, v)),
    answers: new Map(answers.map(([a], q) => [`c${q}#q1`, a])),
  };
}

describe('reader consensus', () => {
  it('takes the answer most readers gave, scored as they were; a tie is no consensus', () => {
    const a = reader('a', [['A', 1], ['B', 0], ['C', 1]]);
    const b = reader('b', [['A', 1], ['C', 1], ['D', 0]]);
    const c = reader('c', [['B', 0], ['C', 1], ['E', 0]]);
    const con = readerConsensus([a, b, c], M);
    // q0: A twice (right); q1: C twice (right); q2: C, D, E once each: a tie.
    expect(con.questions).toBe(2);
    expect(con.ties).toBe(1);
    expect(con.items.map((i) => [i.caseId, i.metrics[M]!.value])).toEqual([['c0', 1], ['c1', 1]]);
  });

  it('needs two readers on a question', () => {
    const a = reader('a', [['A', 1]]);
    expect(readerConsensus([a], M).questions).toBe(0);
  });
});

describe('readers vs models', () => {
  it('pairs each reader and the consensus with each model on the questions both answered only', () => {
    const a = reader('a', [['A', 1], ['A', 1], ['A', 1], ['A', 1], ['A', 0]]);
    const b = reader('b', [['A', 1], ['B', 0], ['A', 1], ['B', 0], ['A', 0]]);
    // The model answered questions 0–3 only (question 4 has no value: not paired), and question 9 no reader saw.
    const model = { id: 'run|m', label: 'Model M', items: [item(0, 'm', 0), item(1, 'm', 0), item(2, 'm', 1), item(3, 'm', 0), item(4, 'm', null), item(9, 'm', 1)] };
    const r = readerStudy([a, b], [model], M);
    const ta = r.tests.find((t) => t.reader === a.id)!;
    expect(ta.n).toBe(4);
    expect(ta.readerMean).toBe(1);
    expect(ta.modelMean).toBe(0.25);
    expect(ta.difference).toBeCloseTo(0.75);
    expect(ta.readerOnly).toBe(3);
    expect(ta.modelOnly).toBe(0);
    expect(ta.method).toBe('mcnemar-exact');
    expect(ta.pValue).toBeCloseTo(mcnemar([true, true, true, true], [false, false, true, false]).pValue, 12);
    expect(ta.pValue).toBeCloseTo(0.25, 12);
    expect(ta.ci.lower).toBeLessThanOrEqual(ta.difference);
    expect(ta.ci.upper).toBeGreaterThanOrEqual(ta.difference);
    // Consensus: q0, q2, q4 agree (A); q1 and q3 tie. Paired with the model: q0 and q2 (q4 has no model value).
    const tc = r.tests.find((t) => t.reader === CONSENSUS_ID)!;
    expect(r.consensus.ties).toBe(2);
    expect(tc.n).toBe(2);
    expect([tc.readerMean, tc.modelMean]).toEqual([1, 0.5]);
    // Agreement: same answer on 3 of 5.
    expect(r.agreement).toHaveLength(1);
    expect(r.agreement[0]!.observed).toBeCloseTo(3 / 5);
    expect(r.agreement[0]!.n).toBe(5);
  });
});

describe('reader runs', () => {
  const benchmark = { id: 'b', name: 'B', version: '1', contentHash: 'h' };
  it('names the reader and shuffles per reader, the same on every visit', () => {
    const run = readerRunRecord({ benchmark, reader: { pseudonym: ' AB ', role: 'neurologist' }, sourceRun: null, protocol: { id: 'auto', version: '1' }, items: [{ caseId: 'c1', questionId: 'q' }], app: { version: 't', commit: 't' }, now: 1 });
    expect(readerOf(run)).toEqual({ pseudonym: 'AB', role: 'neurologist' });
    expect(run.config).toBeNull();
    const items = Array.from({ length: 30 }, (_, i) => ({ caseId: `c${i}`, questionId: 'q' }));
    expect(readerOrder(items, 'AB')).toEqual(readerOrder(items, 'AB'));
    expect(readerOrder(items, 'AB')).not.toEqual(readerOrder(items, 'CD'));
    expect(new Set(readerOrder(items, 'AB').map((i) => i.caseId)).size).toBe(30);
  });

  it("are scored by the models' scorer: a reader's class and letter are right or wrong as a model's would be", async () => {
    const cls: BenchCase = { id: 'c1', taskFamily: 'classification', images: [{ path: 'x.png', sha256: 'x' }], questions: [{ id: 'q1', text: 'Diagnosis?', reference: { labels: { diagnosis_name: 'stroke' } } }] } as unknown as BenchCase;
    const mcq: BenchCase = { id: 'c2', taskFamily: 'multiple-choice', images: [], questions: [{ id: 'q1', text: 'Which?', options: [{ key: 'A', text: 'x' }, { key: 'B', text: 'y' }], reference: { answer: 'B' } }] } as unknown as BenchCase;
    const r1 = readerResponse({ runId: 'r', modelId: 'reader:AB', caseId: 'c1', question: cls.questions[0]!, protocol: neuroVlmProtocol, form: readerForm('neurovlm-structured', cls.questions[0]!), answers: [{ class: 'stroke', subtype: 'ischemic', confidence: '0.9' }], latencyMs: [5], now: 1 });
    const r2 = readerResponse({ runId: 'r', modelId: 'reader:AB', caseId: 'c2', question: mcq.questions[0]!, protocol: mcqProtocol, form: readerForm('mcq', mcq.questions[0]!), answers: [{ choice: 'A' }], latencyMs: [5], now: 1 });
    expect(r1.parseError).toBeNull();
    const scored = await scoreRun({ protocolId: 'auto', responses: [r1, r2], cases: [cls, mcq] });
    const byCase = new Map(scored.items.map((i) => [i.caseId, i]));
    expect(byCase.get('c1')!.metrics['neurovlm.diagnosis_name']!.value).toBe(1);
    expect(byCase.get('c2')!.metrics['mcq.correct']!.value).toBe(0);
    expect(answerKey({ key: 'choice' }, { choice: ' a ' })).toBe('A');
  });
});
