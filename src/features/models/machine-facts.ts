import { describeGpu } from '../../core/env/gpu.ts';
import type { MachineFacts } from '../../core/engines/catalogue.ts';

/** This browser's GPU, storage and memory, for the catalogue's fit check. */
export async function readMachineFacts(): Promise<MachineFacts> {
  const { facts } = await describeGpu('gpu' in navigator ? navigator.gpu : undefined);
  const est = await navigator.storage?.estimate?.().catch(() => undefined);
  const mem = (navigator as Navigator & { deviceMemory?: number }).deviceMemory;
  return {
    webgpu: facts.available,
    shaderF16: facts.features.includes('shader-f16'),
    maxBufferSize: facts.limits.maxBufferSize ?? 0,
    maxStorageBufferBindingSize: facts.limits.maxStorageBufferBindingSize ?? 0,
    ...(est?.quota !== undefined ? { storageFreeBytes: est.quota - (est.usage ?? 0) } : {}),
    ...(mem !== undefined ? { deviceMemoryGB: mem } : {}),
  };
}
