/** The runner on fake engines and an in-memory store: a full run, model order, variants, multi-turn, progress. */
import { describe, expect, it, vi } from 'vitest';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import { imagesThenText, textTurn, turnImages } from '../../../../src/core/chat/turn.ts';
import type { GenerateRequest } from '../../../../src/core/engines/engine.ts';
import type { RunProtocol, Variant } from '../../../../src/core/runner/types.ts';
import { CASES, SAMPLING, SPEC, answer, expectOnePerItem, loadImage, protocol, refOf } from './fixtures.ts';
import { harness } from './harness.ts';

describe('runRun: a full run', () => {
  it('stores exactly one parsed answer per planned item and ends done', async () => {
    const h = harness();
    const outcome = await h.run();
    expect(outcome).toMatchObject({ status: 'done', error: null, progress: { done: 48, total: 48 }, generated: 48, reused: 0, errors: 0 });
    expectOnePerItem(h.store.responses.values(), 'run1', h.plan.items.map((i) => i.itemKey));
    expect(h.saved).toHaveLength(48);
    expect(h.engines.count('generate')).toBe(48);
    const row = h.store.responses.get('run1/c1#q1|model-a|none|s1')!;
    expect(row).toMatchObject({
      runId: 'run1', itemKey: 'c1#q1|model-a|none|s1', caseId: 'c1', questionId: 'q1', modelId: 'model-a', variant: 'none', sample: 1,
      rawText: 'answer model-a seed=43 images=1 Which lesion?', parseError: null, finishReason: 'stop', error: null, reusedFrom: null,
      usage: { promptTokens: 10, completionTokens: 20, ttftMs: 5, prefillTps: 100, decodeTps: 40 },
    });
    expect(row.parsed).toEqual({ answer: row.rawText });
    expect(row.cacheKey).toMatch(/^[0-9a-f]{64}$/);
    expect(row.latencyMs).toBeGreaterThan(0);
    expect(row.turns).toBeUndefined();
    expect(h.store.updates.get('run1')!.map((u) => u.status)).toEqual(['running', 'done']);
    expect(h.store.updates.get('run1')!.at(-1)).toEqual({ status: 'done', error: null, progress: { done: 48, total: 48 } });
  });

  it('records engines and session times in the provenance', async () => {
    const h = harness();
    await h.run();
    const p = h.store.provenance.get('run1') as { startedAt: number; endedAt: number; engines: Record<string, unknown[]> };
    expect(p.startedAt).toBeLessThan(p.endedAt);
    expect(Object.keys(p.engines)).toEqual(['model-a', 'model-b']);
    expect(p.engines['model-a']).toEqual([{ runtime: 'transformers', runtimeVersion: '4.3.1', modelId: 'model-a', device: 'webgpu' }]);
  });

  it('runs models one after another, unloading A before loading B', async () => {
    const h = harness();
    await h.run();
    const gens = (m: string) => Array<string>(24).fill(`generate:${m}`);
    expect(h.engines.log).toEqual(['load:model-a', ...gens('model-a'), 'unload:model-a', 'load:model-b', ...gens('model-b'), 'unload:model-b']);
  });

  it('keeps every model loaded when interleaving', async () => {
    const h = harness({ spec: { ...SPEC, interleave: true } });
    await h.run();
    const log = h.engines.log.filter((e) => !e.startsWith('generate'));
    expect(log).toEqual(['load:model-a', 'load:model-b', 'unload:model-a', 'unload:model-b']);
    expect(h.engines.log.slice(0, 9)).toEqual(['load:model-a', ...Array<string>(6).fill('generate:model-a'), 'load:model-b', 'generate:model-b']);
  });

  it('drops images for text-only and loads transformed images for degraded variants', async () => {
    const images = vi.fn(loadImage);
    const h = harness();
    await h.run({ images });
    const text = (key: string) => h.store.responses.get(`run1/${key}`)!.rawText;
    expect(text('c2#q1|model-a|none|s0')).toContain('images=2');
    expect(text('c2#q1|model-a|text-only|s0')).toContain('images=0');
    expect(text('c2#q1|model-a|degrade:blur:2|s0')).toContain('images=2');
    const variants = new Set(images.mock.calls.map(([, v]) => v));
    expect(variants).toEqual(new Set(['none', 'degrade:blur:2']));
    const key = (k: string) => h.store.responses.get(`run1/${k}`)!.cacheKey;
    expect(key('c2#q1|model-a|none|s0')).not.toBe(key('c2#q1|model-a|degrade:blur:2|s0'));
  });

  it('reports progress per model with its decode speed and the latest answer', async () => {
    const h = harness();
    await h.run();
    expect(h.progress.filter((p) => p.phase === 'loading-model').map((p) => p.modelId)).toEqual(['model-a', 'model-b']);
    const answers = h.progress.filter((p) => p.latest);
    expect(answers).toHaveLength(48);
    expect(answers[23]).toMatchObject({ modelId: 'model-a', model: { done: 24, total: 24 }, overall: { done: 24, total: 48 } });
    expect(answers[24]).toMatchObject({ modelId: 'model-b', model: { done: 1, total: 24 }, overall: { done: 25, total: 48 } });
    expect(answers[0]!.decodeTps).toBeCloseTo(40); // the engine's decode rate, 19 tokens after the first at 40 tokens/s
    expect(h.progress.at(-1)).toMatchObject({ phase: 'finished', overall: { done: 48, total: 48 } });
  });

  it('goes on when a progress listener throws', async () => {
    const h = harness();
    const outcome = await h.run({ onProgress: () => { throw new Error('UI gone'); } });
    expect(outcome.status).toBe('done');
  });
});

