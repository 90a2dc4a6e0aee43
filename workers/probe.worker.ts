/**
 * Environment probes that must run where inference runs: inside a worker.
 * A page can see a WebGPU adapter while workers cannot (policy, flags), and
 * an adapter can exist while compute fails, so we run a real compute pass.
 */
import { describeGpu, type GpuFacts } from '../src/core/env/gpu.ts';
import { throwIfAborted } from '../src/core/errors.ts';
import type { CallContext } from '../src/core/rpc/protocol.ts';
import { exposeApi } from './runtime/expose.ts';

interface WorkerGpuProbe extends GpuFacts {
  /** A compute shader doubled 4,096 floats and the result was checked. */
  readonly computeOk: boolean;
  readonly computeMs?: number;
}

const N = 4096;
// WebGPU flag values (spec constants); TypeScript's worker lib lacks the GPUBufferUsage/GPUMapMode objects.
const USAGE = { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, STORAGE: 0x80 } as const;
const MAP_READ = 0x1;
const SHADER = /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x < arrayLength(&data)) { data[id.x] = data[id.x] * 2.0; }
}`;

async function runCompute(device: GPUDevice): Promise<boolean> {
  const input = new Float32Array(N).map((_, i) => i);
  const storage = device.createBuffer({
    size: input.byteLength,
    usage: USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST,
  });
  const readback = device.createBuffer({ size: input.byteLength, usage: USAGE.MAP_READ | USAGE.COPY_DST });
  device.queue.writeBuffer(storage, 0, input);
  const pipeline = device.createComputePipeline({
    layout: 'auto',
    compute: { module: device.createShaderModule({ code: SHADER }), entryPoint: 'main' },
  });
  const bind = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: storage } }] });
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bind);
  pass.dispatchWorkgroups(Math.ceil(N / 64));
  pass.end();
  enc.copyBufferToBuffer(storage, 0, readback, 0, input.byteLength);
  device.queue.submit([enc.finish()]);
  await readback.mapAsync(MAP_READ);
  const out = new Float32Array(readback.getMappedRange().slice(0));
  readback.unmap();
  storage.destroy();
  readback.destroy();
  return out.every((v, i) => v === i * 2);
}

const probeApi = {
  /** Checks WebGPU from inside a worker, including a real compute pass. */
  async probeGpu(_input: void, ctx: CallContext): Promise<WorkerGpuProbe> {
    ctx.progress({ phase: 'adapter', done: 0, total: 2 });
    const { facts: base, adapter } = await describeGpu((globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu, 'workers');
    throwIfAborted(ctx.signal);
    if (!adapter) return { ...base, computeOk: false };
    ctx.progress({ phase: 'compute', done: 1, total: 2 });
    const device = await adapter.requestDevice();
    try {
      const t0 = performance.now();
      const computeOk = await runCompute(device);
      throwIfAborted(ctx.signal);
      ctx.progress({ phase: 'compute', done: 2, total: 2 });
      return { ...base, computeOk, computeMs: performance.now() - t0 };
    } catch (error) {
      return { ...base, computeOk: false, reason: `A test compute shader failed: ${String(error)}` };
    } finally {
      device.destroy();
    }
  },

  /** Round trip with optional delay and progress steps: measures the worker boundary itself. */
  async ping(input: { delayMs: number; steps?: number }, ctx: CallContext): Promise<{ pong: true; steps: number }> {
    const steps = input.steps ?? 0;
    for (let i = 1; i <= steps; i++) {
      await new Promise((r) => setTimeout(r, input.delayMs / steps));
      throwIfAborted(ctx.signal);
      ctx.progress({ phase: 'ping', done: i, total: steps });
    }
    return { pong: true, steps };
  },

};

export type ProbeApi = typeof probeApi;

exposeApi(probeApi);
