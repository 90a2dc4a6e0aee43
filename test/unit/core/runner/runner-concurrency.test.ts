/**
 * Several items in flight (`concurrency`), as for an endpoint that batches
 * requests: answers are stored as they arrive, in any order, each item once,
 * and a stopped run resumes without losing or repeating an answer.
 */
import { describe, expect, it } from 'vitest';
import { turnText } from '../../../../src/core/chat/turn.ts';
import { AbortedError } from '../../../../src/core/errors.ts';
import { RunController } from '../../../../src/core/runner/control.ts';
import { mulberry32 } from '../../../../src/core/random/mulberry32.ts';
import { answer, expectOnePerItem, type Responder } from './fixtures.ts';
import { crashingStore, harness } from './harness.ts';

/** A responder whose answers take a seeded random number of timer turns, so they come back out of order; it counts requests in flight. */
function slowResponder(seed = 1) {
  const delay = mulberry32(seed);
  const state = { inFlight: 0, max: 0, finished: 0 };
  const responder: Responder = async (req, modelId, signal) => {
    state.inFlight++;
    state.max = Math.max(state.max, state.inFlight);
    try {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, Math.floor(delay() * 8));
        signal?.addEventListener('abort', () => {
          clearTimeout(t);
          reject(new AbortedError());
        }, { once: true });
      });
      state.finished++;
      return answer(`answer ${modelId} seed=${req.sampling.seed} ${turnText(req.messages.at(-1)!)}`);
    } finally {
      state.inFlight--;
    }
  };
  return { responder, state };
}

function expectEachSavedOnce(saved: readonly string[], keys: readonly string[]): void {
  expect([...saved].sort()).toEqual([...keys].sort());
}

describe('runner concurrency', () => {
  it('keeps N items in flight and stores every answer once, whatever order they come back in', async () => {
    const slow = slowResponder();
    const h = harness({ responder: slow.responder });
    const keys = h.plan.items.map((i) => i.itemKey);
    const outcome = await h.run({ concurrency: 4 });
    expect(outcome).toMatchObject({ status: 'done', generated: 48, progress: { done: 48, total: 48 } });
    expect(slow.state.max).toBe(4);
    expectOnePerItem(h.store.responses.values(), 'run1', keys);
    expectEachSavedOnce(h.saved, keys);
    expect(h.saved).not.toEqual(keys);
    // Each answer belongs to its own item, not to a neighbour that was in flight beside it.
    for (const row of h.store.responses.values()) expect(row.rawText).toContain(`seed=${h.plan.items.find((i) => i.itemKey === row.itemKey)!.sampling.seed}`);
    // Progress counts every answer once, up to the total.
    const done = h.progress.filter((p) => p.latest).map((p) => p.overall.done);
    expect(done).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
  });

  it('loads each model once and starts the next model only when the current one has answered', async () => {
    const slow = slowResponder(5);
    const h = harness({ responder: slow.responder });
    await h.run({ concurrency: 6 });
    const log = h.engines.log;
    expect(log.filter((e) => e.startsWith('load:'))).toEqual(['load:model-a', 'load:model-b']);
    expect(log.indexOf('unload:model-a')).toBeGreaterThan(log.lastIndexOf('generate:model-a'));
    expect(log.indexOf('load:model-b')).toBeGreaterThan(log.indexOf('unload:model-a'));
  });

  it('with concurrency 1 (the app) asks one item at a time, in plan order', async () => {
    const slow = slowResponder();
    const h = harness({ responder: slow.responder });
    await h.run({ concurrency: 1 });
    expect(slow.state.max).toBe(1);
    expect(h.saved).toEqual(h.plan.items.map((i) => i.itemKey));
  });

  it('after a cancel with items in flight, resumes and ends with each item answered once', async () => {
    const slow = slowResponder(9);
    const h = harness({ responder: slow.responder });
    const keys = h.plan.items.map((i) => i.itemKey);
    const control = new RunController();
    const first = await h.run({ concurrency: 5, control, onProgress: (p) => { if (p.latest && p.overall.done === 20) control.cancel(); } });
    expect(first.status).toBe('cancelled');
    expect(h.store.status('run1')).toBe('cancelled');
    const kept = h.store.responses.size;
    expect(kept).toBeGreaterThanOrEqual(20);
    expect(kept).toBeLessThan(48);

    const second = await h.run({ concurrency: 5 });
    expect(second).toMatchObject({ status: 'done', generated: 48 - kept });
    expectOnePerItem(h.store.responses.values(), 'run1', keys);
    expectEachSavedOnce(h.saved, keys);
  });

  it('on pause, stores the answers already asked for and asks nothing new', async () => {
    const slow = slowResponder(3);
    const h = harness({ responder: slow.responder });
    const control = new RunController();
    const first = await h.run({ concurrency: 4, control, onProgress: (p) => { if (p.latest && p.overall.done === 10) control.pause(); } });
    expect(first.status).toBe('paused');
    // Every answer that came back was stored: none generated and then lost.
    expect(h.store.responses.size).toBe(slow.state.finished);
    expect(h.store.responses.size).toBeLessThanOrEqual(10 + 3);
    expect((await h.run({ concurrency: 4 })).status).toBe('done');
    expectEachSavedOnce(h.saved, h.plan.items.map((i) => i.itemKey));
  });

  it('when the store fails, lets the items in flight settle, ends failed, and writes nothing afterwards', async () => {
    const slow = slowResponder(4);
    const h = harness({ responder: slow.responder });
    const outcome = await h.run({ concurrency: 4, store: crashingStore(h.recording, 12) });
    expect(outcome).toMatchObject({ status: 'failed', error: 'tab killed' });
    const savedAtEnd = h.saved.length;
    await new Promise((r) => setTimeout(r, 30));
    expect(h.saved.length).toBe(savedAtEnd);
    expect(slow.state.inFlight).toBe(0);
    expect((await h.run({ concurrency: 4 })).status).toBe('done');
    expectEachSavedOnce(h.saved, h.plan.items.map((i) => i.itemKey));
  });
});
