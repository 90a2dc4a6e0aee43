/** Run-time estimates from speeds measured on earlier answers. */
import { describe, expect, it } from 'vitest';
import {
  type AnswerSample,
  DEFAULT_IMAGE_TOKENS,
  LIVE_HALF_WEIGHT,
  WARMUP_ANSWERS,
  estimateRun,
  itemSeconds,
  planWorkloads,
  protocolKey,
  remainingSeconds,
  speedRecord,
} from '../../../../src/core/runner/estimate.ts';
import { planRun } from '../../../../src/core/runner/plan.ts';
import { CASES, SPEC, protocol } from './fixtures.ts';

/** An answer of `tokens` tokens: `nonDecodeMs` before decoding, then 100 tokens/s. */
function answer(key: string, tokens: number, nonDecodeMs: number, extra: Partial<AnswerSample> = {}): AnswerSample {
  const decodeMs = ((tokens - 1) / 100) * 1000;
  return { run: 'r1', protocolKey: key, promptTokens: 200, answerTokens: tokens, ttftMs: nonDecodeMs, latencyMs: nonDecodeMs + decodeMs, turns: 1, truncated: false, budget: 64, gapMs: 50, ...extra };
}

describe('speed records', () => {
  it('measure decode, non-decode time per protocol, answer lengths, time between answers and load', () => {
    const r = speedRecord(
      [
        answer('json', 41, 500),
        answer('json', 21, 300),
        answer('json', 64, 400, { truncated: true }),
        answer('mcq', 3, 200, { gapMs: null }),
      ],
      { r1: 300 },
    )!;
    expect(r.answers).toBe(4);
    expect(r.decodeTps).toBeCloseTo(100);
    expect(r.protocols.json).toMatchObject({ answers: 3, promptTokens: 200, stoppedTokens: 31 });
    expect(r.protocols.json!.nonDecodeS).toBeCloseTo(0.4);
    expect(r.protocols.json!.truncatedShare).toBeCloseTo(1 / 3);
    expect(r.protocols.mcq!.nonDecodeS).toBeCloseTo(0.2);
    // 800 prompt tokens over 1.4 s of non-decode time.
    expect(r.prefillTps).toBeCloseTo(800 / 1.4);
    expect(r.betweenS).toBeCloseTo(0.05);
    // The only run found its model warm (a wait under COLD_WAIT_MS): 0.3 s, and its first answer's 0.1 s over the usual.
    expect(r.warmLoadS).toBeCloseTo(0.4);
    expect(r.loadS).toBeNull();
  });

  it('price a start as the wait for the load plus the extra time of the first answers, which the steady figures leave out', () => {
    // Each run: WARMUP_ANSWERS answers, the first slower by `extraMs`, then two steady ones.
    const run = (id: string, extraMs: number) => [
      answer('json', 41, 400 + extraMs, { run: id }),
      ...Array.from({ length: WARMUP_ANSWERS - 1 + 2 }, () => answer('json', 41, 400, { run: id })),
    ];
    // c1 loaded for 5 s and its first answer took 3 s more; c2 7 s and 1 s more; w1 found the model warm.
    const r = speedRecord([...run('c1', 3000), ...run('c2', 1000), ...run('w1', 200)], { c1: 5000, c2: 7000, w1: 800 })!;
    expect(r.protocols.json!.nonDecodeS).toBeCloseTo(0.4);
    expect(r.protocols.json!.answers).toBe(6);
    expect(r.decodeTps).toBeCloseTo(100);
    expect(r.loadS).toBeCloseTo((5 + 3 + (7 + 1)) / 2);
    expect(r.warmLoadS).toBeCloseTo(0.8 + 0.2);
    const work = [{ modelId: 'a', protocolKey: 'json', textChars: 10, images: 0, turns: 1 }];
    const cold = estimateRun(work, { budget: 64, records: { a: r } });
    const warm = estimateRun(work, { budget: 64, records: { a: r }, warm: new Set(['a']) });
    expect(cold.seconds! - warm.seconds!).toBeCloseTo(8 - 1);
    expect(warm.perModel[0]).toMatchObject({ warm: true });
    expect(warm.perModel[0]!.loadS).toBeCloseTo(1);
    // The loaded model helps only a run that starts with it: a model asked after another loads cold, as the pool keeps one model.
    const second = estimateRun([{ ...work[0]!, modelId: 'b' }, ...work], { budget: 64, records: { a: r, b: r }, warm: new Set(['a']) });
    expect(second.perModel.find((m) => m.modelId === 'a')).toMatchObject({ warm: false });
    expect(second.perModel.find((m) => m.modelId === 'a')!.loadS).toBeCloseTo(8);
  });

  it('are absent without a timed answer', () => {
    expect(speedRecord([])).toBeNull();
    expect(speedRecord([answer('json', 1, 100)])).toBeNull();
    expect(speedRecord([{ ...answer('json', 20, 100), ttftMs: null }])).toBeNull();
  });
});

