/// <reference types="vite/client" />
/**
 * Bench page for test/bench/suites/real-size.ts. One model at a time (a 2 B
 * model twice would not fit a wasm heap and this machine's memory), through
 * one of two paths:
 *
 * - `direct`: transformers.js called in this page (AutoProcessor,
 *   AutoModelForImageTextToText, generate with a token streamer), configured
 *   only with the self-hosted ORT files: the raw runtime.
 * - `app`: `WorkerEngine` → the transformers worker, as a run calls it.
 *
 * Both are timed the same way (GenerationMeter: call → model start → first →
 * last token), and from this page from call to result.
 */
import ortMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import type { PreTrainedModel, Processor } from '@huggingface/transformers';
import { imagesThenText } from '../../../src/core/chat/turn.ts';
import type { EngineUsage } from '../../../src/core/engines/engine.ts';
import { GenerationMeter } from '../../../src/core/engines/transformers/generation-meter.ts';
import { applyModelSource, loadTransformers, type TransformersRuntime } from '../../../src/core/engines/transformers/runtime.ts';
import { testCardPng } from '../../../src/core/imaging/test-card.ts';
import { WorkerEngine, transformersWorker } from '../../../src/lib/engines/transformers-client.ts';
import { gpuMemory, installGpuMeter } from '../../../workers/runtime/gpu-meter.ts';

export type BenchDevice = 'wasm' | 'webgpu';
export type BenchPath = 'direct' | 'app';

export interface PathResult {
  path: BenchPath;
  device: BenchDevice;
  loadMs: number;
  /** Usage of each measured run after the first; with `runs: 0`, the first run alone. */
  runs: EngineUsage[];
  first: EngineUsage;
  /** Call → result, timed in this page, per measured run. */
  wallMs: number[];
  /** Peak GPU buffer bytes while loaded and generating (0 on wasm). */
  gpuPeakBytes: number;
  /** The WebGPU adapter's description (webgpu only). */
  adapter: string | null;
  text: string;
}

export interface RealSizeBench {
  /** `image: false` asks with the question alone (no vision encoder): see the suite's plans. */
  measure(o: { path: BenchPath; model: string; device: BenchDevice; runs: number; maxTokens: number; image: boolean }): Promise<PathResult>;
}

declare global {
  interface Window {
    __realSizeBench?: RealSizeBench;
  }
}

// Before ORT makes a WebGPU device in this page, so the direct path's GPU buffers are counted as the worker's are.
installGpuMeter();

const QUESTION = 'Describe this image in one sentence.';
const TEXT_QUESTION = 'Describe a normal brain MRI in one sentence.';

const png = testCardPng();
const location_ = (model: string) => new URL(`/.cache/real-size-models/${model}/`, location.href).href;

async function adapterName(): Promise<string | null> {
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) return null;
  const i = adapter.info;
  return [i.architecture || i.description || 'unknown', i.vendor && `vendor ${i.vendor}`, i.description && i.description !== i.architecture && i.description].filter(Boolean).join(', ');
}

let runtime: Promise<TransformersRuntime> | null = null;

/** transformers.js in this page, with nothing but the self-hosted ORT files set (no caches, no other hosts). */
function directRuntime(): Promise<TransformersRuntime> {
  runtime ??= loadTransformers({ wasmPaths: { mjs: new URL(ortMjsUrl, location.href).href, wasm: new URL(ortWasmUrl, location.href).href } });
  return runtime;
}

