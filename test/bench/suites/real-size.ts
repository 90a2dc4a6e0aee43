/**
 * Real-size models: random-weight VLMs with the dimensions, layer counts and
 * q4 layout of SmolVLM-256M-Instruct and of the 2.2 B SmolVLM-Instruct
 * (scripts/make-real-size-model.ts; generated into .cache/real-size-models/
 * on first use and reused), through the app's engine (WorkerEngine → the
 * transformers worker, as a run calls it) and through transformers.js called
 * directly in the page (test/bench/pages/real-size.html), on WASM and on
 * WebGPU.
 *
 * Method. Each path holds the model in a browser of its own (its own
 * browser, GPU and renderer processes), so neither shares a wasm heap,
 * threads or a GPU process with the other: a page that had run ORT directly
 * once slowed the app's worker beside it to 0.38 of its speed. Both load,
 * each makes one warm-up run, then their runs alternate (direct, app, app,
 * direct, …), so a change of the machine's speed while the suite runs weighs
 * on both paths alike. On two cores the machine's speed does change: whole
 * runs of either path go 25–35 % slower for minutes at a time. Measured one
 * page after the other, with a run or two each, the same code gave app ÷
 * direct decode ratios from 0.80 to 1.20; so each ratio here is the median of
 * the ratios of the pairs of runs made side by side, and each speed the
 * median of a path's runs.
 *
 * Each run logs the CPU seconds of the running renderer and of the idle
 * path's whole browser (Chromium's own accounting), and a row gives the idle
 * browser's share of the other path's run time: about 1 %, so the paths do
 * not compete for the cores. A slow run is the running thread itself going
 * slower: NEUROEVAL_REAL_SIZE_THREADS=1 logs each run's CPU by thread, and in
 * a slow run the one busy thread (the page's main thread on the direct path,
 * the DedicatedWorker on the app's) used CPU for its whole wall time, with
 * nothing else on the machine above 5 % (top). In 10 of 12 side-by-side
 * reruns of SmolVLM-2.2B (in one browser and in two alike) one app run, 5–8
 * minutes after its load, took 17–19 s to its first token (others 9–12 s)
 * while its decode kept pace; the two without one ran under Chromium's
 * tracing and with /proc/vmstat read each run (no major faults, reclaim,
 * compaction or huge-page work in any run), and none of 12 app runs made
 * alone did. Its cause is not found (V8's GC trace, on in one stalled
 * rerun, printed the pages' main threads only, not the worker's); the median
 * over 8 pairs keeps one such run from moving a ratio much, and each path's
 * samples show it.
 *
 * On a machine with a GPU, run with NEUROEVAL_BENCH_GPU=1: the suite then
 * launches Chromium with the real-GPU flags, names the adapter on each row,
 * and sets decode speed beside the memory-bandwidth bound of known GPUs.
 */
import { type Browser, type Page, chromium } from '@playwright/test';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REAL_GPU_ARGS } from '../../../scripts/chromium.ts';
import { REAL_SIZE_CACHE } from '../../../scripts/make-real-size-model.ts';
import { ensureRealSizeModel, type RealSizeStamp } from '../../../scripts/real-size-model/build.ts';
import { SMOLVLM_256M, SMOLVLM_2B, type RealSizeDims } from '../../../scripts/real-size-model/dims.ts';
import { type BenchContext, type BenchResult, type BenchSuite, freshContext, median, startBenchVite } from '../harness.ts';
import type { BenchDevice, BenchPath, LoadOptions, RunResult } from '../pages/real-size.ts';
import { isSoftwareAdapter } from '../report.ts';