describe('item and run estimates', () => {
  const record = speedRecord([answer('json', 41, 500), answer('json', 21, 300), answer('json', 64, 400, { truncated: true })], { r1: 6000 })!;
  const work = { protocolKey: 'json', textChars: 800, images: 1, turns: 1 };

  it('price a measured protocol at its answer lengths, bounded by the budget', () => {
    // Two thirds stop at 31 tokens, one third reaches the budget; 0.4 s before decoding, 0.05 s between answers.
    const at64 = itemSeconds(record, work, 64)!;
    expect(at64.measuredProtocol).toBe(true);
    expect(at64.seconds).toBeCloseTo(0.4 + ((2 / 3) * 31 + (1 / 3) * 64) / 100 + 0.05);
    // A budget of 16 cuts every answer at 16 tokens.
    expect(itemSeconds(record, work, 16)!.seconds).toBeCloseTo(0.4 + 16 / 100 + 0.05);
    // Two turns: twice the answer.
    expect(itemSeconds(record, { ...work, turns: 2 }, 16)!.seconds).toBeCloseTo(0.4 + 32 / 100 + 0.05);
  });

  it('price an unmeasured protocol from its text at the measured prefill rate, with answers as long as the model\'s under its other protocols', () => {
    const other = itemSeconds(record, { ...work, protocolKey: 'open' }, 64)!;
    expect(other.measuredProtocol).toBe(false);
    // No measured prompt says how many tokens an image takes: the generic grid.
    expect(record.imageTokens).toBeNull();
    const prompt = 800 / 4 + DEFAULT_IMAGE_TOKENS;
    // The model's answers: two stopped at 31 tokens on average, one reached the budget; not a full budget each.
    expect(other.seconds).toBeCloseTo(prompt / record.prefillTps! + ((2 / 3) * 31 + (1 / 3) * 64) / 100 + 0.05);
    expect(itemSeconds({ ...record, prefillTps: null }, { ...work, protocolKey: 'open' }, 64)).toBeNull();
  });

  it('read the tokens an image takes from measured prompts, beyond their text', () => {
    // 200 prompt tokens: 40 of text (160 characters) and 2 images of 80 tokens each.
    const request = { textChars: 160, images: 2 };
    const r = speedRecord([answer('json', 41, 500, { request }), answer('json', 21, 300, { request })])!;
    expect(r.imageTokens).toBeCloseTo(80);
    const one = itemSeconds(r, { protocolKey: 'open', textChars: 400, images: 1, turns: 1 }, 64)!;
    expect(one.seconds).toBeCloseTo((100 + 80) / r.prefillTps! + 31 / 100 + 0.05);
  });

  it('price a model that fills its budget under its measured protocols at a full budget under a new one', () => {
    const filler = speedRecord([answer('json', 64, 400, { truncated: true }), answer('json', 64, 420, { truncated: true })])!;
    const other = itemSeconds(filler, { ...work, protocolKey: 'open' }, 128)!;
    expect(other.seconds).toBeCloseTo((800 / 4 + DEFAULT_IMAGE_TOKENS) / filler.prefillTps! + 128 / 100 + 0.05);
  });

  it('add items × their seconds and each model’s load once; unknown when a model has no record', () => {
    const per = itemSeconds(record, work, 64)!.seconds;
    const items = [1, 2, 3].map(() => ({ modelId: 'a', ...work }));
    const est = estimateRun(items, { budget: 64, records: { a: record } });
    // The cold start: 6 s of load, and the first answer's 0.1 s over the usual 0.4 s.
    expect(est.seconds).toBeCloseTo(3 * per + 6.1);
    expect(est.perModel[0]).toMatchObject({ modelId: 'a', items: 3, answers: 3, unmeasuredItems: 0, warm: false });
    expect(est.perModel[0]!.loadS).toBeCloseTo(6.1);
    expect(est.perModel[0]!.perItemS).toBeCloseTo(per);
    expect(estimateRun(items, { budget: 64, records: { a: record }, withLoad: false }).seconds).toBeCloseTo(3 * per);
    const two = estimateRun([...items, { modelId: 'b', ...work }], { budget: 64, records: { a: record } });
    expect(two.seconds).toBeNull();
    expect(two.perModel.find((m) => m.modelId === 'b')).toMatchObject({ seconds: null, answers: 0 });
    const mixed = estimateRun([...items, { modelId: 'a', ...work, protocolKey: 'open' }], { budget: 64, records: { a: record } });
    expect(mixed.perModel[0]!.unmeasuredItems).toBe(1);
  });
});