describe('runRun: multi-turn', () => {
  const kase: BenchCase = {
    id: 'mt', taskFamily: 'multi-turn', images: [{ path: 'a.png', sha256: 'img-a' }, { path: 'b.png', sha256: 'img-b' }],
    questions: [{ id: 'q1', text: 'What do you see?', followUps: [{ id: 'f1', text: 'New scan: now?', images: [1] }, { id: 'f2', text: 'Final diagnosis?' }] }],
  };
  const multi: RunProtocol = {
    ...protocol,
    buildRequest: (c, q) => [imagesThenText([refOf(c, 0)], q.text)],
    turns: (c, q) =>
      (q.followUps ?? []).map((f) => ({
        id: f.id,
        turn: imagesThenText((f.images ?? []).map((i) => refOf(c, i)), f.text),
        ...(f.id === 'f2' ? { parse: (raw: string) => ({ ok: true as const, value: { final: raw.length } }) } : {}),
      })),
  };

  it('asks each turn in sequence and stores every turn in one response', async () => {
    const requests: { roles: string[]; images: number[] }[] = [];
    const h = harness({
      spec: { benchmarkId: 'b', models: [{ id: 'm', filesHash: 'f' }], variants: ['none', 'text-only'], sampling: SAMPLING },
      cases: [kase],
      responder: (req) => {
        requests.push({ roles: req.messages.map((m) => m.role), images: req.messages.map((m) => turnImages(m).length) });
        return { text: `answer ${requests.length}`, finishReason: 'stop', usage: { promptTokens: 5, completionTokens: 7, ttftMs: 3, prefillTps: null, decodeTps: 10, totalMs: 100 } };
      },
    });
    const progress: (number | null)[] = [];
    const outcome = await h.run({ protocol: multi, onProgress: (p) => p.latest && progress.push(p.decodeTps) });
    expect(outcome.status).toBe('done');
    // Decode speed, not tokens over the whole call: 6 tokens after each turn's first at 10 tokens/s (21 tokens in 0.3 s of calls would read 70).
    expect(progress[0]).toBeCloseTo(10);
    expect(requests.slice(0, 3)).toEqual([
      { roles: ['user'], images: [1] },
      { roles: ['user', 'assistant', 'user'], images: [1, 0, 1] },
      { roles: ['user', 'assistant', 'user', 'assistant', 'user'], images: [1, 0, 1, 0, 0] },
    ]);
    expect(requests[3]!.images).toEqual([0]); // text-only
    const row = h.store.responses.get('run1/mt#q1|m|none|s0')!;
    expect(row.turns!.map((t) => [t.id, t.rawText])).toEqual([['initial', 'answer 1'], ['f1', 'answer 2'], ['f2', 'answer 3']]);
    expect(row.rawText).toBe('answer 3');
    expect(row.parsed).toEqual({ final: 8 });
    expect(row.turns![0]!.parsed).toEqual({ answer: 'answer 1' });
    expect(row.usage).toEqual({ promptTokens: 15, completionTokens: 21, ttftMs: 3, prefillTps: null, decodeTps: 10 });
  });
});

