/** Per-item errors, runs that cannot start or go on, and the run lock. */
import { describe, expect, it } from 'vitest';
import { turnText } from '../../../../src/core/chat/turn.ts';
import { EngineError } from '../../../../src/core/engines/errors.ts';
import { RunLockedError, memoryRunLock } from '../../../../src/core/runner/control.ts';
import type { Engine, EngineInfo } from '../../../../src/core/engines/engine.ts';
import type { RunProtocol } from '../../../../src/core/runner/types.ts';
import { SPEC, answer, expectOnePerItem, protocol } from './fixtures.ts';
import { harness } from './harness.ts';

describe('per-item errors', () => {
  it('records a failed item with finishReason error and its message, and goes on', async () => {
    const h = harness({
      responder: (req, modelId) => {
        const last = req.messages.at(-1)!;
        if (turnText(last) === 'Diagnosis?' && req.sampling.seed === 43) throw new Error('out of memory in kernel');
        return answer(`answer ${modelId}`);
      },
    });
    const outcome = await h.run();
    expect(outcome).toMatchObject({ status: 'done', errors: 6, generated: 42 });
    expectOnePerItem(h.store.responses.values(), 'run1', h.plan.items.map((i) => i.itemKey));
    const failed = [...h.store.responses.values()].filter((r) => r.finishReason === 'error');
    expect(failed.every((r) => r.caseId === 'c2' && r.questionId === 'q1' && r.sample === 1)).toBe(true);
    expect(failed[0]).toMatchObject({ rawText: '', parsed: null, parseError: null, error: 'out of memory in kernel' });
    expect(failed[0]!.cacheKey).toMatch(/^[0-9a-f]{64}$/);
  });

  it('records an engine-reported error finish and a parse failure', async () => {
    const h = harness({
      responder: (req) => (req.sampling.seed === 43 ? answer('garbage') : answer('half an answ', 'error')),
    });
    await h.run({ maxConsecutiveErrors: 1000 });
    const rows = [...h.store.responses.values()];
    expect(rows.find((r) => r.sample === 0)).toMatchObject({ finishReason: 'error', rawText: 'half an answ', parsed: null, parseError: null });
    expect(rows.find((r) => r.sample === 0)!.error).toMatch(/engine reported an error/);
    expect(rows.find((r) => r.sample === 1)).toMatchObject({ finishReason: 'stop', parsed: null, parseError: 'no answer', error: null });
  });

  it('keeps the answer when the parser throws, and counts an engine that stops on its own as a failure', async () => {
    const h = harness({ responder: (req) => (req.sampling.seed === 43 ? answer('cut', 'abort') : answer('answer')) });
    const throwing: RunProtocol = { ...protocol, parse: () => { throw new Error('regex blew up'); } };
    const outcome = await h.run({ protocol: throwing, maxConsecutiveErrors: 2 });
    expect(outcome).toMatchObject({ status: 'done', errors: 24 });
    expect(h.store.responses.get('run1/c1#q1|model-a|none|s0')).toMatchObject({
      rawText: 'answer', finishReason: 'stop', parsed: null, parseError: 'The parser failed: regex blew up', error: null,
    });
    expect(h.store.responses.get('run1/c1#q1|model-a|none|s1')).toMatchObject({ finishReason: 'abort', error: 'The engine stopped generating on its own.' });
  });

  it('records a request that cannot be built and goes on without counting it as an engine failure', async () => {
    const broken: RunProtocol = {
      ...protocol,
      buildRequest: (kase, q, ctx) => {
        if (kase.id === 'c3') throw new Error('case has no image');
        return protocol.buildRequest(kase, q, ctx);
      },
    };
    const h = harness();
    const outcome = await h.run({ protocol: broken, maxConsecutiveErrors: 2 });
    expect(outcome).toMatchObject({ status: 'done', errors: 12 });
    const row = h.store.responses.get('run1/c3#q1|model-a|none|s0')!;
    expect(row).toMatchObject({ finishReason: 'error', cacheKey: '', error: 'Could not build the request: case has no image' });
  });

  it('records a missing image as an item error', async () => {
    const h = harness();
    const outcome = await h.run({
      images: async (sha, variant) => {
        if (variant !== 'none') throw new Error(`asset ${sha.slice(0, 6)} missing`);
        return { bytes: new Uint8Array([1]), mime: 'image/png', sha256: sha };
      },
    });
    expect(outcome.status).toBe('done');
    expect(h.store.responses.get('run1/c1#q1|model-a|degrade:blur:2|s0')!.error).toMatch(/Could not build the request: asset .* missing/);
    expect(h.store.responses.get('run1/c3#q1|model-a|degrade:blur:2|s0')!.finishReason).toBe('stop'); // no images to load
  });

  it('pauses after too many engine failures in a row', async () => {
    const h = harness({ responder: () => { throw new Error('bad kernel'); } });
    const outcome = await h.run();
    expect(outcome.status).toBe('paused');
    expect(outcome.error).toBe('Paused after 5 failed answers in a row; the last: bad kernel');
    expect(h.store.responses.size).toBe(5);
  });

  it('pauses when the worker crashed or the server is unreachable, storing nothing for that item', async () => {
    for (const err of [
      Object.assign(new Error('The transformers worker stopped unexpectedly'), { code: 'WORKER_CRASHED' }),
      new EngineError('ENGINE_UNREACHABLE', 'Server not reachable'),
    ]) {
      const h = harness({ responder: () => { throw err; } });
      expect((await h.run()).status).toBe('paused');
      expect(h.store.responses.size).toBe(0);
    }
  });
});