describe('remaining time of a live run', () => {
  it('starts from the record, blends in the live rate by answers, and uses the live rate alone without a record', () => {
    expect(remainingSeconds(10, 2, null)).toEqual({ seconds: 20, basis: 'record' });
    expect(remainingSeconds(10, null, null)).toBeNull();
    // One live answer is not a rate without a record.
    expect(remainingSeconds(10, null, { answers: 1, seconds: 4 })).toBeNull();
    expect(remainingSeconds(10, null, { answers: 2, seconds: 8 })).toEqual({ seconds: 40, basis: 'live' });
    // After LIVE_HALF_WEIGHT answers the live rate (4 s) and the record (2 s) weigh the same.
    const half = remainingSeconds(10, 2, { answers: LIVE_HALF_WEIGHT, seconds: 4 * LIVE_HALF_WEIGHT })!;
    expect(half.basis).toBe('blend');
    expect(half.seconds).toBeCloseTo(30);
    // Many answers: close to the live rate.
    expect(remainingSeconds(10, 2, { answers: 500, seconds: 2000 })!.seconds).toBeGreaterThan(39);
    expect(remainingSeconds(0, 2, { answers: 3, seconds: 3 })!.seconds).toBe(0);
  });
});

describe('plan workloads', () => {
  it('derive each item’s text, images and protocol key, without images for text-only and skipping done items', () => {
    const plan = planRun(SPEC, CASES);
    const all = planWorkloads(plan);
    expect(all).toHaveLength(48);
    const c2 = (variant: string) => all[plan.items.findIndex((i) => i.itemKey === `c2#q1|model-a|${variant}|s0`)]!;
    expect(c2('none')).toEqual({ modelId: 'model-a', protocolKey: '', textChars: 'Diagnosis?'.length, images: 2, turns: 1 });
    expect(c2('text-only').images).toBe(0);
    const withProtocol = planWorkloads(plan, { protocol, done: new Set(plan.items.slice(0, 40).map((i) => i.itemKey)) });
    expect(withProtocol).toHaveLength(8);
    expect(withProtocol.every((w) => w.modelId === 'model-b')).toBe(true);
    expect(withProtocol.find((w) => w.textChars === 'You are a neuroradiologist.'.length + 'Normal?\nA 40-year-old.'.length)).toBeDefined();
    const byCase = planWorkloads(plan, { protocol, protocolIdOf: (c) => (c.id === 'c3' ? 'open' : 'mcq'), fewShot: true });
    expect(new Set(byCase.map((w) => w.protocolKey))).toEqual(new Set(['mcq|few-shot', 'mcq|text-only|few-shot', 'open|few-shot', 'open|text-only|few-shot']));
    expect(protocolKey('mcq', 'degrade:blur:2')).toBe('mcq');
  });
});
