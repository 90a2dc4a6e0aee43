import { describe, expect, it } from 'vitest';
import { turnImages, turnText } from '../../../../src/core/chat/turn.ts';
import { extractChoice, type McqRule } from '../../../../src/core/protocols/mcq/extract.ts';
import { mcqProtocol } from '../../../../src/core/protocols/mcq/protocol.ts';
import { MCQ_CASE, MCQ_OPTIONS, MCQ_OUTPUTS as OUT, MCQ_ZH_OUTPUTS, ZH_OPTIONS } from './fixtures.ts';

const q = MCQ_CASE.questions[0]!;

describe('mcq requests', () => {
  it('lists the options as "A. …" lines and asks for a last line "Answer: X"', () => {
    const req = mcqProtocol.buildRequest(MCQ_CASE, q);
    expect(req.messages).toHaveLength(1);
    const text = turnText(req.messages[0]!);
    expect(text).toContain(`Question: ${q.text}\nOptions:\nA. Lesions confined to the basal ganglia\nB. Smooth`);
    expect(text).toContain('D. Cortical ribbon hyperintensity\nPlease select the correct answer');
    expect(text.endsWith('"Answer: X", where X is one of A, B, C, D.')).toBe(true);
    expect(req.jsonSchema).toBeUndefined();
  });

  it('keeps multi-image order; the text-only ablation drops them', () => {
    expect(turnImages(mcqProtocol.buildRequest(MCQ_CASE, q).messages[0]!).map((r) => r.sha256)).toEqual(MCQ_CASE.images.map((i) => i.sha256));
    expect(turnImages(mcqProtocol.buildRequest(MCQ_CASE, q, { textOnly: true }).messages[0]!)).toEqual([]);
  });

  it('puts clinical notes in a VLMEvalKit "Hint:" line and warns about a question without options', () => {
    const req = mcqProtocol.buildRequest({ ...MCQ_CASE, notes: 'A 30-year-old woman.' }, { id: 'q2', text: 'Diagnosis?' });
    expect(turnText(req.messages[0]!).startsWith('Hint: A 30-year-old woman.\nQuestion: Diagnosis?')).toBe(true);
    expect(req.warnings).toEqual([expect.stringMatching(/has no options/)]);
  });
});

describe('mcq extraction order', () => {
  const cases: [keyof typeof OUT, string, McqRule][] = [
    ['boxed', 'C', 'boxed'],
    ['boxedText', 'C', 'boxed'],
    ['boxedNotOption', 'C', 'answer-marker'],
    ['answerLine', 'C', 'answer-marker'],
    ['finalAnswerBold', 'C', 'answer-marker'],
    ['answerParen', 'C', 'answer-marker'],
    ['answerLower', 'C', 'answer-marker'],
    ['answerIs', 'C', 'answer-marker'],
    ['paren', 'C', 'parenthesis'],
    ['lineStart', 'C', 'line-start'],
    ['lineStartParen', 'C', 'line-start'],
    ['optionText', 'C', 'option-text'],
    ['bare', 'C', 'last-letter'],
    ['think', 'C', 'answer-marker'],
    ['echoThenLetter', 'C', 'last-letter'],
  ];
  it.each(cases)('%s → %s by %s', (name, choice, rule) => {
    expect(mcqProtocol.parse(OUT[name], q)).toMatchObject({ ok: true, value: { choice, rule } });
  });

  it('an earlier rule wins over a later one', () => {
    expect(extractChoice('(A) looks tempting, but \\boxed{B}', MCQ_OPTIONS)).toMatchObject({ value: { choice: 'B', rule: 'boxed' } });
    expect(extractChoice('Answer: D\n\n(B) was considered.', MCQ_OPTIONS)).toMatchObject({ value: { choice: 'D', rule: 'answer-marker' } });
    expect(extractChoice('Answer: first (A)\nFinal Answer: B', MCQ_OPTIONS)).toMatchObject({ value: { choice: 'B' } });
  });

  it('ambiguous answers take the last candidate of the rule, with a warning', () => {
    const letters = extractChoice(OUT.ambiguousLetters, MCQ_OPTIONS);
    expect(letters).toMatchObject({ ok: true, value: { choice: 'B', rule: 'last-letter' }, warnings: [expect.stringMatching(/^ambiguous: A, B/)] });
    expect(extractChoice(OUT.ambiguousParens, MCQ_OPTIONS)).toMatchObject({ ok: true, value: { choice: 'C', rule: 'parenthesis' }, warnings: [expect.stringMatching(/^ambiguous/)] });
  });

  it('invalid when nothing (or only a non-option letter) is found', () => {
    for (const name of ['ambiguousText', 'notAnOption', 'invalid', 'none', 'empty', 'unterminated', 'echo'] as const) {
      expect(mcqProtocol.parse(OUT[name], q), name).toEqual({ ok: false, error: 'invalid' });
    }
  });

  it('only the question’s option letters count', () => {
    const two = MCQ_OPTIONS.slice(0, 2);
    expect(extractChoice('Answer: C', two)).toEqual({ ok: false, error: 'invalid' });
    expect(extractChoice('Answer: C, otherwise B', two)).toMatchObject({ ok: true, value: { choice: 'B' } });
    // Without the question: VLMEvalKit's A–J.
    expect(extractChoice('Answer: H')).toMatchObject({ ok: true, value: { choice: 'H' } });
  });

  it('does not read letters inside words or sequence names', () => {
    expect(extractChoice('The T1C+ and DWI images show a ring.', MCQ_OPTIONS)).toEqual({ ok: false, error: 'invalid' });
  });

  it('reads Chinese answers by marker and by option text', () => {
    expect(extractChoice(MCQ_ZH_OUTPUTS.marker, ZH_OPTIONS)).toMatchObject({ ok: true, value: { choice: 'A', rule: 'answer-marker' } });
    expect(extractChoice(MCQ_ZH_OUTPUTS.optionText, ZH_OPTIONS)).toMatchObject({ ok: true, value: { choice: 'A', rule: 'option-text' } });
  });

  it('matches option text only for answers longer than five tokens', () => {
    expect(extractChoice('Cortical ribbon hyperintensity', MCQ_OPTIONS)).toEqual({ ok: false, error: 'invalid' });
    expect(extractChoice('I believe it is cortical ribbon hyperintensity here', MCQ_OPTIONS)).toMatchObject({ value: { choice: 'D', rule: 'option-text' } });
  });

  it('treats the two items of a MediConfusion pair alike', () => {
    const a = { ...q, pairId: 'ring-dwi-01' };
    expect(mcqProtocol.buildRequest(MCQ_CASE, a).messages).toEqual(mcqProtocol.buildRequest(MCQ_CASE, q).messages);
    expect(mcqProtocol.parse(OUT.answerLine, a)).toEqual(mcqProtocol.parse(OUT.answerLine, q));
  });
});
