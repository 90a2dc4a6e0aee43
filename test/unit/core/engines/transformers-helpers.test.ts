import { describe, expect, it } from 'vitest';
import { GenerationMeter } from '../../../../src/core/engines/transformers/generation-meter.ts';
import { applyModelSource, type TransformersRuntime } from '../../../../src/core/engines/transformers/runtime.ts';
import { topPFilter } from '../../../../src/core/engines/transformers/sampling.ts';

describe('topPFilter', () => {
  const logits = () => Float32Array.from([Math.log(0.5), Math.log(0.3), Math.log(0.15), Math.log(0.05)]);

  it('keeps the smallest set of most likely tokens reaching top-p', () => {
    const row = logits();
    topPFilter(row, 0.75);
    expect(Array.from(row.slice(0, 2))).toEqual(Array.from(logits().slice(0, 2)));
    expect(Array.from(row.slice(2))).toEqual([-Infinity, -Infinity]);
  });

  it('always keeps the most likely token, and changes nothing at top-p 1', () => {
    const tiny = logits();
    topPFilter(tiny, 0.01);
    expect(tiny.filter((v) => v > -Infinity)).toHaveLength(1);
    const all = logits();
    topPFilter(all, 1);
    expect(all).toEqual(logits());
  });

  it('works on unsorted logits and with ties broken by index', () => {
    const row = Float32Array.from([0, 2, 2, -1]); // probabilities ≈ 0.06, 0.46, 0.46, 0.02
    topPFilter(row, 0.4);
    expect(Array.from(row)).toEqual([-Infinity, 2, -Infinity, -Infinity]);
    const two = Float32Array.from([0, 2, 2, -1]);
    topPFilter(two, 0.5);
    expect(Array.from(two)).toEqual([-Infinity, 2, 2, -Infinity]);
  });
});

describe('GenerationMeter', () => {
  it('derives time to first token and prefill and decode speeds from token times', () => {
    const times = [1000, 1010, 1110, 1120, 1130, 1140, 1150];
    let i = 0;
    const meter = new GenerationMeter(() => times[i++]!);
    meter.modelStarted(50); // t = 1010
    meter.token(); // 1110: first token after 100 ms of prefill
    meter.token();
    meter.token();
    meter.token(); // 1140
    expect(meter.usage()).toEqual({
      promptTokens: 50,
      completionTokens: 4,
      ttftMs: 110,
      prefillTps: 500,
      decodeTps: 100,
      totalMs: 150,
    });
  });

  it('reports nulls for what it could not measure', () => {
    let t = 0;
    const meter = new GenerationMeter(() => (t += 5));
    expect(meter.usage()).toEqual({ promptTokens: 0, completionTokens: 0, ttftMs: null, prefillTps: null, decodeTps: null, totalMs: 5 });
  });
});

describe('applyModelSource', () => {
  const fakeRuntime = () => {
    const env = { allowLocalModels: false, allowRemoteModels: true, localModelPath: '', remoteHost: 'https://huggingface.co/', remotePathTemplate: '' };
    return { env, runtime: { lib: { env } } as unknown as TransformersRuntime };
  };

  it('serves a URL folder through the remote loader, files directly under it', () => {
    const { env, runtime } = fakeRuntime();
    expect(applyModelSource(runtime, { kind: 'folder', location: 'https://host.local/app/models/self-test/' })).toEqual({ modelId: 'self-test', revision: 'main' });
    expect(env).toMatchObject({ allowLocalModels: false, allowRemoteModels: true, remoteHost: 'https://host.local/app/models/', remotePathTemplate: '{model}/' });
  });

  it('reads a directory path (Node) with remote loading off', () => {
    const { env, runtime } = fakeRuntime();
    expect(applyModelSource(runtime, { kind: 'folder', location: '/srv/neuroeval/public/models/self-test' }).modelId).toBe('self-test');
    expect(env).toMatchObject({ allowLocalModels: true, allowRemoteModels: false, localModelPath: '/srv/neuroeval/public/models/' });
  });

  it('uses the Hugging Face layout for an on-prem mirror', () => {
    const { env, runtime } = fakeRuntime();
    const id = applyModelSource(runtime, { kind: 'mirror', host: 'https://hf-mirror.hospital.local', modelId: 'HuggingFaceTB/SmolVLM-256M-Instruct', revision: 'v1' });
    expect(id).toEqual({ modelId: 'HuggingFaceTB/SmolVLM-256M-Instruct', revision: 'v1' });
    expect(env).toMatchObject({ allowLocalModels: false, allowRemoteModels: true, remoteHost: 'https://hf-mirror.hospital.local/', remotePathTemplate: '{model}/resolve/{revision}/' });
  });

  it('refuses a location that names no model folder', () => {
    const { runtime } = fakeRuntime();
    expect(() => applyModelSource(runtime, { kind: 'folder', location: 'self-test' })).toThrow(/not a model folder/);
    expect(() => applyModelSource(runtime, { kind: 'folder', location: 'https://host/models/a b/' })).toThrow(/not a model folder/);
  });
});