describe('models that cannot be used', () => {
  const engineWith = (load: () => Promise<EngineInfo>): Engine => ({
    load,
    generate: async () => answer('x'),
    unload: async () => undefined,
  });

  it('fails the run when a model cannot be loaded', async () => {
    const h = harness();
    const outcome = await h.run({ engineFor: () => engineWith(async () => { throw new Error('weights missing'); }) });
    expect(outcome).toMatchObject({ status: 'failed', error: 'Model model-a could not be loaded: weights missing' });
    expect(h.store.status('run1')).toBe('failed');
    expect(h.store.responses.size).toBe(0);
  });

  it('pauses when the device is lost while loading', async () => {
    const h = harness();
    const outcome = await h.run({ engineFor: () => engineWith(async () => { throw new EngineError('ENGINE_DEVICE_LOST', 'lost'); }) });
    expect(outcome.status).toBe('paused');
    expect(outcome.error).toMatch(/while loading model-a/);
  });

  it('fails when the engine is not the runtime the plan declared', async () => {
    const h = harness({ spec: { ...SPEC, models: [{ id: 'model-a', filesHash: 'f', runtime: 'transformers', runtimeVersion: '9.9.9' }] } });
    const outcome = await h.run();
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/planned for transformers 9\.9\.9 but the engine is transformers 4\.3\.1/);
  });

  it('fails, without losing stored answers, when the store cannot record the status', async () => {
    const h = harness();
    const outcome = await h.run({ store: { ...h.recording, updateRun: async () => { throw new Error('disk full'); } } });
    expect(outcome).toMatchObject({ status: 'failed', error: 'disk full' });
  });
});

describe('the run lock', () => {
  it('refuses a second runner on the same run and leaves the run alone', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const h = harness({ responder: async () => { await gate; return answer('answer'); } });
    const lock = memoryRunLock();
    const first = h.run({ lock });
    while (h.engines.count('generate') === 0) await new Promise((r) => setTimeout(r, 1));
    await expect(h.run({ lock })).rejects.toBeInstanceOf(RunLockedError);
    await expect(h.run({ lock })).rejects.toThrow(/already running in another tab/);
    expect(h.store.updates.get('run1')!.map((u) => u.status)).toEqual(['running']);
    open();
    expect((await first).status).toBe('done');
    // Released at the end, even though the run finished: it may run again.
    expect((await h.run({ lock })).status).toBe('done');
  });

  it('is released when the run fails', async () => {
    const h = harness();
    const lock = memoryRunLock();
    await h.run({ lock, store: { ...h.recording, completedItemKeys: async () => { throw new Error('db closed'); } } });
    expect((await h.run({ lock })).status).toBe('done');
  });
});
