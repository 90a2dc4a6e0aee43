import { describe, expect, it } from 'vitest';
import type { BenchCase, Question } from '../../../../src/core/bundle/types.ts';
import { getProtocol } from '../../../../src/core/protocols/registry.ts';
import { answerKey, forPeople, imagesForTurn, keyField, readerForm, readerResponse, storedAnswer, type ReaderAnswer } from '../../../../src/core/readers/answer.ts';
import { askedOnlyFor, readerCaseLabels, readerRunRecord } from '../../../../src/core/readers/study.ts';
import { scoreRun } from '../../../../src/core/scoring/run/score-run.ts';

const kase = (id: string, taskFamily: string, q: Partial<Question>, images = 1): BenchCase =>
  ({ id, taskFamily, images: Array.from({ length: images }, (_, i) => ({ path: `${id}-${i}.png`, sha256: `${id}${i}` })), questions: [{ id: 'q1', text: '', ...q }] }) as unknown as BenchCase;

const CLS = kase('breadth-stroke-01', 'classification', {
  text: 'Analyse this single brain image. Answer with one JSON object with the fields modality (CT or MRI), plane and diagnosis_name.',
  reference: { labels: { diagnosis_name: 'stroke', diagnosis_detailed: 'ischemic', modality: 'MRI', plane: 'axial' } },
});
const MCQ = kase('mcq-1', 'multiple-choice', { text: 'Which MRI sequence is shown? Answer with the letter of one option.', options: [{ key: 'A', text: 'T1' }, { key: 'B', text: 'FLAIR' }], reference: { answer: 'B' } });
const DDX = kase('direct-stroke-01', 'differential-diagnosis', { text: 'Give a ranked differential diagnosis.', reference: { diagnosis: 'acute ischemic stroke', aliases: ['cerebral infarction'] } });
const LESION = kase('lesion-ms-01', 'lesion-recognition', {
  text: 'Identify the main lesion.',
  reference: { diagnosis: 'multiple sclerosis', lesion: { type: 'demyelinating plaques', location: 'periventricular white matter', laterality: 'bilateral', sequence: 'FLAIR' } },
});
const DIALOGUE = kase('multi-round-stroke-01', 'multi-turn', {
  text: 'Look at the CT. What is the most likely diagnosis?',
  reference: { diagnosis: 'acute ischemic stroke' },
  followUps: [{ id: 'f1', text: 'An MRI was obtained; image 2 is the DWI. What does it show?', images: [1] }, { id: 'f2', text: 'And now?', images: [2] }],
}, 3);

function answer(c: BenchCase, protocolId: string, answers: ReaderAnswer[]) {
  const q = c.questions[0]!;
  return readerResponse({ runId: 'reader-run', modelId: 'reader:AB', caseId: c.id, question: q, protocol: getProtocol(protocolId)!, form: readerForm(protocolId, q), answers, latencyMs: answers.map(() => 1000), now: 1 });
}

describe('the question a reader reads', () => {
  it('never shows a model output instruction', () => {
    expect(readerForm('neurovlm-structured', CLS.questions[0]!).question).toBe('What does this image show? Choose the diagnosis, and the subtype if you can tell it.');
    expect(readerForm('mcq', MCQ.questions[0]!).question).toBe('Which MRI sequence is shown?');
    expect(forPeople('Identify the lesion. Reply in JSON only: {"type": "..."}')).toBe('Identify the lesion.');
    expect(readerForm('nmb-differential', DDX.questions[0]!).question).toBe('Give a ranked differential diagnosis.');
    // A question that is nothing but instructions gets the protocol's own question for people.
    expect(readerForm('nmb-lesion', { text: 'Answer with one JSON object only.' }).question).toMatch(/^Identify the main lesion/);
  });

  it('asks each protocol for its own fields', () => {
    expect(readerForm('neurovlm-structured', CLS.questions[0]!).fields).toEqual(['class', 'subtype', 'confidence']);
    expect(readerForm('nmb-lesion', LESION.questions[0]!).fields).toEqual(['lesionType', 'location', 'laterality', 'sequence']);
    expect(readerForm('nmb-differential', DDX.questions[0]!).fields).toEqual(['diagnosis', 'alternatives']);
    expect(readerForm('rubric', { text: 'Write a report.' }).fields).toEqual(['text']);
    expect(readerForm('nmb-multi-round', DIALOGUE.questions[0]!).followUps?.map((f) => f.id)).toEqual(['f1', 'f2']);
  });
});

