/** Provenance: built from inputs, patched by sessions, described for the UI. */
import { describe, expect, it } from 'vitest';
import { modelFilesHash } from '../../../../src/core/runner/cache-key.ts';
import { applyProvenancePatch, buildProvenance, describeProvenance, isProvenance, type ProvenanceInputs } from '../../../../src/core/runner/provenance.ts';

const INPUTS: ProvenanceInputs = {
  app: { version: '0.1.0', commit: 'abc1234' },
  runtimes: { 'transformers.js': '4.3.1', 'onnxruntime-web': '1.31.0' },
  environment: {
    userAgent: 'Mozilla/5.0 Test',
    crossOriginIsolated: true,
    wasmThreads: 4,
    adapter: { vendor: 'nvidia', architecture: 'hopper', description: 'H200', features: ['shader-f16', 'float32-filterable'] },
  },
  models: [{ id: 'qwen2-vl-2b', label: 'Qwen2-VL 2B', runtime: 'webllm', quantization: 'q4f16_1', files: [{ name: 'b.bin', sha256: '2' }, { name: 'a.json', sha256: '1' }] }],
  protocol: { id: 'mcq', version: '3', templateHashes: { system: 'a'.repeat(64), user: 'b'.repeat(64) } },
  sampling: { temperature: 0, topP: 1, seed: 7, maxTokens: 256 },
  samples: 3,
  variants: ['none', 'degrade:noise:2'],
  benchmark: { id: 'neurovlm', contentHash: 'c'.repeat(64), name: 'NeuroVLM-Bench', version: '1.0' },
  selection: { splits: ['test'], caseIds: ['c1', 'c2'] },
  startedAt: 1_700_000_000_000,
};