const PAGE = 'test/bench/pages/real-size.html';
const GPU_MODE = process.env['NEUROEVAL_BENCH_GPU'] === '1';
const PATHS: readonly BenchPath[] = ['direct', 'app'];
/** NEUROEVAL_REAL_SIZE_ONLY=2.2b-wasm (comma-separated keys, see planKey) runs those plans alone: for looking into one of them, not for the committed table. */
const ONLY = process.env['NEUROEVAL_REAL_SIZE_ONLY']?.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean) ?? [];
/** NEUROEVAL_REAL_SIZE_THREADS=1 logs each run's CPU seconds by thread of both paths' renderers (Linux): which thread a slow run spent its time on. */
const THREADS = process.env['NEUROEVAL_REAL_SIZE_THREADS'] === '1';

interface Plan {
  readonly dims: RealSizeDims;
  readonly label: string;
  readonly device: BenchDevice;
  /** Measured runs per path, after one warm-up run each; the paths' runs alternate, so this is also the number of pairs. */
  readonly runs: number;
  /** Tokens of the warm-up run: the first run after load pays for first-use costs (shader compilation on WebGPU, the decode path's first steps). */
  readonly warmupTokens: number;
  readonly maxTokens: number;
  /** Ask with the image (the default) or with the question alone. */
  readonly image: boolean;
}

/**
 * Budgets on two CPU cores (both pages: loads, warm-ups, runs): SmolVLM-256M
 * on WASM with its image about 8 min; SmolVLM-2.2B on WASM about 18 min with
 * the question alone (its 27-layer vision tower alone takes about four
 * minutes a run). The WASM plans have 10 and 8 pairs (were 6 and 4, then
 * 10 and 6): with fewer, one slow run (the machine stalling for seconds)
 * moved a ratio by 0.1–0.15 between reruns of unchanged code (256M decode
 * 0.93 then 1.00; 2.2 B time to first token 1.02 then 0.86, one pair at
 * 0.58).
 * On the software adapter SwiftShader runs every shader on the CPU: a 256M
 * decode step takes about 6 s, a 2.2 B one about 24 s and its 49-token
 * prefill about 2 min, so those ask the question alone, with few tokens:
 * about 8 and 20 min.
 */
function plans(): Plan[] {
  const p = (dims: RealSizeDims, label: string, device: BenchDevice, o: Omit<Plan, 'dims' | 'label' | 'device'>): Plan => ({ dims, label, device, ...o });
  if (GPU_MODE) {
    return [
      p(SMOLVLM_256M, 'SmolVLM-256M', 'webgpu', { runs: 6, warmupTokens: 8, maxTokens: 64, image: true }),
      p(SMOLVLM_2B, 'SmolVLM-2.2B', 'webgpu', { runs: 6, warmupTokens: 8, maxTokens: 64, image: true }),
      p(SMOLVLM_256M, 'SmolVLM-256M', 'wasm', { runs: 6, warmupTokens: 8, maxTokens: 24, image: true }),
      p(SMOLVLM_2B, 'SmolVLM-2.2B', 'wasm', { runs: 3, warmupTokens: 4, maxTokens: 12, image: false }),
    ];
  }
  return [
    p(SMOLVLM_256M, 'SmolVLM-256M', 'wasm', { runs: 10, warmupTokens: 8, maxTokens: 32, image: true }),
    p(SMOLVLM_2B, 'SmolVLM-2.2B', 'wasm', { runs: 8, warmupTokens: 4, maxTokens: 12, image: false }),
    p(SMOLVLM_256M, 'SmolVLM-256M', 'webgpu', { runs: 4, warmupTokens: 2, maxTokens: 6, image: false }),
    p(SMOLVLM_2B, 'SmolVLM-2.2B', 'webgpu', { runs: 2, warmupTokens: 2, maxTokens: 3, image: false }),
  ];
}

/** A plan's key for NEUROEVAL_REAL_SIZE_ONLY: `256m-wasm`, `2.2b-webgpu`, … */
const planKey = (plan: Plan) => `${plan.label.replace('SmolVLM-', '')}-${plan.device}`.toLowerCase();

