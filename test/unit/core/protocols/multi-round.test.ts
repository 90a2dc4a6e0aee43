import { describe, expect, it } from 'vitest';
import { hasImages, turnImages, turnText } from '../../../../src/core/chat/turn.ts';
import { InvalidInputError } from '../../../../src/core/errors.ts';
import { MULTI_ROUND_SCHEMA, nmbMultiRoundProtocol as p } from '../../../../src/core/protocols/nmb/multi-round.ts';
import type { ProtocolTurn } from '../../../../src/core/protocols/types.ts';
import { MR_TURN_1, MR_TURN_2, MR_TURN_3, MULTI_ROUND_CASE as c } from './fixtures.ts';

const q = c.questions[0]!;
const answers = [MR_TURN_1, MR_TURN_2, MR_TURN_3];
const imageIndices = (turn: ProtocolTurn) => turnImages(turn).map((r) => r.index);

describe('nmb-multi-round turns', () => {
  it('has one turn for the question and one per follow-up', () => {
    expect(p.turnCount(q)).toBe(4);
    expect(p.turnCount({ id: 'x', text: 'y' })).toBe(1);
  });

  it('turn 0 shows the question with the images no follow-up reveals', () => {
    const req = p.buildTurn(c, q, 0, []);
    expect(req.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(imageIndices(req.messages[1]!)).toEqual([0]);
    expect(turnText(req.messages[1]!)).toContain('Question: What is the most likely diagnosis');
    expect(turnText(req.messages[1]!)).not.toContain('diffusion-weighted image obtained');
    expect(req.jsonSchema).toBe(MULTI_ROUND_SCHEMA);
    expect(p.buildRequest(c, q)).toEqual(req);
  });

  it('reveals follow-ups in order, each after the previous answer, with its own images', () => {
    const req = p.buildTurn(c, q, 3, answers);
    expect(req.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
    const users = req.messages.filter((m) => m.role === 'user');
    expect(users.map(imageIndices)).toEqual([[0], [1], [], [2]]);
    expect(turnText(users[1]!).startsWith(q.followUps![0]!.text)).toBe(true);
    expect(turnText(users[1]!)).toContain('New images: 1.');
    expect(turnText(users[2]!).startsWith(q.followUps![1]!.text)).toBe(true);
    expect(turnText(users[2]!)).not.toContain('New images');
    expect(turnText(users[3]!).startsWith(q.followUps![2]!.text)).toBe(true);
  });

  it('replays earlier answers as assistant turns, without their reasoning', () => {
    const req = p.buildTurn(c, q, 2, answers.slice(0, 2));
    const assistant = req.messages.filter((m) => m.role === 'assistant').map(turnText);
    expect(assistant).toEqual([MR_TURN_1.replace('<think>CT shows no bleed.</think>', ''), MR_TURN_2]);
    expect(turnText(req.messages.at(-1)!).startsWith(q.followUps![1]!.text)).toBe(true);
  });

  it('each turn extends the previous one', () => {
    const t1 = p.buildTurn(c, q, 1, answers);
    const t2 = p.buildTurn(c, q, 2, answers);
    expect(t2.messages.slice(0, t1.messages.length)).toEqual(t1.messages);
  });

  it('followUpTurns gives the same user turns for a runner that keeps the history itself', () => {
    const turns = p.followUpTurns(c, q);
    expect(turns.map((t) => t.id)).toEqual(['f1', 'f2', 'f3']);
    expect(turns[2]!.turn).toEqual(p.buildTurn(c, q, 3, answers).messages.at(-1));
  });

  it('text-only ablation reveals the follow-up texts but no images', () => {
    const req = p.buildTurn(c, q, 3, answers, { textOnly: true });
    expect(hasImages(req.messages)).toBe(false);
    expect(req.messages.filter((m) => m.role === 'user')).toHaveLength(4);
  });

  it('rejects a turn that does not exist or lacks earlier answers', () => {
    expect(() => p.buildTurn(c, q, 4, answers)).toThrow(InvalidInputError);
    expect(() => p.buildTurn(c, q, -1, [])).toThrow(InvalidInputError);
    expect(() => p.buildTurn(c, q, 2, [MR_TURN_1])).toThrow(/needs the model's 2 earlier answers/);
  });

  it('warns about a follow-up image index that does not exist', () => {
    const bad = { ...q, followUps: [{ id: 'f1', text: 'See image 9.', images: [8] }] };
    const req = p.buildTurn(c, bad, 1, [MR_TURN_1]);
    expect(req.warnings).toEqual([expect.stringMatching(/has no image 8/)]);
  });
});

describe('nmb-multi-round parsing', () => {
  it('reads the reply and the updated differential of each turn', () => {
    const r1 = p.parse(MR_TURN_1);
    expect(r1).toMatchObject({ ok: true, value: { text: 'No haemorrhage on CT; hyperacute ischemic stroke is most likely.', hypotheses: [{ diagnosis: 'Acute ischemic stroke' }, {}] } });
    expect(p.parse(MR_TURN_2)).toMatchObject({ ok: true, value: { hypotheses: [{ diagnosis: 'Acute ischemic stroke, right MCA', confidence: 0.95 }] } });
  });

  it('falls back to a numbered list when a turn answers in prose', () => {
    expect(p.parse(MR_TURN_3)).toMatchObject({ ok: true, fallback: true, value: { hypotheses: [{ diagnosis: 'Acute ischemic stroke (right MCA)', evidence: 'within 4.5 hours, no haemorrhage' }] } });
  });
});
