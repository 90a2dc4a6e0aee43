/**
 * Real-size models: random-weight VLMs with the dimensions, layer counts and
 * q4 layout of SmolVLM-256M-Instruct and of the 2.2 B SmolVLM-Instruct
 * (scripts/make-real-size-model.ts; generated into .cache/real-size-models/
 * on first use and reused), through the app's engine (WorkerEngine → the
 * transformers worker, as a run calls it) and through transformers.js called
 * directly in the page (test/bench/pages/real-size.html), on WASM and on
 * WebGPU. Each path of each model runs in a page of its own, so neither
 * shares its renderer with what the other left behind.
 *
 * On a machine with a GPU, run with NEUROEVAL_BENCH_GPU=1: the suite then
 * launches Chromium with the real-GPU flags, names the adapter on each row,
 * and sets decode speed beside the memory-bandwidth bound of known GPUs.
 */
import { type Browser, chromium } from '@playwright/test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REAL_GPU_ARGS } from '../../../scripts/chromium.ts';
import { REAL_SIZE_CACHE } from '../../../scripts/make-real-size-model.ts';
import { ensureRealSizeModel } from '../../../scripts/real-size-model/build.ts';
import { SMOLVLM_256M, SMOLVLM_2B, type RealSizeDims } from '../../../scripts/real-size-model/dims.ts';
import { type BenchContext, type BenchResult, type BenchSuite, freshContext, median, startBenchVite } from '../harness.ts';
import type { BenchDevice, BenchPath, PathResult } from '../pages/real-size.ts';

const PAGE = 'test/bench/pages/real-size.html';
const GPU_MODE = process.env['NEUROEVAL_BENCH_GPU'] === '1';

interface Plan {
  readonly dims: RealSizeDims;
  readonly label: string;
  readonly device: BenchDevice;
  /** Measured runs per path after one first run; 0 = not run here, for `skip`. */
  readonly runs: number;
  /** Ask with the image (the default) or with the question alone. */
  readonly image: boolean;
  readonly maxTokens: number;
  readonly skip?: string;
}

/**
 * Short runs (one 64×64 image, a one-line question, a few tokens): on two CPU
 * cores one 256M run takes over a minute (the 512 px vision encoder does most
 * of the work) and one 2.2 B run several, so without a GPU each path is
 * measured on its first run after load (`runs: 0`; no warm-up run), which
 * keeps the suite inside the bench's time limit.
 * SwiftShader runs WebGPU shaders on the CPU: the 2.2 B model only runs on
 * WebGPU with a real GPU.
 */
function plans(): Plan[] {
  const p = (dims: RealSizeDims, label: string, device: BenchDevice, runs: number, maxTokens: number, skip?: string, image = true): Plan => ({ dims, label, device, runs, maxTokens, image, ...(skip ? { skip } : {}) });
  if (GPU_MODE) {
    return [p(SMOLVLM_256M, 'SmolVLM-256M', 'webgpu', 3, 32), p(SMOLVLM_2B, 'SmolVLM-2.2B', 'webgpu', 3, 32), p(SMOLVLM_256M, 'SmolVLM-256M', 'wasm', 1, 8), p(SMOLVLM_2B, 'SmolVLM-2.2B', 'wasm', 0, 3)];
  }
  return [
    p(SMOLVLM_256M, 'SmolVLM-256M', 'wasm', 0, 8),
    // Text only: on 2 CPU cores the 2.2 B vision tower (27 layers at 384 px) alone takes about four minutes per path, which the bench
    // cannot afford twice; the decoder's prefill and decode, and the app ÷ direct ratio, are measured on the question alone.
    p(SMOLVLM_2B, 'SmolVLM-2.2B', 'wasm', 0, 6, undefined, false),
    // On the software adapter the question alone too: SwiftShader executes the shaders on the CPU, and one path of one image + prompt
    // did not finish in 6 minutes; the decoder's question and four tokens take about two.
    p(SMOLVLM_256M, 'SmolVLM-256M', 'webgpu', 0, 4, undefined, false),
    p(SMOLVLM_2B, 'SmolVLM-2.2B', 'webgpu', 0, 0, 'not run on the software adapter: SwiftShader executes the shaders on the CPU, and one 2.2 B image + prompt there takes longer than the whole bench may run; run with NEUROEVAL_BENCH_GPU=1 on a GPU machine'),
  ];
}

