/**
 * The scorer registry: every built-in protocol has exactly one scorer, and a
 * scorer reads its protocol's answer typed before it scores (the structured
 * answer's fields, the chosen option, the ranked names), so what it scores is
 * what the protocol parsed.
 */
import { describe, expect, it } from 'vitest';
import { PROTOCOL_IDS } from '../../../../../../src/core/protocols/registry.ts';
import { SCORED_PROTOCOLS, scorerFor } from '../../../../../../src/core/scoring/run/scorers/index.ts';
import { Item, type ItemContext } from '../../../../../../src/core/scoring/run/scorers/item.ts';

function context(protocolId: string, question: ItemContext['question'], rawText = ''): ItemContext {
  const response = { id: 'r1', itemKey: 'c1#q1|m|none|s0', caseId: 'c1', questionId: 'q1', modelId: 'm', variant: 'none', sample: 0, rawText, parsed: null, parseError: null, latencyMs: 1, error: null };
  return { response: response as unknown as ItemContext['response'], caseId: 'c1', questionId: 'q1', kase: undefined, question, protocolId, proposeTaxonomy: false };
}

describe('protocol scorers', () => {
  it('every built-in protocol has one scorer, and no scorer claims a protocol that does not exist', () => {
    for (const id of PROTOCOL_IDS) expect(scorerFor(id), id).toBeDefined();
    expect([...SCORED_PROTOCOLS].sort()).toEqual([...PROTOCOL_IDS].sort());
    expect(scorerFor('no-such-protocol')).toBeUndefined();
  });

  it('multiple choice scores the option the protocol parsed, and counts an answer with none as invalid', async () => {
    const question = { id: 'q1', text: 'Which?', options: [{ key: 'A', text: 'x' }, { key: 'B', text: 'y' }], reference: { answer: 'B' } } as ItemContext['question'];
    const right = new Item();
    await scorerFor('mcq')!.run(right, context('mcq', question), { choice: 'b', rule: 'letter' });
    expect(right.metrics['mcq.correct']).toEqual({ value: 1, source: 'rule', sourceId: 'rule:letter' });
    const none = new Item();
    await scorerFor('mcq')!.run(none, context('mcq', question), null);
    expect(none.metrics['mcq.correct']?.value).toBe(0);
    expect(none.metrics['mcq.invalid']?.value).toBe(1);
    expect(scorerFor('mcq')!.countsParseErrors).toBe(true);
  });

  it('the ranked differential is read by rank, whatever order the model listed it in', async () => {
    const question = { id: 'q1', text: 'Differential?', reference: { diagnosis: 'Multiple sclerosis' } } as ItemContext['question'];
    const it1 = new Item();
    const parsed = { hypotheses: [{ rank: 2, diagnosis: 'Multiple sclerosis', confidence: 0.3 }, { rank: 1, diagnosis: 'Glioma', confidence: 0.6 }] };
    await scorerFor('nmb-differential')!.run(it1, context('nmb-differential', question), parsed);
    expect(it1.metrics['pass@1']?.value).toBe(0);
    expect(it1.metrics['pass@5']?.value).toBe(1);
    expect(it1.confidence).toBe(0.6);
    expect(it1.answerText).toBe('1. Glioma; 2. Multiple sclerosis');
  });

  it('gives the reference texts BERTScore weighs: one per scored pair, none for a protocol without similarity', () => {
    const question = { id: 'q1', text: '', reference: { diagnosis: 'MS', rationale: 'Periventricular lesions.' }, followUps: [{ id: 'f1', text: 'And now?', reference: { rationale: 'Enhancing.' } }] } as ItemContext['question'];
    expect(scorerFor('nmb-rationale')!.references(question, {})).toEqual(['Periventricular lesions.']);
    expect(scorerFor('nmb-multi-round')!.references(question, { turns: [{}, {}] })).toEqual(['Periventricular lesions.', 'Enhancing.']);
    expect(scorerFor('mcq')!.references(question, {})).toEqual([]);
  });
});
