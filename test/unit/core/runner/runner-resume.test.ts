/**
 * Stopping and resuming: a run killed mid-way (store throws, cancel, pause,
 * device lost) and then resumed ends with exactly one answer per planned item,
 * each saved once.
 */
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../../src/core/engines/errors.ts';
import { AbortedError } from '../../../../src/core/errors.ts';
import { RunController } from '../../../../src/core/runner/control.ts';
import { answer, expectOnePerItem, type Responder } from './fixtures.ts';
import { crashingStore, harness } from './harness.ts';

/** Every planned item saved exactly once across all sessions. */
function expectEachSavedOnce(saved: readonly string[], keys: readonly string[]): void {
  expect([...saved].sort()).toEqual([...keys].sort());
}

describe('resume', () => {
  it('after the store fails mid-way, re-asks only the lost answer', async () => {
    const h = harness();
    const keys = h.plan.items.map((i) => i.itemKey);
    const first = await h.run({ store: crashingStore(h.recording, 10) });
    expect(first).toMatchObject({ status: 'failed', error: 'tab killed', progress: { done: 10, total: 48 } });
    expect(h.store.responses.size).toBe(10);
    expect(h.engines.log.at(-1)).toBe('unload:model-a');

    const second = await h.run();
    expect(second).toMatchObject({ status: 'done', progress: { done: 48, total: 48 }, generated: 38 });
    expectOnePerItem(h.store.responses.values(), 'run1', keys);
    expectEachSavedOnce(h.saved, keys);
    // 48 answers plus the one generated but never saved.
    expect(h.engines.count('generate')).toBe(49);
  });

  it('after a cancel (abort after N items), finishes without duplicates', async () => {
    const h = harness();
    const keys = h.plan.items.map((i) => i.itemKey);
    const control = new RunController();
    const first = await h.run({ control, onProgress: (p) => { if (p.latest && p.overall.done === 30) control.cancel(); } });
    expect(first).toMatchObject({ status: 'cancelled', error: null, progress: { done: 30, total: 48 } });
    expect(h.store.status('run1')).toBe('cancelled');
    const second = await h.run();
    expect(second.status).toBe('done');
    expectOnePerItem(h.store.responses.values(), 'run1', keys);
    expectEachSavedOnce(h.saved, keys);
  });

  it('survives many kills at random points', async () => {
    const h = harness();
    const keys = h.plan.items.map((i) => i.itemKey);
    for (const failAfter of [0, 3, 1, 7, 0, 5]) {
      const outcome = await h.run({ store: crashingStore(h.recording, failAfter) });
      expect(outcome.status).toBe('failed');
    }
    expect(h.store.responses.size).toBe(16);
    expect((await h.run()).status).toBe('done');
    expectOnePerItem(h.store.responses.values(), 'run1', keys);
    expectEachSavedOnce(h.saved, keys);
  });

  it('drops an answer cancelled in flight and asks it again on resume', async () => {
    const control = new RunController();
    let calls = 0;
    const responder: Responder = (req, modelId, signal) => {
      if (++calls !== 6) return answer(`answer ${modelId}`);
      control.cancel();
      expect(signal?.aborted).toBe(true);
      return answer('answer, partial', 'abort');
    };
    const h = harness({ responder });
    const first = await h.run({ control });
    expect(first).toMatchObject({ status: 'cancelled', progress: { done: 5 } });
    expect(h.store.responses.size).toBe(5);
    expect([...h.store.responses.values()].some((r) => r.rawText.includes('partial'))).toBe(false);
    expect(h.engines.log.at(-1)).toBe('unload:model-a');

    await h.run();
    expectOnePerItem(h.store.responses.values(), 'run1', h.plan.items.map((i) => i.itemKey));
  });

  it('treats an engine that throws AbortError on cancel the same way', async () => {
    const control = new RunController();
    let calls = 0;
    const h = harness({
      responder: () => {
        if (++calls < 3) return answer('answer');
        control.cancel();
        throw new AbortedError();
      },
    });
    expect(await h.run({ control })).toMatchObject({ status: 'cancelled', error: null, progress: { done: 2 } });
  });

  it('pauses after the current item and resumes to the end', async () => {
    const h = harness();
    const control = new RunController();
    const first = await h.run({ control, onProgress: (p) => { if (p.latest && p.overall.done === 3) control.pause(); } });
    expect(first).toMatchObject({ status: 'paused', error: null, progress: { done: 3, total: 48 } });
    expect(h.store.status('run1')).toBe('paused');
    expect(h.engines.count('generate')).toBe(3);
    expect(h.engines.log.at(-1)).toBe('unload:model-a');

    const second = await h.run({ control: new RunController() });
    expect(second).toMatchObject({ status: 'done', generated: 45 });
    expect(h.engines.count('generate')).toBe(48);
    expectEachSavedOnce(h.saved, h.plan.items.map((i) => i.itemKey));
  });

  it('a pause requested before the first item stores nothing', async () => {
    const h = harness();
    const control = new RunController();
    control.pause();
    expect(await h.run({ control })).toMatchObject({ status: 'paused', progress: { done: 0 } });
    expect(h.engines.log).toEqual([]);
  });

  it('pauses with the reason when the GPU device is lost, then resumes after recovery', async () => {
    let calls = 0;
    let lost = true;
    const h = harness({
      responder: (_req, modelId) => {
        if (lost && ++calls === 4) throw new EngineError('ENGINE_DEVICE_LOST', 'The GPU device was lost.');
        return answer(`answer ${modelId}`);
      },
    });
    const first = await h.run();
    expect(first.status).toBe('paused');
    expect(first.error).toMatch(/model-a stopped working \(The GPU device was lost\.\)/);
    expect(h.store.updates.get('run1')!.at(-1)).toMatchObject({ status: 'paused', error: first.error });
    expect(h.store.responses.size).toBe(3);
    expect(h.engines.log.at(-1)).toBe('unload:model-a');

    lost = false;
    const second = await h.run();
    expect(second).toMatchObject({ status: 'done', error: null });
    expect(h.store.status('run1')).toBe('done');
    expectOnePerItem(h.store.responses.values(), 'run1', h.plan.items.map((i) => i.itemKey));
    expectEachSavedOnce(h.saved, h.plan.items.map((i) => i.itemKey));
  });

  it('recognises a device-lost error rebuilt from a worker message', async () => {
    const crossed = Object.assign(new Error('lost'), { name: 'EngineError', code: 'INTERNAL', engineCode: 'ENGINE_DEVICE_LOST' });
    const h = harness({ responder: () => { throw crossed; } });
    expect((await h.run()).status).toBe('paused');
    expect(h.store.responses.size).toBe(0);
  });

  it('a resumed run that is already complete generates nothing', async () => {
    const h = harness();
    await h.run();
    const again = await h.run();
    expect(again).toMatchObject({ status: 'done', generated: 0, reused: 0, progress: { done: 48, total: 48 } });
    expect(h.engines.count('load')).toBe(2);
  });
});