/** Memory bandwidth of known GPUs, bytes/s (vendor specifications), matched against the adapter's description. */
const GPU_BANDWIDTH: readonly { match: RegExp; name: string; bytesPerS: number }[] = [
  { match: /h200/i, name: 'NVIDIA H200', bytesPerS: 4.8e12 },
  { match: /h100/i, name: 'NVIDIA H100 (SXM)', bytesPerS: 3.35e12 },
  { match: /a100/i, name: 'NVIDIA A100 (40 GB)', bytesPerS: 2.0e12 },
  { match: /4090/, name: 'NVIDIA RTX 4090', bytesPerS: 1.0e12 },
];

const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;
const MIB = 1024 * 1024;

function hardware(r: PathResult): string {
  if (r.device === 'wasm') return 'CPU (WASM)';
  const a = r.adapter ?? 'unknown adapter';
  return /swiftshader|fallback/i.test(a) ? `software adapter (SwiftShader: ${a})` : `GPU: ${a}`;
}

/** The renderer processes' peak resident memory (Linux /proc; VmHWM reset through clear_refs), or null elsewhere. */
class RendererMemory {
  constructor(private readonly pids: number[]) {}

  static async of(browser: Browser): Promise<RendererMemory> {
    try {
      const cdp = await browser.newBrowserCDPSession();
      const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
      await cdp.detach();
      return new RendererMemory(processInfo.filter((p) => p.type === 'renderer').map((p) => p.id));
    } catch {
      return new RendererMemory([]);
    }
  }

  private field(pid: number, name: string): number | null {
    const path = `/proc/${pid}/status`;
    if (!existsSync(path)) return null;
    const kib = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(readFileSync(path, 'utf8'))?.[1];
    return kib === undefined ? null : Number(kib) * 1024;
  }

  /** Starts a new peak from now; returns the resident bytes now (a renderer of a page closed meanwhile counts nothing). */
  reset(): number | null {
    let sum = 0;
    let live = 0;
    for (const pid of this.pids) {
      if (!existsSync(`/proc/${pid}/status`)) continue;
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, '5');
      } catch {
        return null;
      }
      sum += this.field(pid, 'VmRSS') ?? 0;
      live++;
    }
    return live ? sum : null;
  }

  peak(): number | null {
    let sum = 0;
    let live = 0;
    for (const pid of this.pids) {
      const hwm = this.field(pid, 'VmHWM');
      if (hwm === null) continue;
      sum += hwm;
      live++;
    }
    return live ? sum : null;
  }
}

interface Measured extends PathResult {
  /** Peak renderer resident memory over the resident memory before loading, bytes; null where not measurable. */
  rssGrowth: number | null;
}