describe('runRun: image parts', () => {
  it('hands the engine the protocol\'s parts in order, each image reference replaced where it stands by that image\'s bytes', async () => {
    const kase = CASES[1]!; // c2: images b, c
    const interleaved: RunProtocol = {
      ...protocol,
      buildRequest: (c, q) => [
        textTurn('system', 'You are a neuroradiologist.'),
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'Example 1 — class: stroke' },
            { type: 'image', image: refOf(c, 1) },
            { type: 'text', text: 'Example 2 — class: tumor' },
            { type: 'image', image: refOf(c, 0) },
            { type: 'text', text: q.text },
          ],
        },
      ],
    };
    const requests: GenerateRequest[] = [];
    const h = harness({
      spec: { benchmarkId: 'b', models: [{ id: 'm', filesHash: 'f' }], variants: ['none', 'degrade:blur:2', 'text-only'], sampling: SAMPLING },
      cases: [kase],
      responder: (req) => {
        requests.push(req);
        return answer('answer');
      },
    });
    expect((await h.run({ protocol: interleaved })).status).toBe('done');
    expect(requests).toHaveLength(3);

    const bytesOf = async (index: number, variant: Variant) => {
      const img = await loadImage(kase.images[index]!.sha256!, variant);
      return { bytes: img.bytes, mime: img.mime };
    };
    for (const [i, item] of h.plan.items.entries()) {
      const sent = requests[i]!;
      expect(sent.messages[0]).toEqual(textTurn('system', 'You are a neuroradiologist.'));
      expect(sent.messages).toHaveLength(2);
      const user = sent.messages[1]!;
      expect(user.role).toBe('user');
      if (item.variant === 'text-only') {
        // The ablation keeps every text part in its place and drops the images.
        expect(user.parts).toEqual([
          { type: 'text', text: 'Example 1 — class: stroke' },
          { type: 'text', text: 'Example 2 — class: tumor' },
          { type: 'text', text: 'Diagnosis?' },
        ]);
        continue;
      }
      expect(user.parts).toEqual([
        { type: 'text', text: 'Example 1 — class: stroke' },
        { type: 'image', image: await bytesOf(1, item.variant) },
        { type: 'text', text: 'Example 2 — class: tumor' },
        { type: 'image', image: await bytesOf(0, item.variant) },
        { type: 'text', text: 'Diagnosis?' },
      ]);
    }
    expect(h.plan.items.map((i) => i.variant).sort()).toEqual(['degrade:blur:2', 'none', 'text-only']);
  });
});

describe('runRun: plan data', () => {
  it('keeps the benchmark order of the plan and the base seed plus sample index', async () => {
    const h = harness();
    await h.run();
    expect(h.saved).toEqual(h.plan.items.map((i) => i.itemKey));
    expect(h.store.responses.get('run1/c3#q1|model-b|none|s1')!.rawText).toContain('seed=43');
  });
});
