/**
 * The transformers client starts a fresh worker for each new generating
 * model: a WebAssembly heap never shrinks, and in Chromium SmolVLM-2.2B's
 * load never finished in a worker that had held SmolVLM-256M (each loads
 * alone; docs/BENCHMARKS.md, real-size suite). A fake worker client stands
 * in for the worker and counts the workers started.
 */
import { describe, expect, it } from 'vitest';
import type { TransformersApi, TransformersInfo, TransformersLoadInput } from '../../../../workers/transformers.worker.ts';
import { needsFreshWorker, WorkerEngine } from '../../../../src/lib/engines/transformers-client.ts';
import type { WorkerClient } from '../../../../src/core/rpc/worker-client.ts';

/** A worker client whose "worker" remembers the models loaded in it; `workers` counts the workers started. */
function fakeClient() {
  let worker: { models: string[] } | null = null;
  let pending = 0;
  const state = { workers: 0, terminated: 0, loadsByWorker: [] as string[][] };
  const start = () => {
    if (!worker) {
      worker = { models: [] };
      state.workers++;
      state.loadsByWorker.push(worker.models);
    }
    return worker;
  };
  const info = (input: TransformersLoadInput) => ({ modelId: input.modelId ?? 'm', runtime: 'transformers' }) as unknown as TransformersInfo;
  const client = {
    get running() {
      return worker !== null;
    },
    get pending() {
      return pending;
    },
    terminate() {
      worker = null;
      state.terminated++;
    },
    api: {
      load: async (input: TransformersLoadInput) => {
        start().models.push(input.modelId ?? '?');
        return info(input);
      },
      generate: async (input: { model?: TransformersLoadInput }) => {
        const w = start();
        if (input.model && w.models.at(-1) !== input.model.modelId) w.models.push(input.model.modelId ?? '?');
        return { text: 'ok', finishReason: 'stop', usage: {} };
      },
      unload: async () => {},
    },
  };
  return { client: client as unknown as WorkerClient<TransformersApi>, state, hold: () => pending++, release: () => pending-- };
}

const model = (modelId: string, task?: TransformersLoadInput['task']): TransformersLoadInput => ({ source: { kind: 'folder', location: `http://127.0.0.1/models/${modelId}/` }, device: 'wasm', modelId, ...(task ? { task } : {}) });
const request = { messages: [], sampling: { temperature: 0, topP: 1, seed: 0, maxTokens: 4 } };

describe('one worker per generating model', () => {
  it('loads a second, different generating model in a new worker, and the same model again in the same one', async () => {
    const { client, state } = fakeClient();
    const small = new WorkerEngine(model('smolvlm-256m'), client);
    const large = new WorkerEngine(model('smolvlm-2.2b'), client);
    await small.load();
    await small.load();
    expect(state.workers).toBe(1);
    await large.load();
    expect(state.workers).toBe(2);
    expect(state.loadsByWorker).toEqual([['smolvlm-256m', 'smolvlm-256m'], ['smolvlm-2.2b']]);
  });

  it('keeps the worker for an encoder beside the generator, and while calls are in flight', async () => {
    const { client, state, hold, release } = fakeClient();
    await new WorkerEngine(model('smolvlm-256m'), client).load();
    await new WorkerEngine(model('minilm', 'feature-extraction'), client).load();
    expect(state.workers).toBe(1);
    hold();
    expect(needsFreshWorker(client, model('smolvlm-2.2b'))).toBe(false);
    release();
    expect(needsFreshWorker(client, model('smolvlm-2.2b'))).toBe(true);
    expect(needsFreshWorker(client, model('smolvlm-256m'))).toBe(false);
    // The same folder on another device is another model in the heap.
    expect(needsFreshWorker(client, { ...model('smolvlm-256m'), device: 'webgpu' })).toBe(true);
  });

  it('applies the same rule when a generate names a model other than the one the worker holds', async () => {
    const { client, state } = fakeClient();
    const a = new WorkerEngine(model('smolvlm-256m'), client);
    const b = new WorkerEngine(model('smolvlm-2.2b'), client);
    await a.load();
    await b.load();
    expect(state.workers).toBe(2);
    // Engine a generates after b loaded: its model goes into a fresh worker, not into b's heap.
    await a.generate(request);
    expect(state.workers).toBe(3);
    expect(state.loadsByWorker.at(-1)).toEqual(['smolvlm-256m']);
    await a.generate(request);
    expect(state.workers).toBe(3);
  });

  it('starts clean after the worker stopped on its own (idle or crashed)', async () => {
    const { client, state } = fakeClient();
    await new WorkerEngine(model('smolvlm-256m'), client).load();
    client.terminate();
    await new WorkerEngine(model('smolvlm-2.2b'), client).load();
    // The stop was the idle timer's, not a replacement: one worker after it, no extra one.
    expect(state.workers).toBe(2);
    expect(state.terminated).toBe(1);
  });
});
