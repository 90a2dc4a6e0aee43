/**
 * The GPU buffer meter of the model workers, over stand-in WebGPU classes
 * with the real prototypes' shape (Node has no WebGPU; the browser test of
 * `npm run smoke:real` runs it over Chromium's).
 */
import { describe, expect, it } from 'vitest';
import { gpuMemory, installGpuMeter } from '../../../../workers/runtime/gpu-meter.ts';

type Listener = (e: { error?: { message?: string } }) => void;

class GPUBuffer {
  destroyed = 0;
  constructor(readonly size: number) {}
  destroy(): void {
    this.destroyed++;
  }
}
class GPUOutOfMemoryError {
  constructor(readonly message: string) {}
}
class GPUDevice {
  listeners: Listener[] = [];
  resolveLost!: (info: { reason: string; message: string }) => void;
  readonly lost = new Promise<{ reason: string; message: string }>((r) => (this.resolveLost = r));
  createBuffer(d: { size: number }): GPUBuffer {
    return new GPUBuffer(d.size);
  }
  addEventListener(_type: string, l: Listener): void {
    this.listeners.push(l);
  }
}
class GPUAdapter {
  async requestDevice(): Promise<GPUDevice> {
    return new GPUDevice();
  }
}

const MIB = 1024 * 1024;
const scope = { GPUDevice, GPUBuffer, GPUAdapter };

describe('GPU buffer meter', () => {
  it('does nothing where the realm has no WebGPU', () => {
    expect(installGpuMeter({})).toBe(false);
    expect(gpuMemory().metered).toBe(false);
  });

  it('counts live buffer bytes and their peak, and a destroyed buffer once', async () => {
    expect(installGpuMeter(scope)).toBe(true);
    const device = await new GPUAdapter().requestDevice();
    const a = device.createBuffer({ size: 3 * MIB });
    const b = device.createBuffer({ size: 5 * MIB });
    expect(gpuMemory()).toMatchObject({ currentBytes: 8 * MIB, peakBytes: 8 * MIB, buffers: 2, metered: true });
    a.destroy();
    a.destroy();
    expect(a.destroyed).toBe(2);
    expect(gpuMemory()).toMatchObject({ currentBytes: 5 * MIB, peakBytes: 8 * MIB, buffers: 1 });
    expect(gpuMemory({ resetPeak: true }).peakBytes).toBe(5 * MIB);
    b.destroy();
    expect(gpuMemory()).toMatchObject({ currentBytes: 0, peakBytes: 5 * MIB, buffers: 0 });
  });

  it('refuses an allocation over the limit as an out-of-memory RangeError, and remembers it until reset', async () => {
    const device = await new GPUAdapter().requestDevice();
    gpuMemory({ resetPeak: true, limitBytes: 4 * MIB });
    const kept = device.createBuffer({ size: 3 * MIB });
    expect(() => device.createBuffer({ size: 2 * MIB })).toThrow(RangeError);
    const r = gpuMemory();
    expect(r.outOfMemory).toContain('GPU out of memory: a 2 MiB buffer would bring this worker\'s buffers to 5 MiB, over the 4 MiB allowed');
    expect(r.currentBytes).toBe(3 * MIB);
    kept.destroy();
    expect(gpuMemory({ resetPeak: true, limitBytes: null })).toMatchObject({ outOfMemory: null, limitBytes: null });
    device.createBuffer({ size: 64 * MIB }).destroy();
  });

  it('records what the devices report: an uncaptured out-of-memory error and a loss, but not a deliberate destroy', async () => {
    const device = await new GPUAdapter().requestDevice();
    for (const l of device.listeners) l({ error: new GPUOutOfMemoryError('Not enough memory left.') });
    expect(gpuMemory().outOfMemory).toBe('GPU out of memory: Not enough memory left');
    device.resolveLost({ reason: 'destroyed', message: '' });
    await device.lost;
    expect(gpuMemory().deviceLost).toBeNull();
    const other = await new GPUAdapter().requestDevice();
    other.resolveLost({ reason: 'unknown', message: 'GPU process crashed' });
    await other.lost;
    await Promise.resolve();
    expect(gpuMemory().deviceLost).toBe('unknown: GPU process crashed');
    expect(gpuMemory({ resetPeak: true })).toMatchObject({ outOfMemory: null, deviceLost: null });
  });
});