/**
 * The plans to run: all, or those NEUROEVAL_REAL_SIZE_ONLY names. A key that
 * names no plan, or a subset with --update, is refused rather than run: either
 * would leave a table that silently lacks rows.
 */
function selectedPlans(): Plan[] {
  const all = plans();
  if (ONLY.length === 0) return all;
  const unknown = ONLY.filter((k) => !all.some((plan) => planKey(plan) === k));
  if (unknown.length) throw new Error(`NEUROEVAL_REAL_SIZE_ONLY: no plan ${unknown.join(', ')}; the plans are ${all.map(planKey).join(', ')}`);
  if (process.argv.includes('--update')) throw new Error('NEUROEVAL_REAL_SIZE_ONLY runs part of the suite: leave out --update, which would write its partial table into docs/');
  return all.filter((plan) => ONLY.includes(planKey(plan)));
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

function hardware(device: BenchDevice, adapter: string | null): string {
  if (device === 'wasm') return 'CPU (WASM)';
  const a = adapter ?? 'unknown adapter';
  return isSoftwareAdapter(a) ? `software adapter (SwiftShader: ${a})` : `GPU: ${a}`;
}

/** The browser's processes now, with their type and CPU seconds so far (Chromium's own list and accounting); null where it cannot say. */
async function processes(browser: Browser): Promise<{ type: string; id: number; cpuTime: number }[] | null> {
  try {
    const cdp = await browser.newBrowserCDPSession();
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number; cpuTime: number }[] };
    await cdp.detach();
    return processInfo;
  } catch {
    return null;
  }
}

/** The renderer processes of the browser now, or null where it cannot say. */
async function rendererPids(browser: Browser): Promise<number[] | null> {
  return (await processes(browser))?.filter((p) => p.type === 'renderer').map((p) => p.id) ?? null;
}

/** CPU seconds used so far by each of the browser's processes, by process id; empty where it cannot say. */
async function cpuSeconds(browser: Browser): Promise<Map<number, number>> {
  return new Map((await processes(browser))?.map((p) => [p.id, p.cpuTime]) ?? []);
}

/** CPU seconds the given processes used between two readings. */
function cpuBetween(before: Map<number, number>, after: Map<number, number>, pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + Math.max(0, (after.get(pid) ?? 0) - (before.get(pid) ?? after.get(pid) ?? 0)), 0);
}

/** CPU ticks (1/100 s) used so far by each thread of the given processes, keyed "comm (tid)"; Linux /proc only. */
function threadTicks(pids: readonly number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of pids) {
    const dir = `/proc/${pid}/task`;
    if (!existsSync(dir)) continue;
    for (const tid of readdirSync(dir)) {
      try {
        const stat = readFileSync(`${dir}/${tid}/stat`, 'utf8');
        const close = stat.lastIndexOf(')');
        const comm = stat.slice(stat.indexOf('(') + 1, close);
        const f = stat.slice(close + 2).split(' ');
        out.set(`${comm} (${tid})`, Number(f[11]) + Number(f[12]));
      } catch {
        // The thread ended between listing and reading.
      }
    }
  }
  return out;
}

/** Resident memory of one page's renderer processes (Linux /proc; the peak is reset through clear_refs); null elsewhere. */
class RendererMemory {
  constructor(readonly pids: readonly number[]) {}

  private field(pid: number, name: string): number | null {
    const path = `/proc/${pid}/status`;
    if (!existsSync(path)) return null;
    const kib = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(readFileSync(path, 'utf8'))?.[1];
    return kib === undefined ? null : Number(kib) * 1024;
  }

  private sum(name: string): number | null {
    let sum = 0;
    let live = 0;
    for (const pid of this.pids) {
      const v = this.field(pid, name);
      if (v === null) continue;
      sum += v;
      live++;
    }
    return live ? sum : null;
  }