describe("a reader's stored answer", () => {
  it('is read by the protocol\'s own parser and shown again as it was given', () => {
    const cases: [BenchCase, string, ReaderAnswer][] = [
      [CLS, 'neurovlm-structured', { class: 'stroke', subtype: 'ischemic', confidence: '0.9' }],
      [MCQ, 'mcq', { choice: 'B' }],
      [DDX, 'nmb-differential', { diagnosis: 'migraine', alternatives: 'acute ischemic stroke\nTodd paralysis' }],
      [DDX, 'structured-review', { diagnosis: 'migraine', alternatives: 'acute ischemic stroke' }],
      [LESION, 'nmb-lesion', { lesionType: 'plaques', location: 'periventricular', laterality: 'bilateral', sequence: 'FLAIR' }],
      [DDX, 'nmb-rationale', { diagnosis: 'stroke', text: 'Sudden onset.\n\nDWI bright.' }],
    ];
    for (const [c, protocolId, a] of cases) {
      const row = answer(c, protocolId, [a]);
      expect(row.parseError, protocolId).toBeNull();
      expect(storedAnswer({ protocolId }, row), protocolId).toEqual(expect.objectContaining(a));
    }
  });

  it('refuses an answer without its required field, naming it', () => {
    expect(() => answer(LESION, 'nmb-lesion', [{ location: 'left frontal' }])).toThrow(/lesion type/);
    expect(() => answer(CLS, 'neurovlm-structured', [{ class: 'stroke-ish' }])).toThrow(/not one of the benchmark's classes/);
  });

  it('keeps every turn of a dialogue, each seeing only the images revealed so far', () => {
    const form = readerForm('nmb-multi-round', DIALOGUE.questions[0]!);
    expect(imagesForTurn(DIALOGUE.images, form, 0).map((i) => i.path)).toEqual(['multi-round-stroke-01-0.png']);
    expect(imagesForTurn(DIALOGUE.images, form, 1).map((i) => i.path)).toEqual(['multi-round-stroke-01-0.png', 'multi-round-stroke-01-1.png']);
    expect(imagesForTurn(DIALOGUE.images, form, 2)).toHaveLength(3);
    const row = answer(DIALOGUE, 'nmb-multi-round', [{ diagnosis: 'migraine' }, { diagnosis: 'stroke' }, { diagnosis: 'acute ischemic stroke' }]);
    expect(row.turns?.map((t) => t.id)).toEqual(['initial', 'f1', 'f2']);
    expect(row.turns?.every((t) => t.parseError === null)).toBe(true);
    expect(() => answer(DIALOGUE, 'nmb-multi-round', [{ diagnosis: 'stroke' }])).toThrow(/3 turns; 1 answered/);
  });
});

describe('readers are scored only on what they were asked', () => {
  const run = readerRunRecord({ benchmark: { id: 'b', name: 'B', version: '1', contentHash: 'h' }, reader: { pseudonym: 'AB', role: null }, sourceRun: null, protocol: { id: 'auto', version: 'auto' }, items: [], app: { version: 't', commit: 't' }, now: 1 });
  const askedOnly = askedOnlyFor(run)!;

  it('a class reader gets class and subtype, never modality, plane or JSON validity', async () => {
    const rows = [answer(CLS, 'neurovlm-structured', [{ class: 'stroke', subtype: 'ischemic' }]), answer(MCQ, 'mcq', [{ choice: 'A' }])];
    const scored = await scoreRun({ protocolId: 'auto', responses: rows, cases: [CLS, MCQ], askedOnly });
    const byCase = new Map(scored.items.map((i) => [i.caseId, i]));
    expect(Object.keys(byCase.get(CLS.id)!.metrics).sort()).toEqual(['neurovlm.diagnosis_detailed', 'neurovlm.diagnosis_name']);
    expect(byCase.get(CLS.id)!.metrics['neurovlm.diagnosis_name']!.value).toBe(1);
    expect(Object.keys(byCase.get(MCQ.id)!.metrics)).toEqual(['mcq.correct']);
    const arm = scored.summary.arms[0]!;
    expect(arm.metrics.map((m) => m.metric)).not.toContain('json_valid');
    expect(arm.metrics.map((m) => m.metric)).not.toContain('neurovlm.plane');
    expect(arm.neurovlm).toBeUndefined();
    expect(scored.summary.neurovlmBench).toBeUndefined();
    // The same answers as a model's are scored on everything.
    const asModel = await scoreRun({ protocolId: 'auto', responses: rows, cases: [CLS, MCQ] });
    expect(asModel.summary.arms[0]!.metrics.map((m) => m.metric)).toContain('json_valid');
    expect(askedOnlyFor({ provenance: { ...run.provenance, models: [{ ...run.provenance.models[0]!, runtime: 'transformers', id: 'm' }] } })).toBeUndefined();
  });

  it('a differential reader gets pass@1 from the first diagnosis and pass@5 from the others', async () => {
    const right = answer(DDX, 'nmb-differential', [{ diagnosis: 'Cerebral infarction' }]);
    const second = { ...answer(DDX, 'nmb-differential', [{ diagnosis: 'migraine', alternatives: 'acute ischemic stroke' }]), id: 'x2', caseId: DDX.id };
    const scored = await scoreRun({ protocolId: 'auto', responses: [right], cases: [DDX], askedOnly });
    expect(scored.items[0]!.metrics['pass@1']!.value).toBe(1);
    expect(Object.keys(scored.items[0]!.metrics).every((m) => /^pass@\d$/.test(m))).toBe(true);
    const later = await scoreRun({ protocolId: 'auto', responses: [second], cases: [DDX], askedOnly });
    expect([later.items[0]!.metrics['pass@1']!.value, later.items[0]!.metrics['pass@5']!.value]).toEqual([0, 1]);
  });

  it('a lesion reader gets every lesion field', async () => {
    const row = answer(LESION, 'nmb-lesion', [{ lesionType: 'demyelinating plaques', location: 'periventricular white matter', laterality: 'left', sequence: 'FLAIR' }]);
    const scored = await scoreRun({ protocolId: 'auto', responses: [row], cases: [LESION], askedOnly });
    const m = scored.items[0]!.metrics;
    expect(m['lesion.laterality']!.value).toBe(0);
    expect(m['lesion.sequence']!.value).toBe(1);
  });
});

describe('neutral case labels', () => {
  const ids = Array.from({ length: 30 }, (_, i) => `direct-stroke-${String(i).padStart(2, '0')}`);
  it('number the cases in a shuffled order that names nothing of the stored id, the same for every reader of the same cases', () => {
    const labels = readerCaseLabels('bench', ids);
    expect([...labels.values()].sort()).toEqual(ids.map((_, i) => `Case ${i + 1}`).sort());
    for (const [id, label] of labels) expect(label).not.toContain(id);
    // Not the stored order.
    expect(ids.map((id) => labels.get(id))).not.toEqual(ids.map((_, i) => `Case ${i + 1}`));
    // The order the ids come in does not matter; another case set is another study.
    expect(readerCaseLabels('bench', [...ids].reverse())).toEqual(labels);
    expect(readerCaseLabels('bench', ids.slice(1))).not.toEqual(labels);
    expect(keyField('mcq')).toBe('choice');
    expect(answerKey({ key: 'diagnosis' }, { diagnosis: '  Acute   Stroke ' })).toBe('acute stroke');
  });
});
