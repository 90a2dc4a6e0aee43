import { describe, expect, it } from 'vitest';
import type { Engine, GenerateRequest, GenerateResult } from '../../../../src/core/engines/engine.ts';
import { buildJudgeRequest, JUDGE_RUBRIC_V1, JUDGE_VERDICT_SCHEMA, judgeVerdict, parseJudgeVerdict } from '../../../../src/core/scoring/equivalence/judge.ts';

const ref = { diagnosis: 'Multiple sclerosis', aliases: ['MS', 'disseminated sclerosis'] };

function fakeEngine(text: string | Error, finishReason: GenerateResult['finishReason'] = 'stop'): Engine & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  return {
    requests,
    load: () => Promise.resolve({ runtime: 'openai-compatible', runtimeVersion: '0', modelId: 'judge-x', device: 'test' }),
    generate: (req) => {
      requests.push(req);
      if (text instanceof Error) return Promise.reject(text);
      return Promise.resolve({ text, finishReason, usage: { promptTokens: null, completionTokens: null, ttftMs: null, prefillTokensPerS: null, decodeTokensPerS: null, totalMs: 1 } });
    },
    unload: () => Promise.resolve(),
  };
}

describe('buildJudgeRequest', () => {
  it('is greedy, seeded, short, schema-constrained and carries the rubric', () => {
    const req = buildJudgeRequest('  demyelinating disease ', ref);
    expect(req.sampling.temperature).toBe(0);
    expect(Number.isInteger(req.sampling.seed)).toBe(true);
    expect(req.sampling.maxTokens).toBeLessThanOrEqual(512);
    expect(req.jsonSchema).toBe(JUDGE_VERDICT_SCHEMA);
    expect(req.jsonSchema).toMatchObject({ required: ['equivalent', 'confidence', 'rationale'] });
    expect(req.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(req.messages[0]?.text).toBe(JUDGE_RUBRIC_V1.system);
    const user = req.messages[1]?.text ?? '';
    expect(user).toContain('REFERENCE diagnosis: Multiple sclerosis');
    expect(user).toContain('MS; disseminated sclerosis');
    expect(user).toContain('CANDIDATE diagnosis: demyelinating disease');
    expect(user).not.toContain('{{');
    expect(JUDGE_RUBRIC_V1.version).toBe('1.0.0');
  });

  it('is identical for identical input', () => {
    expect(buildJudgeRequest('x', ref)).toEqual(buildJudgeRequest('x', ref));
    expect(buildJudgeRequest('x', { diagnosis: 'y' }).messages[1]?.text).toContain('(none)');
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

describe('judgeVerdict', () => {
  it('records the judge model id, rubric version and raw reply', async () => {
    const engine = fakeEngine('{"equivalent": true, "confidence": 0.8, "rationale": "synonym"}');
    const v = await judgeVerdict(engine, 'judge-x', 'disseminated sclerosis', ref);
    expect(v).toMatchObject({ equivalent: true, source: 'judge', judgeModelId: 'judge-x', rubricVersion: '1.0.0', rationale: 'synonym' });
    expect(v.raw).toContain('synonym');
    expect(engine.requests).toHaveLength(1);
  });

  it('turns engine failures into undecided verdicts', async () => {
    expect(await judgeVerdict(fakeEngine(new Error('boom')), 'j', 'x', ref)).toMatchObject({ equivalent: null, error: 'boom' });
    expect((await judgeVerdict(fakeEngine('', 'error'), 'j', 'x', ref)).equivalent).toBeNull();
  });

  it('rethrows when aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(judgeVerdict(fakeEngine(new Error('aborted')), 'j', 'x', ref, ac.signal)).rejects.toBeDefined();
  });
});