  /** Starts a new peak from now; returns the resident bytes now. */
  reset(): number | null {
    for (const pid of this.pids) {
      if (!existsSync(`/proc/${pid}/status`)) continue;
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, '5');
      } catch {
        return null;
      }
    }
    return this.current();
  }

  current(): number | null {
    return this.sum('VmRSS');
  }

  peak(): number | null {
    return this.sum('VmHWM');
  }
}

/** One path's page, and what it measured. */
interface PathPage {
  readonly path: BenchPath;
  readonly browser: Browser;
  readonly page: Page;
  readonly memory: RendererMemory;
  loadMs: number;
  adapter: string | null;
  warmup: RunResult | null;
  readonly runs: RunResult[];
  /** Resident memory before loading, bytes. */
  before: number | null;
  /** Peak over `before` (garbage not yet collected included), and what is held after the runs and a full collection. */
  peakGrowth: number | null;
  heldGrowth: number | null;
  gpuPeakBytes: number;
  /** The wall seconds of this path's measured runs, and the CPU seconds this path's whole browser used while idle during the other path's. */
  measuredWallS: number;
  idleOtherCpuS: number;
}

/**
 * Resident memory of a page's renderer after a full garbage collection in
 * the page and in each of its workers (`--expose-gc`): what the path holds,
 * as opposed to its peak, which also counts garbage not yet collected (a
 * load's file buffers and each run's tensors, which V8 frees lazily).
 */
async function heldAfterGc(p: PathPage): Promise<number | null> {
  const gc = () => (globalThis as { gc?: () => void }).gc?.();
  await p.page.evaluate(gc);
  for (const worker of p.page.workers()) await worker.evaluate(gc);
  // Freed pages leave the resident set when the allocator returns them: give it a moment.
  await p.page.waitForTimeout(2000);
  return p.memory.current();
}

type Usage = RunResult['usage'];

