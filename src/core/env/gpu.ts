/**
 * What a WebGPU adapter offers, read the same way on the page and in workers
 * (the environment check and the probe worker both use this).
 */

export interface GpuFacts {
  readonly available: boolean;
  /** Why WebGPU is unusable, in words a person can act on. */
  readonly reason?: string;
  readonly vendor?: string;
  readonly architecture?: string;
  readonly description?: string;
  readonly isFallbackAdapter?: boolean;
  readonly features: readonly string[];
  readonly limits: Readonly<Record<string, number>>;
}

/** Limits that decide which models fit (WebLLM and onnxruntime need large storage buffers). */
const KEY_LIMITS = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxStorageBuffersPerShaderStage',
] as const;

const unavailable = (reason: string): GpuFacts => ({ available: false, reason, features: [], limits: {} });

/**
 * Requests the high-performance adapter and describes it.
 * @param gpu `navigator.gpu` of the calling realm, or undefined when absent.
 */
export async function describeGpu(gpu: GPU | undefined, where = 'this browser'): Promise<{ facts: GpuFacts; adapter: GPUAdapter | null }> {
  if (!gpu) return { facts: unavailable(`WebGPU is not available in ${where}`), adapter: null };
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (error) {
    return { facts: unavailable(`WebGPU failed: ${String(error)}`), adapter: null };
  }
  if (!adapter) return { facts: unavailable('No WebGPU adapter (GPU blocklisted or disabled)'), adapter: null };
  const limits: Record<string, number> = {};
  for (const key of KEY_LIMITS) limits[key] = Number(adapter.limits[key]);
  const info = adapter.info;
  return {
    adapter,
    facts: {
      available: true,
      vendor: info.vendor,
      architecture: info.architecture,
      description: info.description,
      isFallbackAdapter: info.isFallbackAdapter,
      features: [...adapter.features].map(String).sort(),
      limits,
    },
  };
}

/** The device in-browser models should run on by default, and why. */
export interface DeviceChoice {
  readonly device: 'webgpu' | 'wasm';
  readonly reason: string;
}

/**
 * WebGPU when there is a real GPU adapter. On a software fallback adapter
 * (SwiftShader and the like, which run WebGPU on the CPU) the WebAssembly
 * backend is far faster for the same model, so WASM is the default there.
 */
export function preferredDevice(facts: GpuFacts): DeviceChoice {
  if (!facts.available) return { device: 'wasm', reason: `WASM (CPU): ${facts.reason ?? 'WebGPU is unavailable'}.` };
  const adapter = facts.architecture || facts.description || facts.vendor || 'unknown adapter';
  if (facts.isFallbackAdapter) {
    return {
      device: 'wasm',
      reason: `WASM (CPU), because this browser's WebGPU adapter (${adapter}) is a software fallback that runs on the CPU: models decode many times faster on WASM here.`,
    };
  }
  return { device: 'webgpu', reason: `WebGPU, on this machine's GPU (${adapter}).` };
}
