/**
 * Counts the GPU buffer memory a model worker's runtime holds. WebGPU reports
 * no memory use, and onnxruntime-web and WebLLM allocate their own devices,
 * so the meter wraps `GPUDevice.prototype.createBuffer` and
 * `GPUBuffer.prototype.destroy` of this worker's realm before any device
 * exists: every buffer either runtime makes is counted by its requested
 * size until it is destroyed. Textures are not counted (neither runtime
 * keeps weights in them). Read by `npm run smoke:real` and the Models page.
 *
 * A limit (bytes) makes an allocation that would pass it fail as a real
 * out-of-memory does when a buffer is created mapped: a thrown RangeError.
 * It lets the smoke test's out-of-memory path be exercised on a machine
 * whose GPU is large (or software).
 */
import { formatBytes } from '../../src/core/text/units.ts';

export interface GpuMemoryReport {
  /** Bytes in live buffers now. */
  readonly currentBytes: number;
  /** The most bytes live at once since the worker started or the peak was reset. */
  readonly peakBytes: number;
  /** Live buffers now. */
  readonly buffers: number;
  /** The allocation limit in force, or null. */
  readonly limitBytes: number | null;
  /** False where this worker has no WebGPU (then every figure is 0). */
  readonly metered: boolean;
  /**
   * The first out-of-memory WebGPU reported since the last reset (an
   * uncaptured GPUOutOfMemoryError, or an allocation over the limit), or
   * null. The runtimes often turn it into an unrelated error of their own;
   * this is what really happened.
   */
  readonly outOfMemory: string | null;
  /** Why a device of this worker was lost since the last reset, or null. */
  readonly deviceLost: string | null;
}

export interface GpuMemoryInput {
  /** Start a new peak from what is live now, and forget the errors seen. */
  readonly resetPeak?: boolean;
  /** Set (a number) or lift (null) the allocation limit; absent leaves it. */
  readonly limitBytes?: number | null;
}

interface DeviceLike {
  addEventListener(type: 'uncapturederror', listener: (e: { error?: { message?: string; constructor?: { name?: string } } }) => void): void;
  readonly lost: Promise<{ reason?: string; message?: string }>;
}
interface AdapterProto {
  requestDevice(descriptor?: unknown): Promise<DeviceLike>;
}
interface BufferLike {
  destroy(): void;
}
interface DeviceProto {
  createBuffer(descriptor: { size: number }): BufferLike;
}


let installed = false;
let current = 0;
let peak = 0;
let count = 0;
let limit: number | null = null;
let outOfMemory: string | null = null;
let deviceLost: string | null = null;
const sizes = new WeakMap<object, number>();

/** Wraps this realm's WebGPU buffer calls once; false where there is no WebGPU. */
export function installGpuMeter(scope: object = globalThis): boolean {
  if (installed) return true;
  const g = scope as { GPUDevice?: { prototype: DeviceProto }; GPUBuffer?: { prototype: BufferLike }; GPUAdapter?: { prototype: AdapterProto } };
  if (!g.GPUDevice || !g.GPUBuffer || !g.GPUAdapter) return false;
  const adapterProto = g.GPUAdapter.prototype;
  const requestDevice = adapterProto.requestDevice;
  // Every device the runtimes make reports its out-of-memory errors and its loss here too.
  adapterProto.requestDevice = async function (this: AdapterProto, descriptor?: unknown) {
    const device = await requestDevice.call(this, descriptor);
    device.addEventListener('uncapturederror', (e) => {
      if (e.error?.constructor?.name === 'GPUOutOfMemoryError') outOfMemory ??= `GPU out of memory${e.error.message ? `: ${e.error.message.replace(/\.$/, '')}` : ''}`;
    });
    void device.lost.then((info) => {
      // Destroyed on purpose (a runtime's unload) is not a loss.
      if (info.reason !== 'destroyed') deviceLost ??= `${info.reason ?? 'unknown'}${info.message ? `: ${info.message}` : ''}`;
    });
    return device;
  };
  const deviceProto = g.GPUDevice.prototype;
  const bufferProto = g.GPUBuffer.prototype;
  const create = deviceProto.createBuffer;
  const destroy = bufferProto.destroy;
  deviceProto.createBuffer = function (this: DeviceProto, descriptor: { size: number }) {
    const size = Number(descriptor?.size) || 0;
    if (limit !== null && current + size > limit) {
      const message = `GPU out of memory: a ${formatBytes(size)} buffer would bring this worker's buffers to ${formatBytes(current + size)}, over the ${formatBytes(limit)} allowed`;
      outOfMemory ??= message;
      throw new RangeError(message);
    }
    const buffer = create.call(this, descriptor);
    sizes.set(buffer, size);
    current += size;
    count++;
    if (current > peak) peak = current;
    return buffer;
  };
  bufferProto.destroy = function (this: BufferLike) {
    const size = sizes.get(this);
    if (size !== undefined) {
      sizes.delete(this);
      current -= size;
      count--;
    }
    return destroy.call(this);
  };
  installed = true;
  return true;
}

/** The figures now; applies `input` first. */
export function gpuMemory(input: GpuMemoryInput = {}): GpuMemoryReport {
  if (input.resetPeak) {
    peak = current;
    outOfMemory = deviceLost = null;
  }
  if (input.limitBytes !== undefined) limit = input.limitBytes === null ? null : Math.max(0, input.limitBytes);
  return { currentBytes: current, peakBytes: peak, buffers: count, limitBytes: limit, metered: installed, outOfMemory, deviceLost };
}
