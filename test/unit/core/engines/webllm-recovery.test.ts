/** The model offered after a GPU device loss. */
import { describe, expect, it } from 'vitest';
import { CATALOGUE, type CatalogueEntry, type MachineFacts } from '../../../../src/core/engines/catalogue.ts';
import { smallerAlternative } from '../../../../src/core/engines/webllm/recovery.ts';

const GB = 1024 ** 3;
const f16Gpu: MachineFacts = { webgpu: true, shaderF16: true, maxBufferSize: GB, maxStorageBufferBindingSize: GB, storageFreeBytes: 20 * GB };
const swiftshader: MachineFacts = { ...f16Gpu, shaderF16: false };

const byId = (id: string): CatalogueEntry => {
  const e = CATALOGUE.models.find((m) => m.id === id);
  if (!e) throw new Error(id);
  return e;
};

function entry(id: string, more: Partial<CatalogueEntry>): CatalogueEntry {
  return {
    id,
    label: id,
    runtime: 'webllm',
    modelId: id,
    task: 'image-text-to-text',
    parameters: '1 B',
    quantisation: 'q4f32_1',
    downloadBytes: 1e9,
    vramMB: 2000,
    needsShaderF16: false,
    images: true,
    contextLength: 4096,
    licence: 'MIT',
    sources: [],
    ...more,
  };
}

describe('smallerAlternative', () => {
  it('offers the smallest model of the same task that fits, never the self-test model', () => {
    // Phi-3.5-vision q4f32 (7 GB) lost the device: the smallest image model that fits an f16 GPU.
    expect(smallerAlternative(byId('phi-3.5-vision-q4f32'), CATALOGUE, f16Gpu)?.id).toBe('smolvlm-256m-q4f16');
    // Without shader-f16 the f16 candidates drop out.
    expect(smallerAlternative(byId('phi-3.5-vision-q4f32'), CATALOGUE, swiftshader)?.id).toBe('smolvlm-256m');
    expect(smallerAlternative(byId('phi-3.5-vision-q4f16'), CATALOGUE, f16Gpu)?.selfTest).toBeUndefined();
  });

  it('keeps the task: a text judge is replaced by a text model only', () => {
    expect(smallerAlternative(byId('smollm2-360m-q4f32'), CATALOGUE, f16Gpu)).toBeNull();
    const catalogue = { models: [byId('smollm2-360m-q4f32'), entry('tiny-judge', { task: 'text-generation', images: false, vramMB: 300 }), entry('tiny-vlm', { vramMB: 100 })] };
    expect(smallerAlternative(byId('smollm2-360m-q4f32'), catalogue, f16Gpu)?.id).toBe('tiny-judge');
  });

  it('only offers models that need less GPU memory than the one that failed', () => {
    const catalogue = { models: [entry('failed', { vramMB: 1000 }), entry('same', { vramMB: 1000 }), entry('bigger', { vramMB: 3000 })] };
    expect(smallerAlternative(catalogue.models[0]!, catalogue, f16Gpu)).toBeNull();
  });

  it('skips candidates that do not fit (storage, WebGPU) and breaks ties by download size, then id', () => {
    const failed = entry('failed', { vramMB: 5000 });
    const catalogue = {
      models: [
        failed,
        entry('huge-download', { vramMB: 500, downloadBytes: 50 * GB }),
        entry('b', { vramMB: 1000, downloadBytes: 2e9 }),
        entry('a', { vramMB: 1000, downloadBytes: 2e9 }),
        entry('c', { vramMB: 1000, downloadBytes: 1e9 }),
      ],
    };
    expect(smallerAlternative(failed, catalogue, f16Gpu)?.id).toBe('c');
    expect(smallerAlternative(failed, { models: catalogue.models.filter((m) => m.id !== 'c') }, f16Gpu)?.id).toBe('a');
    // No WebGPU at all: no WebLLM candidate fits; a transformers.js one (WASM) still does.
    const noGpu: MachineFacts = { ...f16Gpu, webgpu: false };
    expect(smallerAlternative(failed, catalogue, noGpu)).toBeNull();
    expect(smallerAlternative(failed, { models: [...catalogue.models, entry('wasm-vlm', { runtime: 'transformers', vramMB: 4000 })] }, noGpu)?.id).toBe('wasm-vlm');
  });

  it('an image model is only replaced by one that takes images', () => {
    const failed = entry('failed', { vramMB: 5000 });
    expect(smallerAlternative(failed, { models: [failed, entry('blind', { images: false, vramMB: 100 })] }, f16Gpu)).toBeNull();
  });
});
