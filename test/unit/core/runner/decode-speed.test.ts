/**
 * Decode speed, the one tokens-per-second figure: tokens after each turn's
 * first over the engine's decode time, summed before dividing. The run page
 * and the results page used to show two different figures for the same
 * answers (tokens over whole calls; a mean of per-answer rates).
 */
import { describe, expect, it } from 'vitest';
import { addTally, answerTally, decodeSpeed, decodeSpeedText, decodeTally, NO_DECODE } from '../../../../src/core/runner/decode-speed.ts';
import { summariseArms } from '../../../../src/core/scoring/run/summary.ts';
import type { ItemScore } from '../../../../src/core/scoring/run/types.ts';

// Two answers as the demo-trained model gives them on WASM: a long one at 40 tokens/s, a two-token one whose single decode step took 2 ms.
const long = { completionTokens: 81, decodeTps: 40 };
const short = { completionTokens: 2, decodeTps: 500 };

describe('decode speed', () => {
  it('sums tokens and seconds over answers before dividing, so a two-token answer does not count as much as a long one', () => {
    const t = addTally(decodeTally([long]), decodeTally([short]));
    expect(t.tokens).toBe(81);
    expect(t.seconds).toBeCloseTo(80 / 40 + 1 / 500);
    expect(decodeSpeed(t)).toBeCloseTo(81 / (2 + 0.002));
    // The mean of the two rates would read 270 tokens/s.
    expect(decodeSpeed(t)).toBeLessThan(41);
  });

  it('counts each turn of a dialogue at its own rate, and leaves out turns with no measured rate', () => {
    const t = answerTally({ usage: { promptTokens: null, completionTokens: 30, ttftMs: null, prefillTps: null, decodeTps: 15 }, turns: [
      { usage: { promptTokens: 5, completionTokens: 11, ttftMs: 3, prefillTps: null, decodeTps: 10 } },
      { usage: { promptTokens: 5, completionTokens: 21, ttftMs: 3, prefillTps: null, decodeTps: 20 } },
      { usage: { promptTokens: 5, completionTokens: 1, ttftMs: 3, prefillTps: null, decodeTps: null } },
    ] });
    expect(t).toEqual({ tokens: 30, seconds: 2 });
    expect(decodeSpeed(t)).toBe(15);
  });

  it('has no figure before any rate was measured, and reads the same everywhere', () => {
    expect(decodeSpeed(NO_DECODE)).toBeNull();
    expect(decodeSpeed(decodeTally([{ completionTokens: 1, decodeTps: null }]))).toBeNull();
    expect(decodeSpeedText(40.04)).toBe('decode speed 40.0 tokens/s');
  });

  it('is the figure the results page shows for an arm', () => {
    const response = (id: string, u: { completionTokens: number; decodeTps: number }) => ({
      id, itemKey: id, caseId: id, questionId: 'q', modelId: 'm', variant: 'none', sample: 0, parsed: null, parseError: null, rawText: '', latencyMs: 100, finishReason: 'stop', createdAt: 1,
      usage: { promptTokens: 10, ttftMs: 50, prefillTps: 100, ...u },
    });
    const item = (id: string): ItemScore => ({ responseId: id, itemKey: id, caseId: id, questionId: 'q', modelId: 'm', variant: 'none', sample: 0, protocolId: 'free-text', metrics: {}, primary: null, confidence: null, verdicts: [], taxonomy: null, notes: [] });
    const summary = summariseArms([item('a'), item('b')], [response('a', long), response('b', short)], [], { seed: 1, resamples: 10 });
    expect(summary.arms[0]!.decodeTps).toBeCloseTo(81 / 2.002);
  });
});
