/** Run-time estimates from measured speeds. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_IMAGE_TOKENS, estimateRun, planWorkloads, secondsFor } from '../../../src/core/runner/estimate.ts';
import { planRun } from '../../../src/core/runner/plan.ts';
import { CASES, SPEC, protocol } from './fixtures.ts';

describe('estimate', () => {
  it('adds prompt (chars/4 + image budget) and decode (maxTokens/2) time', () => {
    // 400 chars → 100 tokens; 2 images × 576; decode 256/2 = 128 per turn.
    const est = estimateRun([{ modelId: 'm', textChars: 400, images: 2, turns: 1 }], {
      maxTokens: 256,
      speeds: { m: { decodeTokensPerS: 32, prefillTokensPerS: 1252 } },
    });
    expect(est.promptTokens).toBe(100 + 2 * DEFAULT_IMAGE_TOKENS);
    expect(est.decodeTokens).toBe(128);
    expect(est.seconds).toBeCloseTo(1252 / 1252 + 128 / 32);
  });

  it('assumes prefill 8× decode when only decode speed is known, and null without speed', () => {
    expect(secondsFor(800, 100, { decodeTokensPerS: 10 })).toBeCloseTo(800 / 80 + 10);
    expect(secondsFor(800, 100, { decodeTokensPerS: 10, prefillTokensPerS: null })).toBeCloseTo(20);
    expect(secondsFor(800, 100, undefined)).toBeNull();
    expect(secondsFor(800, 100, { decodeTokensPerS: 0 })).toBeNull();
    const est = estimateRun(
      [{ modelId: 'a', textChars: 4, images: 0, turns: 1 }, { modelId: 'b', textChars: 4, images: 0, turns: 2 }],
      { maxTokens: 10, speeds: { a: { decodeTokensPerS: 5 } }, imageTokens: 100 },
    );
    expect(est.perModel.map((m) => [m.modelId, m.decodeTokens, m.seconds === null])).toEqual([['a', 5, false], ['b', 10, true]]);
    expect(est.seconds).toBeNull();
  });

  it('derives workloads from a plan, without images for text-only and skipping done items', () => {
    const plan = planRun(SPEC, CASES);
    const all = planWorkloads(plan);
    expect(all).toHaveLength(48);
    const c2 = (variant: string) => all[plan.items.findIndex((i) => i.itemKey === `c2#q1|model-a|${variant}|s0`)]!;
    expect(c2('none')).toEqual({ modelId: 'model-a', textChars: 'Diagnosis?'.length, images: 2, turns: 1 });
    expect(c2('text-only').images).toBe(0);
    const withProtocol = planWorkloads(plan, { protocol, done: new Set(plan.items.slice(0, 40).map((i) => i.itemKey)) });
    expect(withProtocol).toHaveLength(8);
    expect(withProtocol.every((w) => w.modelId === 'model-b')).toBe(true);
    const c3 = withProtocol.find((w) => w.textChars === 'You are a neuroradiologist.'.length + 'Normal?\nA 40-year-old.'.length);
    expect(c3).toBeDefined();
  });
});
