/**
 * SLAKE's exact match against lmms-eval's own code: the figures in
 * test/fixtures/answer-parity/slake.json were printed by lmms-eval's
 * `lmms_eval/tasks/slake/utils.py` run locally on hand-made answers
 * (scripts/parity/slake-exact-match.py says how). Every normalised text,
 * every verdict and the three accuracies (overall, open, closed) must be
 * NeuroEval's too, the accuracies as a scored run reports them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../../src/core/bundle/types.ts';
import type { ResponseRecord } from '../../../../../src/core/model/answer.ts';
import { shortAnswerProtocol } from '../../../../../src/core/protocols/answers/index.ts';
import { itemKeyOf } from '../../../../../src/core/runner/plan.ts';
import { slakeExactMatch, slakeNormalize } from '../../../../../src/core/scoring/answers/short-answer.ts';
import { scoreRun } from '../../../../../src/core/scoring/run/index.ts';

interface Fixture {
  readonly pairs: readonly { prediction: string; reference: string; answerType: 'OPEN' | 'CLOSED'; predictionNormalized: string; referenceNormalized: string; correct: boolean }[];
  readonly accuracy: number;
  readonly openAccuracy: number;
  readonly closedAccuracy: number;
}
const fixture = JSON.parse(readFileSync(new URL('../../../../fixtures/answer-parity/slake.json', import.meta.url), 'utf8')) as Fixture;

describe("SLAKE exact match equals lmms-eval's code", () => {
  it('normalises every text and decides every pair as lmms-eval does', () => {
    expect(fixture.pairs.length).toBeGreaterThan(30);
    for (const p of fixture.pairs) {
      expect([p.prediction, slakeNormalize(p.prediction)]).toEqual([p.prediction, p.predictionNormalized]);
      expect([p.reference, slakeNormalize(p.reference)]).toEqual([p.reference, p.referenceNormalized]);
      expect([p.prediction, p.reference, slakeExactMatch(p.prediction, p.reference)]).toEqual([p.prediction, p.reference, p.correct]);
    }
  });

  it('reports the accuracy overall and for open and closed questions as lmms-eval aggregates them', async () => {
    const cases: BenchCase[] = fixture.pairs.map((p, i) => ({
      id: `q${i + 1}`, taskFamily: 'open-question', images: [],
      questions: [{ id: 'q1', text: 'What is shown?', reference: { short: { text: p.reference, type: p.answerType === 'OPEN' ? 'open' : 'closed' } } }],
    }));
    const responses: ResponseRecord[] = fixture.pairs.map((p, i) => {
      const parsed = shortAnswerProtocol.parse(p.prediction, cases[i]!.questions[0]!);
      const itemKey = itemKeyOf({ caseId: `q${i + 1}`, questionId: 'q1', modelId: 'm', variant: 'none', sample: 0 });
      return {
        id: `run/${itemKey}`, runId: 'run', itemKey, caseId: `q${i + 1}`, questionId: 'q1', cacheKey: '', modelId: 'm', variant: 'none', sample: 0, rawText: p.prediction,
        parsed: parsed.ok ? parsed.value : null, parseError: parsed.ok ? null : parsed.error,
        usage: { promptTokens: 1, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1 }, latencyMs: 1, finishReason: 'stop', createdAt: 1,
      };
    });
    const scored = await scoreRun({ protocolId: 'auto', cases, responses }, { resamples: 20 });
    const mean = (k: string) => scored.summary.arms[0]!.metrics.find((m) => m.metric === k);
    const open = fixture.pairs.filter((p) => p.answerType === 'OPEN').length;
    expect([mean('short.exact')!.mean, mean('short.exact')!.n]).toEqual([fixture.accuracy, fixture.pairs.length]);
    expect(mean('short.exact.open')!.mean).toBeCloseTo(fixture.openAccuracy, 15);
    expect(mean('short.exact.open')!.n).toBe(open);
    expect(mean('short.exact.closed')!.mean).toBeCloseTo(fixture.closedAccuracy, 15);
    expect(mean('short.exact.closed')!.n).toBe(fixture.pairs.length - open);
  });
});
