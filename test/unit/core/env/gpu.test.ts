import { describe, expect, it } from 'vitest';
import { preferredDevice, type GpuFacts } from '../../../../src/core/env/gpu.ts';

const facts = (over: Partial<GpuFacts>): GpuFacts => ({ available: true, features: [], limits: {}, ...over });

describe('preferredDevice', () => {
  it('chooses WebGPU on a real GPU', () => {
    expect(preferredDevice(facts({ architecture: 'ampere', vendor: 'nvidia' }))).toEqual({ device: 'webgpu', reason: "WebGPU, on this machine's GPU (ampere)." });
  });

  it('chooses WASM on a software fallback adapter, and says so', () => {
    const c = preferredDevice(facts({ architecture: 'swiftshader', isFallbackAdapter: true }));
    expect(c.device).toBe('wasm');
    expect(c.reason).toContain('(swiftshader) is a software fallback');
  });

  it('chooses WASM without WebGPU, with the reason', () => {
    const c = preferredDevice({ available: false, reason: 'No WebGPU adapter (GPU blocklisted or disabled)', features: [], limits: {} });
    expect(c).toEqual({ device: 'wasm', reason: 'WASM (CPU): No WebGPU adapter (GPU blocklisted or disabled).' });
  });
});