function rows(plan: Plan, direct: Measured, app: Measured, decoderBytes: number): BenchResult[] {
  const name = `${plan.label}, ${plan.device === 'wasm' ? 'WASM' : 'WebGPU'}`;
  const hw = hardware(app);
  const pick = (r: Measured, f: (u: PathResult['runs'][number]) => number | null) => r.runs.map(f).filter((v): v is number => v !== null);
  const how = (r: Measured) =>
    `${hw}; ${r.path === 'app' ? "the app's engine (WorkerEngine → transformers worker)" : 'transformers.js called directly in the page'}; ${plan.image ? `one 64×64 PNG + a one-line question (${r.runs[0]?.promptTokens ?? '?'} prompt tokens, image tokens included)` : `a one-line question without an image (${r.runs[0]?.promptTokens ?? '?'} prompt tokens; the vision tower is not run)`}, greedy, up to ${plan.maxTokens} tokens; ${plan.runs === 0 ? 'the first run after load alone' : `median of ${r.runs.length} run(s) after a first one`}`;
  const out: BenchResult[] = [];
  const metric = (label: string, unit: string, f: (u: PathResult['runs'][number]) => number | null, higherIsBetter: boolean, note: string) => {
    const d = pick(direct, f);
    const a = pick(app, f);
    if (d.length === 0 || a.length === 0) return;
    const dm = median(d);
    const am = median(a);
    out.push(
      { name: `${name}: ${label}, direct`, value: dm, unit, how: `${how(direct)}; ${note}`, samples: d.map((v) => round(v, 2)) },
      { name: `${name}: ${label}, app`, value: am, unit, how: `${how(app)}; ${note}`, samples: a.map((v) => round(v, 2)) },
      { name: `${name}: ${label}, app ÷ direct`, value: higherIsBetter ? am / dm : dm / am, unit: '×', digits: 2, how: `${higherIsBetter ? 'app ÷ direct' : 'direct time ÷ app time'}; 1.00 = as fast as the raw runtime, target ≥ 0.95` },
    );
  };
  metric('decode speed', 'tokens/s', (u) => u.decodeTokensPerS, true, '(tokens − 1) ÷ time from first to last token');
  metric('prefill speed', 'tokens/s', (u) => u.prefillTokensPerS, true, 'prompt tokens ÷ time from model start to first token (vision encoder included)');
  metric('time to first token', 'ms', (u) => u.ttftMs, false, 'from the call (image decoding, processor, vision encoder, prefill)');
  out.push(
    { name: `${name}: load, direct`, value: direct.loadMs, unit: 'ms', how: `${hw}; processor + three ONNX sessions from the bench's local server`, digits: 0 },
    { name: `${name}: load, app`, value: app.loadMs, unit: 'ms', how: `${hw}; WorkerEngine.load from the page`, digits: 0 },
  );
  for (const r of [direct, app]) {
    if (r.rssGrowth !== null) {
      out.push({ name: `${name}: peak memory, ${r.path}`, value: r.rssGrowth / MIB, unit: 'MiB', digits: 0, how: `${hw}; renderer process resident memory (page + worker: JS heaps and wasm memory) at its peak over before loading` });
    }
    if (r.device === 'webgpu') {
      out.push({ name: `${name}: GPU buffers at peak, ${r.path}`, value: r.gpuPeakBytes / MIB, unit: 'MiB', digits: 0, how: `${hw}; bytes of WebGPU buffers live at once (createBuffer − destroy, workers/runtime/gpu-meter.ts)` });
    }
  }
  const gpu = app.device === 'webgpu' && !/swiftshader|fallback/i.test(app.adapter ?? 'swiftshader') ? GPU_BANDWIDTH.find((g) => g.match.test(app.adapter ?? '')) : undefined;
  if (gpu) {
    const bound = gpu.bytesPerS / decoderBytes;
    out.push({
      name: `${name}: decode bound of the GPU's memory bandwidth`,
      value: bound,
      unit: 'tokens/s',
      how: `${(decoderBytes / 1e9).toFixed(3)} GB of q4 decoder weights read per token ÷ ${gpu.name}'s ${(gpu.bytesPerS / 1e12).toFixed(2)} TB/s; the app's decode speed is ${((median(pick(app, (u) => u.decodeTokensPerS)) / bound) * 100).toFixed(1)} % of it`,
    });
  }
  return out;
}

