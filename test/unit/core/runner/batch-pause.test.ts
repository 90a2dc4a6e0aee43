/**
 * A pause during a batch: a batch of greedy answers can take minutes, so a
 * pause stops it at once. Answers the engine finished are kept; the others
 * are not stored and are asked again on resume, each item stored once.
 */
import { describe, expect, it } from 'vitest';
import type { BatchOptions, GenerateRequest, GenerateResult } from '../../../../src/core/engines/engine.ts';
import { RunController } from '../../../../src/core/runner/control.ts';
import { FakeEngine, SPEC, defaultResponder, expectOnePerItem } from './fixtures.ts';
import { harness } from './harness.ts';

/** An engine that decodes 4 greedy requests together: the first finishes at once, the others only when stopped. */
class BatchingEngine extends FakeEngine {
  batches = 0;
  async batchLimit(): Promise<number> {
    return 4;
  }
  async generateBatch(requests: readonly GenerateRequest[], options: BatchOptions = {}): Promise<GenerateResult[]> {
    this.batches++;
    const first = await defaultResponder(requests[0]!, this.modelId, options.signal);
    options.onResult?.(0, first);
    await new Promise<void>((resolve) => {
      if (options.signal?.aborted) resolve();
      options.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    const stopped = (r: GenerateRequest): GenerateResult => ({ ...first, text: `cut ${r.messages.length}`, finishReason: 'abort' });
    const rest = requests.slice(1).map(stopped);
    rest.forEach((r, i) => options.onResult?.(i + 1, r));
    return [first, ...rest];
  }
}

describe('a pause during a batch', () => {
  it('stops the batch at once, keeps its finished answers, and asks the others again on resume', async () => {
    const greedy = { ...SPEC, samples: 1, variants: ['none' as const], sampling: { ...SPEC.sampling, temperature: 0 } };
    const h = harness({ spec: greedy });
    const engines: BatchingEngine[] = [];
    const engineFor = (modelId: string) => {
      const e = new BatchingEngine(modelId, h.engines.log);
      engines.push(e);
      return e;
    };
    const control = new RunController();
    setTimeout(() => control.pause(), 50);
    const first = await h.run({ engineFor, control });
    expect(first.status).toBe('paused');
    // Only the answer the engine finished was stored; none of the stopped ones.
    expect(h.saved).toHaveLength(1);
    expect([...h.store.responses.values()].every((r) => r.finishReason === 'stop' && !r.rawText.startsWith('cut'))).toBe(true);

    // On resume every item is answered once; the stopped ones were asked again (the engine stops nothing now: resolve at once).
    const resumed = await h.run({ engineFor: (modelId) => new FakeEngine(modelId, h.engines.log) });
    expect(resumed.status).toBe('done');
    expectOnePerItem(h.store.responses.values(), 'run1', h.plan.items.map((i) => i.itemKey));
    expect(new Set(h.saved).size).toBe(h.saved.length);
    expect(engines.reduce((n, e) => n + e.batches, 0)).toBe(1);
  });
});
