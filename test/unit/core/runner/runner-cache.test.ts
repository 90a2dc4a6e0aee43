/** Reusing identical answers across runs. */
import { describe, expect, it } from 'vitest';
import { memoryRunStore } from '../../../../src/core/runner/memory-store.ts';
import type { RunModel } from '../../../../src/core/runner/types.ts';
import { SPEC, answer, protocol } from './fixtures.ts';
import { harness } from './harness.ts';

const declared: RunModel[] = [
  { id: 'model-a', filesHash: 'files-a', runtime: 'transformers', runtimeVersion: '4.3.1' },
  { id: 'model-b', filesHash: 'files-b', runtime: 'transformers', runtimeVersion: '4.3.1' },
];

describe('cache reuse', () => {
  it('answers an identical run from the cache without generating', async () => {
    const store = memoryRunStore();
    const first = harness({ store });
    await first.run();
    const second = harness({ store });
    const outcome = await second.run({ runId: 'run2' });
    expect(outcome).toMatchObject({ status: 'done', generated: 0, reused: 48 });
    expect(second.engines.count('generate')).toBe(0);
    const row = store.responses.get('run2/c2#q1|model-b|none|s1')!;
    const source = store.responses.get('run1/c2#q1|model-b|none|s1')!;
    expect(row).toMatchObject({ runId: 'run2', reusedFrom: source.id, rawText: source.rawText, parsed: source.parsed, cacheKey: source.cacheKey });
  });

  it('does not even load the model when its runtime is declared in the plan', async () => {
    const store = memoryRunStore();
    await harness({ store, spec: { ...SPEC, models: declared } }).run();
    const second = harness({ store, spec: { ...SPEC, models: declared } });
    expect((await second.run({ runId: 'run2' })).reused).toBe(48);
    expect(second.engines.log).toEqual([]);
  });

  it('generates again with force', async () => {
    const store = memoryRunStore();
    await harness({ store }).run();
    const second = harness({ store });
    expect(await second.run({ runId: 'run2', force: true })).toMatchObject({ generated: 48, reused: 0 });
  });

  it('never reuses for a model of unknown weights', async () => {
    const spec = { ...SPEC, models: [{ id: 'endpoint', filesHash: '' }] };
    const store = memoryRunStore();
    await harness({ store, spec }).run();
    expect((await harness({ store, spec }).run({ runId: 'run2' })).reused).toBe(0);
  });

  it('does not reuse failed or empty answers', async () => {
    const store = memoryRunStore();
    const flaky = harness({ store, responder: (req) => (req.sampling.seed === 42 ? answer('answer') : answer('', 'stop')) });
    await flaky.run();
    const second = harness({ store });
    expect(await second.run({ runId: 'run2' })).toMatchObject({ reused: 24, generated: 24 });
  });

  it('reuses nothing when sampling or the protocol version change', async () => {
    const store = memoryRunStore();
    await harness({ store }).run();
    const hotter = harness({ store, spec: { ...SPEC, sampling: { ...SPEC.sampling, temperature: 1 } } });
    expect((await hotter.run({ runId: 'run2' })).reused).toBe(0);
    const revised = harness({ store });
    expect((await revised.run({ runId: 'run3', protocol: { ...protocol, version: '2' } })).reused).toBe(0);
  });
});