function rows(plan: Plan, direct: PathPage, app: PathPage, decoderBytes: number): BenchResult[] {
  const name = `${plan.label}, ${plan.device === 'wasm' ? 'WASM' : 'WebGPU'}`;
  const hw = hardware(plan.device, app.adapter);
  const prompt = (p: PathPage) => p.runs[0]?.usage.promptTokens ?? '?';
  const how = (p: PathPage) =>
    `${hw}; ${p.path === 'app' ? "the app's engine (WorkerEngine → transformers worker)" : 'transformers.js called directly in the page'}; ${plan.image ? `one 64×64 PNG + a one-line question (${prompt(p)} prompt tokens, image tokens included)` : `a one-line question without an image (${prompt(p)} prompt tokens; the vision tower is not run)`}, greedy, up to ${plan.maxTokens} tokens; median of ${p.runs.length} run(s) after a warm-up run of ${plan.warmupTokens} token(s), alternating with the other path's runs`;
  const out: BenchResult[] = [];
  const metric = (label: string, unit: string, f: (u: Usage) => number | null, higherIsBetter: boolean, note: string) => {
    const pairs = direct.runs.map((d, i) => [f(d.usage), app.runs[i] ? f(app.runs[i]!.usage) : null] as const).filter((x): x is readonly [number, number] => x[0] !== null && x[1] !== null);
    if (pairs.length === 0) return;
    const d = pairs.map(([v]) => v);
    const a = pairs.map(([, v]) => v);
    const ratios = pairs.map(([dv, av]) => (higherIsBetter ? av / dv : dv / av));
    const range = (v: number[]) => (v.length > 1 ? ` (runs ${round(Math.min(...v), 2)}–${round(Math.max(...v), 2)})` : '');
    const ofMedians = higherIsBetter ? median(a) / median(d) : median(d) / median(a);
    out.push(
      { name: `${name}: ${label}, direct`, value: median(d), unit, how: `${how(direct)}; ${note}${range(d)}`, samples: d.map((v) => round(v, 3)) },
      { name: `${name}: ${label}, app`, value: median(a), unit, how: `${how(app)}; ${note}${range(a)}`, samples: a.map((v) => round(v, 3)) },
      {
        name: `${name}: ${label}, app ÷ direct`,
        value: median(ratios),
        unit: '×',
        digits: 2,
        how: `${higherIsBetter ? 'app ÷ direct' : 'direct time ÷ app time'}: median over the ${pairs.length} pair(s) of runs made one after the other (pairs ${ratios.map((r) => r.toFixed(2)).join(', ')}; ratio of the medians ${ofMedians.toFixed(2)}); 1.00 = as fast as the raw runtime, target ≥ 0.95`,
        samples: ratios.map((r) => round(r, 3)),
      },
    );
  };
  metric('decode speed', 'tokens/s', (u) => u.decodeTps, true, '(tokens − 1) ÷ time from first to last token');
  metric('prefill speed', 'tokens/s', (u) => u.prefillTps, true, 'prompt tokens ÷ time from model start to first token (vision encoder included)');
  metric('time to first token', 'ms', (u) => u.ttftMs, false, 'from the call (image decoding, processor, vision encoder, prefill)');
  const each = (label: string, unit: string, f: (p: PathPage) => number | null, note: (p: PathPage) => string) => {
    for (const p of [direct, app]) {
      const v = f(p);
      if (v !== null) out.push({ name: `${name}: ${label}, ${p.path}`, value: v, unit, digits: 0, how: `${hw}; ${note(p)}` });
    }
  };
  each('time to first token, first run after load', 'ms', (p) => p.warmup?.usage.ttftMs ?? null, (p) => `${p.path === 'app' ? "the app's engine" : 'transformers.js directly'}; the warm-up run, the first after load${plan.device === 'webgpu' ? ' (it compiles the WebGPU shaders)' : ''}`);
  each('load', 'ms', (p) => p.loadMs, (p) => (p.path === 'app' ? 'WorkerEngine.load from the page' : "processor + three ONNX sessions from the bench's local server"));
  each('peak memory', 'MiB', (p) => (p.peakGrowth === null ? null : p.peakGrowth / MIB), () => "the page's renderer process resident memory (page + worker: JS heaps and wasm memory) at its peak over before loading, garbage not yet collected included");
  each('memory held after the runs', 'MiB', (p) => (p.heldGrowth === null ? null : p.heldGrowth / MIB), () => "the page's renderer process resident memory over before loading, the model still loaded, after the runs and a full garbage collection in the page and its workers");
  each('CPU of the idle browser during the other path\'s runs', '%', (p) => {
    const other = p === direct ? app : direct;
    return other.measuredWallS > 0 ? (p.idleOtherCpuS / other.measuredWallS) * 100 : null;
  }, (p) => `CPU time of all the processes of the ${p.path} path's browser (renderer with page and workers, GPU process, browser process; Chromium's SystemInfo.getProcessInfo) while it held the model idle, ÷ the wall time of the other path's measured runs: near 0 means the two paths did not compete for the cores`);
  if (plan.device === 'webgpu') each('GPU buffers at peak', 'MiB', (p) => p.gpuPeakBytes / MIB, () => 'bytes of WebGPU buffers live at once (createBuffer − destroy, workers/runtime/gpu-meter.ts)');
  const gpu = plan.device === 'webgpu' && !isSoftwareAdapter(app.adapter ?? 'swiftshader') ? GPU_BANDWIDTH.find((g) => g.match.test(app.adapter ?? '')) : undefined;
  const appDecode = app.runs.map((r) => r.usage.decodeTps).filter((v): v is number => v !== null);
  if (gpu && appDecode.length) {
    const bound = gpu.bytesPerS / decoderBytes;
    out.push({
      name: `${name}: decode bound of the GPU's memory bandwidth`,
      value: bound,
      unit: 'tokens/s',
      how: `${(decoderBytes / 1e9).toFixed(3)} GB of q4 decoder weights read per token ÷ ${gpu.name}'s ${(gpu.bytesPerS / 1e12).toFixed(2)} TB/s; the app's decode speed is ${((median(appDecode) / bound) * 100).toFixed(1)} % of it`,
    });
  }
  return out;
}

