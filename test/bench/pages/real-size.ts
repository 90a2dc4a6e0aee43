/// <reference types="vite/client" />
/**
 * Bench page for test/bench/suites/real-size.ts. It holds one model through
 * one of two paths (a 2 B model twice would not fit a wasm heap):
 *
 * - `direct`: transformers.js called in this page (AutoProcessor,
 *   AutoModelForImageTextToText, generate with a token streamer), configured
 *   only with the self-hosted ORT files: the raw runtime.
 * - `app`: `WorkerEngine` → the transformers worker, as a run calls it.
 *
 * The suite opens one page per path and alternates their runs (see there).
 * Both paths are timed the same way (GenerationMeter: call → model start →
 * first → last token), and from this page from call to result.
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

/** Which model this page loads, through which path, and how it asks. */
export interface LoadOptions {
  path: BenchPath;
  model: string;
  device: BenchDevice;
  /** `false` asks with the question alone (no vision encoder): see the suite's plans. */
  image: boolean;
}

export interface Loaded {
  loadMs: number;
  /** The WebGPU adapter's description (webgpu only). */
  adapter: string | null;
}

export interface RunResult {
  usage: EngineUsage;
  /** Call → result, timed in this page. */
  wallMs: number;
  text: string;
}

export interface RealSizeBench {
  load(o: LoadOptions): Promise<Loaded>;
  /** One greedy generation of up to `maxTokens` with the model loaded. */
  run(maxTokens: number): Promise<RunResult>;
  /** Peak GPU buffer bytes since the load (0 on wasm). */
  gpuPeakBytes(): Promise<number>;
  /** Unloads the model. */
  release(): Promise<void>;
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

/** The loaded path: how to generate, how to read its GPU peak, how to unload. */
interface Held {
  generate(maxTokens: number): Promise<{ usage: EngineUsage; text: string }>;
  gpuPeakBytes(): Promise<number>;
  unload(): Promise<unknown>;
}

async function loadDirect(o: LoadOptions): Promise<{ held: Held; adapter: string | null }> {
  gpuMemory({ resetPeak: true });
  const rt = await directRuntime();
  const { modelId, revision } = applyModelSource(rt, { kind: 'folder', location: location_(o.model) });
  const processor = await rt.lib.AutoProcessor.from_pretrained(modelId, { revision });
  const m = await rt.lib.AutoModelForImageTextToText.from_pretrained(modelId, { revision, device: o.device } as never);
  return {
    held: { generate: (maxTokens) => directGenerate(rt, processor, m, maxTokens, o.image), gpuPeakBytes: async () => gpuMemory().peakBytes, unload: () => m.dispose() },
    adapter: o.device === 'webgpu' ? await adapterName() : null,
  };
}

async function loadApp(o: LoadOptions): Promise<{ held: Held; adapter: string | null }> {
  const engine = new WorkerEngine({ source: { kind: 'folder', location: location_(o.model) }, device: o.device, modelId: o.model });
  const worker = transformersWorker();
  await worker.api.gpuMemory({ resetPeak: true });
  const info = await engine.load();
  const messages = [o.image ? imagesThenText([{ bytes: png, mime: 'image/png' }], QUESTION) : imagesThenText([], TEXT_QUESTION)];
  return {
    held: {
      // Streaming on, as a run asks for it.
      generate: (maxTokens) => engine.generate({ messages, sampling: { temperature: 0, topP: 1, seed: 0, maxTokens } }, { onToken: () => {} }),
      gpuPeakBytes: async () => (await worker.api.gpuMemory(undefined)).peakBytes,
      unload: () => engine.unload(),
    },
    adapter: info.adapter ?? null,
  };
}

let held: Held | null = null;

const bench: RealSizeBench = {
  async load(o) {
    await bench.release();
    const t0 = performance.now();
    const loaded = o.path === 'direct' ? await loadDirect(o) : await loadApp(o);
    const loadMs = performance.now() - t0;
    held = loaded.held;
    return { loadMs, adapter: loaded.adapter };
  },
  async run(maxTokens) {
    if (!held) throw new Error('no model loaded in this page: call load first');
    const t0 = performance.now();
    const { usage, text } = await held.generate(maxTokens);
    return { usage, text, wallMs: performance.now() - t0 };
  },
  async gpuPeakBytes() {
    return held ? held.gpuPeakBytes() : 0;
  },
  async release() {
    const h = held;
    held = null;
    await h?.unload();
  },
};

window.__realSizeBench = bench;
const out = document.getElementById('out');
if (out) out.textContent = 'ready';
