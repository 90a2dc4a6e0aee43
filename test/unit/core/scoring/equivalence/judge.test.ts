import { describe, expect, it } from 'vitest';
import { turnText } from '../../../../../src/core/chat/turn.ts';
import { buildJudgeRequest, JUDGE_CAVEAT, JUDGE_RUBRIC_V1, JUDGE_VERDICT_SCHEMA, parseJudgeVerdict } from '../../../../../src/core/scoring/equivalence/judge.ts';

const ref = { diagnosis: 'Multiple sclerosis', aliases: ['MS', 'disseminated sclerosis'] };

describe('buildJudgeRequest', () => {
  it('is greedy, seeded, short, schema-constrained and carries the rubric', () => {
    const req = buildJudgeRequest('  demyelinating disease ', ref);
    expect(req.sampling.temperature).toBe(0);
    expect(Number.isInteger(req.sampling.seed)).toBe(true);
    expect(req.sampling.maxTokens).toBeLessThanOrEqual(512);
    expect(req.jsonSchema).toBe(JUDGE_VERDICT_SCHEMA);
    expect(req.jsonSchema).toMatchObject({ required: ['equivalent', 'confidence', 'rationale'] });
    expect(req.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(turnText(req.messages[0]!)).toBe(JUDGE_RUBRIC_V1.system);
    const user = turnText(req.messages[1]!);
    expect(user).toContain('REFERENCE diagnosis: Multiple sclerosis');
    expect(user).toContain('MS; disseminated sclerosis');
    expect(user).toContain('CANDIDATE diagnosis: demyelinating disease');
    expect(user).not.toContain('{{');
    expect(JUDGE_RUBRIC_V1.version).toBe('1.0.0');
  });

  it('is identical for identical input', () => {
    expect(buildJudgeRequest('x', ref)).toEqual(buildJudgeRequest('x', ref));
    expect(turnText(buildJudgeRequest('x', { diagnosis: 'y' }).messages[1]!)).toContain('(none)');
  });
});

describe('parseJudgeVerdict', () => {
  it('reads a plain JSON verdict', () => {
    expect(parseJudgeVerdict('{"equivalent": true, "confidence": 0.9, "rationale": "same entity"}')).toEqual({ equivalent: true, confidence: 0.9, rationale: 'same entity' });
  });

  it('reads a fenced verdict after a think block', () => {
    const raw = '<think>maybe {"equivalent": true}</think>\n```json\n{"equivalent": false, "confidence": 0.7, "rationale": "broader"}\n```';
    expect(parseJudgeVerdict(raw)).toMatchObject({ equivalent: false, confidence: 0.7, rationale: 'broader' });
  });

  it('is undecided on malformed or non-boolean answers, never a pass', () => {
    expect(parseJudgeVerdict('yes, equivalent').equivalent).toBeNull();
    expect(parseJudgeVerdict('{"equivalent": "true", "confidence": 1}')).toMatchObject({ equivalent: null, confidence: 1 });
    expect(parseJudgeVerdict('{"confidence": 0.5}').equivalent).toBeNull();
    expect(parseJudgeVerdict('<think>{"equivalent": true} still thinking').equivalent).toBeNull();
    expect(parseJudgeVerdict('{"equivalent": true, "confidence": 7}').confidence).toBeNull();
  });
});

describe('JUDGE_CAVEAT', () => {
  it('labels the local judge as not the papers\' GPT-4o grader', () => {
    expect(JUDGE_CAVEAT).toMatch(/NOT equivalent/);
    expect(JUDGE_CAVEAT).toMatch(/GPT-4o/);
  });
});