const fmt = (v: number | null | undefined, d: number) => (v === null || v === undefined ? '?' : v.toFixed(d));
const describeRun = (r: RunResult) => `TTFT ${fmt(r.usage.ttftMs, 0)} ms, prefill ${fmt(r.usage.prefillTps, 1)} tok/s, decode ${fmt(r.usage.decodeTps, 2)} tok/s (${r.usage.completionTokens} tokens)`;

export const realSizeSuite: BenchSuite = {
  id: 'real-size',
  title: 'Real-size models: the app\'s engine against transformers.js',
  description:
    'Random-weight models with the dimensions, layer counts and q4 (MatMulNBits) layout of SmolVLM-256M-Instruct and of the 2.2 B SmolVLM-Instruct (`scripts/make-real-size-model.ts`), through the app\'s engine (the transformers worker a run uses) and through transformers.js called directly in the page: decode and prefill speed, time to first token, load time and memory, and the app ÷ direct ratio (target ≥ 0.95). Each path holds the model in a browser of its own; after one warm-up run each, their runs alternate, so a change in the machine\'s speed weighs on both alike. A speed is the median of a path\'s runs (their range beside it); a ratio is the median over the pairs of runs made one after the other. Each row names its hardware: CPU (WASM), the software WebGPU adapter (SwiftShader, which runs the shaders on the CPU: its figures say nothing of a GPU\'s speed, only of the app\'s overhead on WebGPU), or a GPU with its adapter; GPU rows also give the decode bound of the GPU\'s memory bandwidth.',
  /** About 60 minutes on two CPU cores (see plans()), most of it the 2.2 B model on WASM and on the software adapter. */
  budgetMinutes: 75,
  async run(ctx: BenchContext) {
    const chosen = selectedPlans();
    const models = new Map<string, RealSizeStamp['decoderWeightBytes']>();
    for (const dims of [SMOLVLM_256M, SMOLVLM_2B]) {
      const t0 = performance.now();
      const { stamp, generated } = ensureRealSizeModel(join(REAL_SIZE_CACHE, dims.id), dims);
      ctx.log(`  real-size: ${dims.id} ${generated ? `generated in ${((performance.now() - t0) / 1000).toFixed(0)} s` : 'reused'}`);
      models.set(dims.id, stamp.decoderWeightBytes);
    }
    const { server, url } = await startBenchVite(ctx.root, ['@huggingface/transformers', 'comlink', 'fflate'], true);
    /**
     * A browser of its own for each path (so its own browser, GPU and renderer processes: the idle path's whole browser can be
     * counted while the other runs, GPU process included, which SwiftShader's WebGPU work runs in), with `gc` exposed in every
     * realm (page and workers), so the memory a path holds after its runs is read after a full collection; with the real-GPU
     * flags on a GPU machine.
     */
    const openPage = async (path: BenchPath): Promise<PathPage> => {
      const browser = await chromium.launch({
        executablePath: ctx.chromium.executablePath,
        args: [...ctx.chromium.args, '--js-flags=--expose-gc', ...(GPU_MODE ? [...REAL_GPU_ARGS, '--enable-webgpu-developer-features'] : [])],
        headless: true,
      });
      try {
        const context = await freshContext(browser);
        const page = await context.newPage();
        page.on('pageerror', (e) => ctx.log(`  [pageerror, ${path}] ${e.message}`));
        await page.goto(new URL(PAGE, url).href);
        await page.waitForFunction(() => window.__realSizeBench !== undefined, undefined, { timeout: 120_000 });
        page.setDefaultTimeout(1_200_000);
        const memory = new RendererMemory((await rendererPids(browser)) ?? []);
        return { path, browser, page, memory, loadMs: 0, adapter: null, warmup: null, runs: [], before: null, peakGrowth: null, heldGrowth: null, gpuPeakBytes: 0, measuredWallS: 0, idleOtherCpuS: 0 };
      } catch (e) {
        await browser.close();
        throw e;
      }
    };
    /** One run of `p` while `idle` holds its model; a measured run also counts the idle browser's CPU meanwhile (all its processes). */
    const run = async (p: PathPage, idle: PathPage, maxTokens: number, measured: boolean): Promise<RunResult> => {
      const [c0, i0] = [await cpuSeconds(p.browser), await cpuSeconds(idle.browser)];
      const th0 = THREADS ? threadTicks([...p.memory.pids, ...idle.memory.pids]) : null;
      const t0 = performance.now();
      const r = await p.page.evaluate((n) => window.__realSizeBench!.run(n), maxTokens);
      const wallS = (performance.now() - t0) / 1000;
      const [c1, i1] = [await cpuSeconds(p.browser), await cpuSeconds(idle.browser)];
      if (th0) {
        const th1 = threadTicks([...p.memory.pids, ...idle.memory.pids]);
        const busiest = [...th1].map(([k, v]) => [k, (v - (th0.get(k) ?? 0)) / 100] as const).filter(([, v]) => v >= 0.2).sort((a, b) => b[1] - a[1]);
        ctx.log(`      threads: ${busiest.map(([k, v]) => `${k} ${v.toFixed(1)} s`).join(', ')}`);
      }
      const busy = cpuBetween(c0, c1, p.memory.pids);
      const idleCpu = cpuBetween(i0, i1, [...i1.keys()]);
      if (measured) {
        p.measuredWallS += wallS;
        idle.idleOtherCpuS += idleCpu;
      }
      ctx.log(`    ${p.path}: ${describeRun(r)}; ${wallS.toFixed(1)} s, CPU ${busy.toFixed(1)} s, the idle browser's CPU ${idleCpu.toFixed(1)} s`);
      return r;
    };
    try {
      const results: BenchResult[] = [];
      for (const plan of chosen) {
        ctx.log(`  real-size: ${plan.label}, ${plan.device}: ${plan.runs} run(s) a path, alternating`);
        const pages: PathPage[] = [];
        try {
          for (const path of PATHS) pages.push(await openPage(path));
          const [direct, app] = pages as [PathPage, PathPage];
          for (const p of pages) {
            p.before = p.memory.reset();
            const options: LoadOptions = { path: p.path, model: plan.dims.id, device: plan.device, image: plan.image };
            const loaded = await p.page.evaluate((o) => window.__realSizeBench!.load(o), options);
            p.loadMs = loaded.loadMs;
            p.adapter = loaded.adapter;
            ctx.log(`    ${p.path}: loaded in ${fmt(p.loadMs / 1000, 1)} s`);
          }
          direct.warmup = await run(direct, app, plan.warmupTokens, false);
          app.warmup = await run(app, direct, plan.warmupTokens, false);
          for (let i = 0; i < plan.runs; i++) {
            for (const p of i % 2 === 0 ? [direct, app] : [app, direct]) p.runs.push(await run(p, p === direct ? app : direct, plan.maxTokens, true));
          }
          for (const p of pages) {
            const peak = p.memory.peak();
            const held = await heldAfterGc(p);
            p.peakGrowth = p.before !== null && peak !== null ? peak - p.before : null;
            p.heldGrowth = p.before !== null && held !== null ? held - p.before : null;
            p.gpuPeakBytes = await p.page.evaluate(() => window.__realSizeBench!.gpuPeakBytes());
            await p.page.evaluate(() => window.__realSizeBench!.release());
          }
          results.push(...rows(plan, direct, app, models.get(plan.dims.id)![plan.device]));
        } finally {
          for (const p of pages) await p.browser.close();
        }
      }
      return results;
    } finally {
      await server.close();
    }
  },
};
