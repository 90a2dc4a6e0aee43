/**
 * Gathers the facts behind the environment check from browser APIs. The
 * main-thread adapter query is quick; the worker compute test is slower and
 * fills in afterwards.
 */
import { probeWorker } from '../../lib/workers/clients.ts';
import { describeGpu, type GpuFacts } from '../../core/env/gpu.ts';
import type { EnvironmentFacts } from './environment-checks.ts';

/** The main thread's view of WebGPU. */
export async function probeMainThreadGpu(): Promise<GpuFacts> {
  return (await describeGpu('gpu' in navigator ? navigator.gpu : undefined)).facts;
}

/** A tiny module using one SIMD instruction; validates only where SIMD is supported. */
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

export function wasmSimdSupported(): boolean {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

export async function storageEstimate(): Promise<EnvironmentFacts['storage']> {
  if (!navigator.storage?.estimate) return null;
  try {
    const e = await navigator.storage.estimate();
    return { ...(e.quota === undefined ? {} : { quota: e.quota }), ...(e.usage === undefined ? {} : { usage: e.usage }) };
  } catch {
    return null;
  }
}

/** Runs the compute test in the probe worker. */
export async function probeWorkerGpu(signal?: AbortSignal): Promise<EnvironmentFacts['workerGpu']> {
  try {
    const r = await probeWorker.api.probeGpu(undefined, signal ? { signal } : {});
    return {
      computeOk: r.available && r.computeOk,
      ...(r.computeMs === undefined ? {} : { computeMs: r.computeMs }),
      ...(r.reason === undefined ? {} : { reason: r.reason }),
    };
  } catch (error) {
    return { computeOk: false, reason: `The worker test could not run: ${error instanceof Error ? error.message : String(error)}` };
  }
}
