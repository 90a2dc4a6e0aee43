/// <reference types="vite/client" />
/**
 * Bench page (served by the Vite dev server that
 * test/bench/suites/engine-boundary.ts starts). It holds the self-test model
 * twice: in this page through `TransformersEngine` (the runtime called
 * directly) and in the transformers worker through `WorkerEngine` (the engine
 * boundary the app uses). The suite drives it through `window.__engineBench`.
 */
import ortMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import { imagesThenText } from '../../../src/core/chat/turn.ts';
import type { Engine, EngineUsage, GenerateRequest, GenerateResult } from '../../../src/core/engines/engine.ts';
import { TransformersEngine } from '../../../src/core/engines/transformers/transformers-engine.ts';
import { testCardPng } from '../../../src/core/imaging/test-card.ts';
import { WorkerEngine, type TransformersInfo } from '../../../src/lib/engines/transformers-client.ts';

export type BenchDevice = 'wasm' | 'webgpu';

export interface OverheadResult {
  device: BenchDevice;
  maxTokens: number;
  /** Wall time of each direct call (TransformersEngine in this page), ms. */
  directMs: number[];
  /** Wall time of each worker call (WorkerEngine → Comlink → worker), ms. */
  workerMs: number[];
  completionTokens: number;
  promptTokens: number;
  /** Every call of both paths produced this same text and token count. */
  sameOutput: boolean;
  text: string;
  workerInfo: TransformersInfo;
}

export interface SpeedResult {
  device: BenchDevice;
  maxTokens: number;
  /** The worker's own usage figures for each measured run (warm-up runs excluded). */
  runs: EngineUsage[];
  /** The first run after this device's model was loaded in the worker (on WebGPU: includes shader compilation). */
  first: EngineUsage;
  workerInfo: TransformersInfo;
}

export interface EngineBench {
  overhead(options: { device: BenchDevice; calls: number; warmup: number; maxTokens: number }): Promise<OverheadResult>;
  speed(options: { device: BenchDevice; runs: number; maxTokens: number }): Promise<SpeedResult>;
}

declare global {
  interface Window {
    __engineBench?: EngineBench;
    __engineBenchError?: string;
  }
}

const MODEL_LOCATION = new URL('/models/self-test/', location.href).href;

const png = testCardPng();
const request = (maxTokens: number): GenerateRequest => ({
  messages: [imagesThenText([{ bytes: png, mime: 'image/png' }], 'Describe this image in one sentence.')],
  sampling: { temperature: 0, topP: 1, seed: 0, maxTokens },
});

const direct = new Map<BenchDevice, Promise<TransformersEngine>>();
const worker = new Map<BenchDevice, Promise<{ engine: WorkerEngine; info: TransformersInfo }>>();

function directEngine(device: BenchDevice): Promise<TransformersEngine> {
  let e = direct.get(device);
  if (!e) {
    const engine = new TransformersEngine({
      runtime: { wasmPaths: { mjs: new URL(ortMjsUrl, location.href).href, wasm: new URL(ortWasmUrl, location.href).href } },
      source: { kind: 'folder', location: MODEL_LOCATION },
      device,
      modelId: 'self-test',
    });
    e = engine.load().then(() => engine);
    direct.set(device, e);
  }
  return e;
}

function workerEngine(device: BenchDevice): Promise<{ engine: WorkerEngine; info: TransformersInfo }> {
  let e = worker.get(device);
  if (!e) {
    const engine = new WorkerEngine({ source: { kind: 'folder', location: MODEL_LOCATION }, device, modelId: 'self-test' });
    e = engine.load().then((info) => ({ engine, info }));
    worker.set(device, e);
  }
  return e;
}

/** One call as a runner makes it: streaming on, timed on this page from call to result. */
async function timed(engine: Engine, req: GenerateRequest): Promise<{ ms: number; result: GenerateResult; streamed: string }> {
  let streamed = '';
  const t0 = performance.now();
  const result = await engine.generate(req, { onToken: (piece) => (streamed += piece) });
  return { ms: performance.now() - t0, result, streamed };
}

const bench: EngineBench = {
  async overhead({ device, calls, warmup, maxTokens }) {
    const d = await directEngine(device);
    const { engine: w, info } = await workerEngine(device);
    const req = request(maxTokens);
    const reference = (await timed(d, req)).result;
    const same = (r: { result: GenerateResult; streamed: string }) =>
      r.result.text === reference.text && r.result.usage.completionTokens === reference.usage.completionTokens && reference.text.startsWith(r.streamed);
    let sameOutput = true;
    for (let i = 0; i < warmup; i++) {
      sameOutput &&= same(await timed(d, req)) && same(await timed(w, req));
    }
    const directMs: number[] = [];
    const workerMs: number[] = [];
    // Interleaved, so drift (GC, thermal, other tabs) hits both paths alike.
    for (let i = 0; i < calls; i++) {
      const a = await timed(d, req);
      const b = await timed(w, req);
      directMs.push(a.ms);
      workerMs.push(b.ms);
      sameOutput &&= same(a) && same(b);
    }
    return {
      device,
      maxTokens,
      directMs,
      workerMs,
      completionTokens: reference.usage.completionTokens ?? 0,
      promptTokens: reference.usage.promptTokens ?? 0,
      sameOutput,
      text: reference.text,
      workerInfo: info,
    };
  },

  async speed({ device, runs, maxTokens }) {
    const { engine, info } = await workerEngine(device);
    const req = request(maxTokens);
    const first = (await engine.generate(req)).usage;
    const usages: EngineUsage[] = [];
    for (let i = 0; i < runs; i++) usages.push((await engine.generate(req)).usage);
    return { device, maxTokens, runs: usages, first, workerInfo: info };
  },
};

window.__engineBench = bench;
const out = document.getElementById('out');
if (out) out.textContent = 'ready';