/** One raw transformers.js generation: decode the PNG, chat template, processor, greedy generate with a streamer. */
async function directGenerate(rt: TransformersRuntime, processor: Processor, model: PreTrainedModel, maxTokens: number, withImage: boolean): Promise<{ usage: EngineUsage; text: string }> {
  const { lib } = rt;
  const meter = new GenerationMeter();
  const content = withImage ? [{ type: 'image' }, { type: 'text', text: QUESTION }] : [{ type: 'text', text: TEXT_QUESTION }];
  const prompt = processor.apply_chat_template([{ role: 'user', content }] as never, { add_generation_prompt: true, tokenize: false }) as string;
  const image = withImage ? await lib.RawImage.fromBlob(new Blob([png as BlobPart], { type: 'image/png' })) : null;
  // Without an image the processor has nothing to tile: the tokenizer alone makes the inputs, as the app's engine does.
  const inputs = (await (image ? processor(prompt, [image]) : processor.tokenizer!(prompt))) as { input_ids: { dims: number[] } };
  const ids: bigint[] = [];
  const streamer = new lib.TextStreamer(processor.tokenizer!, {
    skip_prompt: true,
    callback_function: () => {},
    token_callback_function: (t: bigint[]) => {
      meter.token();
      ids.push(t[0]!);
    },
  });
  meter.modelStarted(inputs.input_ids.dims.at(-1) ?? 0);
  await model.generate({ ...(inputs as object), max_new_tokens: maxTokens, do_sample: false, streamer } as never);
  return { usage: meter.usage(), text: processor.tokenizer!.decode(ids.map(Number), { skip_special_tokens: true }) };
}

async function measureDirect(model: string, device: BenchDevice, runs: number, maxTokens: number, withImage: boolean): Promise<PathResult> {
  const rt = await directRuntime();
  const t0 = performance.now();
  const { modelId, revision } = applyModelSource(rt, { kind: 'folder', location: location_(model) });
  const processor = await rt.lib.AutoProcessor.from_pretrained(modelId, { revision });
  const m = await rt.lib.AutoModelForImageTextToText.from_pretrained(modelId, { revision, device } as never);
  const loadMs = performance.now() - t0;
  try {
    const f0 = performance.now();
    const first = await directGenerate(rt, processor, m, maxTokens, withImage);
    const firstMs = performance.now() - f0;
    const usages: EngineUsage[] = runs === 0 ? [first.usage] : [];
    const wallMs: number[] = runs === 0 ? [firstMs] : [];
    for (let i = 0; i < runs; i++) {
      const w0 = performance.now();
      usages.push((await directGenerate(rt, processor, m, maxTokens, withImage)).usage);
      wallMs.push(performance.now() - w0);
    }
    return { path: 'direct', device, loadMs, runs: usages, first: first.usage, wallMs, gpuPeakBytes: gpuMemory().peakBytes, adapter: device === 'webgpu' ? await adapterName() : null, text: first.text };
  } finally {
    await m.dispose();
  }
}

async function measureApp(model: string, device: BenchDevice, runs: number, maxTokens: number, withImage: boolean): Promise<PathResult> {
  const engine = new WorkerEngine({ source: { kind: 'folder', location: location_(model) }, device, modelId: model });
  const worker = transformersWorker();
  await worker.api.gpuMemory({ resetPeak: true });
  const t0 = performance.now();
  const info = await engine.load();
  const loadMs = performance.now() - t0;
  const request = { messages: [withImage ? imagesThenText([{ bytes: png, mime: 'image/png' }], QUESTION) : imagesThenText([], TEXT_QUESTION)], sampling: { temperature: 0, topP: 1, seed: 0, maxTokens } };
  try {
    const f0 = performance.now();
    const first = await engine.generate(request, { onToken: () => {} });
    const firstMs = performance.now() - f0;
    const usages: EngineUsage[] = runs === 0 ? [first.usage] : [];
    const wallMs: number[] = runs === 0 ? [firstMs] : [];
    for (let i = 0; i < runs; i++) {
      const w0 = performance.now();
      // Streaming on, as a run asks for it.
      usages.push((await engine.generate(request, { onToken: () => {} })).usage);
      wallMs.push(performance.now() - w0);
    }
    const gpu = await worker.api.gpuMemory(undefined);
    return { path: 'app', device, loadMs, runs: usages, first: first.usage, wallMs, gpuPeakBytes: gpu.peakBytes, adapter: info.adapter ?? null, text: first.text };
  } finally {
    await engine.unload();
  }
}

const bench: RealSizeBench = {
  async measure({ path, model, device, runs, maxTokens, image }) {
    if (path === 'direct') {
      gpuMemory({ resetPeak: true });
      return measureDirect(model, device, runs, maxTokens, image);
    }
    return measureApp(model, device, runs, maxTokens, image);
  },
};

window.__realSizeBench = bench;
const out = document.getElementById('out');
if (out) out.textContent = 'ready';
