/** Planning: selection, counts, item keys, seeds, order. */
import { describe, expect, it } from 'vitest';
import { itemKeyOf, planRun, planSummary, responseIdOf, sampleSeed } from '../../../../src/core/runner/plan.ts';
import { ALL_VARIANTS, isVariant, parseVariant } from '../../../../src/core/runner/variants.ts';
import { CASES, SAMPLING, SPEC } from './fixtures.ts';

describe('planRun', () => {
  it('counts and keys a benchmark × 2 models × 3 variants × 2 samples', () => {
    const plan = planRun(SPEC, CASES);
    expect(plan.counts).toEqual({ cases: 3, questions: 4, models: 2, variants: 3, samples: 2, items: 48 });
    expect(planSummary(plan)).toEqual({ cases: 3, models: 2, variants: 3, samples: 2, items: 48 });
    expect(new Set(plan.items.map((i) => i.itemKey)).size).toBe(48);
    expect(plan.items[0]).toEqual({
      itemKey: 'c1#q1|model-a|none|s0', caseId: 'c1', questionId: 'q1', modelId: 'model-a', variant: 'none', sample: 0,
      sampling: { ...SAMPLING, seed: 42 },
    });
    expect(plan.items[1]!.itemKey).toBe('c1#q1|model-a|none|s1');
    expect(plan.items[1]!.sampling.seed).toBe(43);
    expect(plan.items[2]!.itemKey).toBe('c1#q1|model-a|text-only|s0');
    expect(plan.items.at(-1)!.itemKey).toBe('c3#q1|model-b|degrade:blur:2|s1');
  });

  it('runs models one after another by default', () => {
    const models = planRun(SPEC, CASES).items.map((i) => i.modelId);
    expect(models.slice(0, 24).every((m) => m === 'model-a')).toBe(true);
    expect(models.slice(24).every((m) => m === 'model-b')).toBe(true);
  });

  it('interleaves models per question when asked', () => {
    const plan = planRun({ ...SPEC, interleave: true }, CASES);
    expect(plan.interleave).toBe(true);
    expect(plan.items.slice(0, 12).map((i) => i.itemKey)).toEqual([
      ...['none', 'text-only', 'degrade:blur:2'].flatMap((v) => [0, 1].map((s) => `c1#q1|model-a|${v}|s${s}`)),
      ...['none', 'text-only', 'degrade:blur:2'].flatMap((v) => [0, 1].map((s) => `c1#q1|model-b|${v}|s${s}`)),
    ]);
    expect(new Set(plan.items.map((i) => i.itemKey))).toEqual(new Set(planRun(SPEC, CASES).items.map((i) => i.itemKey)));
  });

  it('filters by split, task family, disease group, modality and case ids', () => {
    const ids = (filters: NonNullable<typeof SPEC.filters>) => planRun({ ...SPEC, filters }, CASES).cases.map((c) => c.id);
    expect(ids({ splits: ['test'] })).toEqual(['c1', 'c2']);
    expect(ids({ taskFamilies: ['open-question', 'multiple-choice'] })).toEqual(['c1', 'c3']);
    expect(ids({ diseaseGroups: ['stroke'] })).toEqual(['c2']);
    expect(ids({ modalities: ['MRI'], splits: ['test'] })).toEqual(['c1']);
    expect(ids({ caseIds: ['c3', 'c2'] })).toEqual(['c2', 'c3']);
    expect(ids({ splits: [] })).toEqual(['c1', 'c2', 'c3']);
    const plan = planRun({ ...SPEC, filters: { caseIds: ['c2', 'nope'] } }, CASES);
    expect(plan.missingCaseIds).toEqual(['nope']);
    expect(plan.counts).toMatchObject({ cases: 1, questions: 1, items: 12 });
  });

  it('defaults to one sample of the unchanged images', () => {
    const plan = planRun({ benchmarkId: 'b', models: [{ id: 'm', filesHash: '' }], sampling: SAMPLING }, CASES);
    expect(plan.counts).toMatchObject({ variants: 1, samples: 1, items: 4 });
    expect(plan.items.map((i) => i.variant)).toEqual(['none', 'none', 'none', 'none']);
  });

  it('rejects unusable specs', () => {
    const bad = (patch: Partial<typeof SPEC>) => () => planRun({ ...SPEC, ...patch }, CASES);
    expect(bad({ models: [] })).toThrow(/at least one model/);
    expect(bad({ models: [{ id: 'a', filesHash: '' }, { id: 'a', filesHash: '' }] })).toThrow(/twice/);
    expect(bad({ models: [{ id: 'a|b', filesHash: '' }] })).toThrow(/"\|"/);
    expect(bad({ variants: ['degrade:sharpen:1' as never] })).toThrow(/Unknown variant/);
    expect(bad({ variants: ['none', 'none'] })).toThrow(/twice/);
    expect(bad({ variants: [] })).toThrow(/at least one variant/);
    expect(bad({ samples: 0 })).toThrow(/samples/);
    expect(bad({ samples: 1.5 })).toThrow(/samples/);
    expect(bad({ sampling: { ...SAMPLING, topP: 0 } })).toThrow(/topP/);
    expect(bad({ sampling: { ...SAMPLING, temperature: -1 } })).toThrow(/temperature/);
    expect(bad({ sampling: { ...SAMPLING, seed: 1.5 } })).toThrow(/seed/);
    expect(bad({ sampling: { ...SAMPLING, maxTokens: 0 } })).toThrow(/maxTokens/);
    const dup = [...CASES, CASES[0]!];
    expect(() => planRun(SPEC, dup)).toThrow(/share the key/);
  });
});

describe('keys and seeds', () => {
  it('has the documented item key and response id formats', () => {
    expect(itemKeyOf({ caseId: 'c', questionId: 'q', modelId: 'm', variant: 'degrade:jpeg:3', sample: 2 })).toBe('c#q|m|degrade:jpeg:3|s2');
    expect(responseIdOf('run1', 'c#q|m|none|s0')).toBe('run1/c#q|m|none|s0');
  });

  it('adds the sample index to the seed, wrapping at 2^32', () => {
    expect(sampleSeed(42, 0)).toBe(42);
    expect(sampleSeed(42, 3)).toBe(45);
    expect(sampleSeed(0xffff_ffff, 1)).toBe(0);
  });

  it('knows every variant', () => {
    // The original images, no images, the consistency probes, then 5 degradations at 3 severities.
    expect(ALL_VARIANTS.slice(0, 3)).toEqual(['none', 'text-only', 'probe:mirror']);
    expect(ALL_VARIANTS.filter((v) => v.startsWith('degrade:'))).toHaveLength(15);
    expect(new Set(ALL_VARIANTS).size).toBe(ALL_VARIANTS.length);
    expect(parseVariant('degrade:downsample:3')).toEqual({ kind: 'degrade', degrade: 'downsample', severity: 3 });
    expect(parseVariant('text-only')).toEqual({ kind: 'text-only' });
    for (const v of ['degrade:noise:0', 'degrade:noise:4', 'degrade:noise', 'blur', '']) expect(isVariant(v)).toBe(false);
  });
});