export const realSizeSuite: BenchSuite = {
  id: 'real-size',
  title: 'Real-size models: the app\'s engine against transformers.js',
  description:
    'Random-weight models with the dimensions, layer counts and q4 (MatMulNBits) layout of SmolVLM-256M-Instruct and of the 2.2 B SmolVLM-Instruct (`scripts/make-real-size-model.ts`), through the app\'s engine (the transformers worker a run uses) and through transformers.js called directly in the page, each path in a fresh page: decode and prefill speed, time to first token, load time and peak memory, and the app ÷ direct ratio (target ≥ 0.95). Each row names its hardware: CPU (WASM), the software WebGPU adapter (SwiftShader), or a GPU with its adapter; GPU rows also give the decode bound of the GPU\'s memory bandwidth. Runs are short (one image, a few tokens), so speeds carry a few percent of noise.',
  async run(ctx: BenchContext) {
    const models = new Map<string, number>();
    for (const dims of [SMOLVLM_256M, SMOLVLM_2B]) {
      const t0 = performance.now();
      const { stamp, generated } = ensureRealSizeModel(join(REAL_SIZE_CACHE, dims.id), dims);
      ctx.log(`  real-size: ${dims.id} ${generated ? `generated in ${((performance.now() - t0) / 1000).toFixed(0)} s` : 'reused'}`);
      models.set(dims.id, stamp.decoderWeightBytes);
    }
    const { server, url } = await startBenchVite(ctx.root, ['@huggingface/transformers', 'comlink', 'fflate'], true);
    const browser = GPU_MODE
      ? await chromium.launch({ executablePath: ctx.chromium.executablePath, args: [...ctx.chromium.args, ...REAL_GPU_ARGS, '--enable-webgpu-developer-features'], headless: true })
      : ctx.browser;
    /**
     * Each path of each model in a page of its own: a page that ran ORT
     * directly keeps its wasm heap (it never shrinks) and its wasm threads
     * after disposing the model, and the app's worker measured beside them
     * ran at 0.38 of its speed alone on two cores.
     */
    const openPage = async () => {
      const context = await freshContext(browser);
      const page = await context.newPage();
      page.on('pageerror', (e) => ctx.log(`  [pageerror] ${e.message}`));
      await page.goto(new URL(PAGE, url).href);
      await page.waitForFunction(() => window.__realSizeBench !== undefined, undefined, { timeout: 120_000 });
      page.setDefaultTimeout(600_000);
      return { context, page, memory: await RendererMemory.of(browser) };
    };
    try {
      const results: BenchResult[] = [];
      const skipped: string[] = [];
      for (const plan of plans()) {
        if (plan.skip) {
          skipped.push(`${plan.label} on ${plan.device}: ${plan.skip}`);
          continue;
        }
        const measured: Partial<Record<BenchPath, Measured>> = {};
        // Direct first, then the app: the same order for every model.
        for (const path of ['direct', 'app'] as const) {
          ctx.log(`  real-size: ${plan.label}, ${plan.device}, ${path}`);
          const { context, page, memory } = await openPage();
          let r: PathResult;
          let before: number | null;
          let peak: number | null;
          try {
            before = memory.reset();
            r = await page.evaluate((o) => window.__realSizeBench!.measure(o), { path, model: plan.dims.id, device: plan.device, runs: plan.runs, maxTokens: plan.maxTokens, image: plan.image });
            peak = memory.peak();
          } finally {
            await context.close();
          }
          measured[path] = { ...r, rssGrowth: before !== null && peak !== null ? peak - before : null };
          const u = r.runs[0];
          ctx.log(`    load ${(r.loadMs / 1000).toFixed(1)} s; TTFT ${u?.ttftMs?.toFixed(0)} ms; prefill ${u?.prefillTokensPerS?.toFixed(1)} tok/s; decode ${u?.decodeTokensPerS?.toFixed(2)} tok/s; ${u?.completionTokens} tokens`);
        }
        results.push(...rows(plan, measured.direct!, measured.app!, models.get(plan.dims.id)!));
      }
      if (skipped.length) {
        results.push({ name: 'Configurations not run here', value: skipped.length, unit: 'count', how: skipped.join('; '), detail: skipped });
      }
      return results;
    } finally {
      if (browser !== ctx.browser) await browser.close();
      await server.close();
    }
  },
};