describe('provenance', () => {
  it('copies the inputs into a versioned record', () => {
    const p = buildProvenance(INPUTS);
    expect(isProvenance(p)).toBe(true);
    expect(isProvenance({})).toBe(false);
    expect(p.models[0]).toEqual({
      id: 'qwen2-vl-2b', label: 'Qwen2-VL 2B', runtime: 'webllm', quantization: 'q4f16_1',
      files: INPUTS.models[0]!.files, filesHash: modelFilesHash(INPUTS.models[0]!.files),
    });
    expect(p.environment.adapter!.features).toEqual(['float32-filterable', 'shader-f16']);
    expect(p).toMatchObject({ engines: {}, startedAt: 1_700_000_000_000, endedAt: null, samples: 3 });
    expect(p.sampling).not.toBe(INPUTS.sampling);
    expect(structuredClone(p)).toEqual(p);
  });

  it('defaults unknown environment facts', () => {
    const p = buildProvenance({ ...INPUTS, runtimes: undefined, environment: { userAgent: '', crossOriginIsolated: false }, selection: undefined, startedAt: undefined });
    expect(p.environment).toEqual({ userAgent: '', crossOriginIsolated: false, wasmThreads: null, adapter: null });
    expect(p).toMatchObject({ runtimes: {}, selection: null, startedAt: null });
  });

  it('merges session facts: first start, last end, each distinct engine once', () => {
    const info = { runtime: 'webllm' as const, runtimeVersion: '0.2.86', modelId: 'Qwen2-VL', device: 'webgpu' };
    let p: unknown = buildProvenance({ ...INPUTS, startedAt: null });
    p = applyProvenancePatch(p, { startedAt: 10 });
    p = applyProvenancePatch(p, { engine: { modelId: 'qwen2-vl-2b', info } });
    p = applyProvenancePatch(p, { endedAt: 20 });
    p = applyProvenancePatch(p, { startedAt: 30 });
    p = applyProvenancePatch(p, { engine: { modelId: 'qwen2-vl-2b', info: { ...info } } });
    p = applyProvenancePatch(p, { engine: { modelId: 'qwen2-vl-2b', info: { ...info, runtimeVersion: '0.2.87' } } });
    p = applyProvenancePatch(p, { endedAt: 40 });
    expect(isProvenance(p)).toBe(true);
    expect(p).toMatchObject({ startedAt: 10, endedAt: 40 });
    expect((p as { engines: Record<string, unknown[]> }).engines['qwen2-vl-2b']).toHaveLength(2);
    expect(applyProvenancePatch(null, { endedAt: 5 })).toEqual({ endedAt: 5 });
  });

  it('describes itself as label/value rows', () => {
    const p = applyProvenancePatch(buildProvenance(INPUTS), {
      endedAt: 1_700_000_360_000,
      engine: { modelId: 'qwen2-vl-2b', info: { runtime: 'webllm', runtimeVersion: '0.2.86', modelId: 'Qwen2-VL', device: 'webgpu' } },
    });
    if (!isProvenance(p)) throw new Error('not provenance');
    const rows = Object.fromEntries(describeProvenance(p).map((r) => [r.label, r.value]));
    expect(rows).toMatchObject({
      App: '0.1.0 (abc1234)',
      Benchmark: 'NeuroVLM-Bench v1.0 · content cccccccccccc',
      Cases: 'split test · 2 chosen cases',
      Protocol: 'Multiple choice (VLMEvalKit style), version 3',
      'Prompt templates': 'system aaaaaaaaaaaa, user bbbbbbbbbbbb',
      'Model Qwen2-VL 2B': `webllm · q4f16_1 · weights ${modelFilesHash(INPUTS.models[0]!.files).slice(0, 12)}`,
      'Engine Qwen2-VL 2B': 'webllm 0.2.86 on webgpu (Qwen2-VL)',
      Runtimes: 'onnxruntime-web 1.31.0, transformers.js 4.3.1',
      Sampling: 'temperature 0 · top-p 1 · max 256 tokens · seed 7 (+ sample index)',
      'Samples per item': '3',
      Variants: 'original images; noise, level 2 of 3',
      GPU: 'WebGPU: nvidia · hopper · H200, 2 features',
      'WASM threads': '4',
      'Cross-origin isolated': 'yes',
      Started: '2023-11-14T22:13:20.000Z',
      Ended: '2023-11-14T22:19:20.000Z',
      'Start to end': '6 min',
      Browser: 'Mozilla/5.0 Test',
    });
    const bare = describeProvenance(buildProvenance({ ...INPUTS, environment: { userAgent: '', crossOriginIsolated: false }, selection: null }));
    expect(Object.fromEntries(bare.map((r) => [r.label, r.value]))).toMatchObject({ GPU: 'none (no WebGPU)', Cases: 'all', Ended: '—' });
    expect(bare.some((r) => r.label === 'Start to end')).toBe(false);
  });

  it('lists the GPU features behind a summary, names a software adapter, and reads times as asked', () => {
    const adapter = { vendor: 'google', architecture: 'swiftshader', description: 'SwiftShader Device (Subzero)', isFallbackAdapter: false, features: ['bgra8unorm-storage', 'float32-filterable', 'timestamp-query'] };
    const p = applyProvenancePatch(buildProvenance({ ...INPUTS, startedAt: 0, environment: { ...INPUTS.environment, adapter } }), { endedAt: 3_725_000 });
    if (!isProvenance(p)) throw new Error('not provenance');
    const gpu = describeProvenance(p).find((r) => r.label === 'GPU')!;
    expect(gpu.value).toBe('WebGPU: google · swiftshader · SwiftShader Device (Subzero) (software), 3 features');
    expect(gpu.details).toEqual(adapter.features);
    const rows = Object.fromEntries(describeProvenance(p, { time: (t) => `at ${t}` }).map((r) => [r.label, r.value]));
    expect(rows).toMatchObject({ Started: 'at 0', Ended: 'at 3725000', 'Start to end': '1 h 2 min' });
  });
});
