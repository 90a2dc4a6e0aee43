/**
 * The engine boundary and the transformers.js runtime on the self-test model.
 *
 * The page test/bench/pages/engine-boundary.html (served by a Vite dev server,
 * so it can import src/ directly) holds the model twice: `TransformersEngine`
 * called directly in the page, and `WorkerEngine` → Comlink → the transformers
 * worker, as the app runs it. The same greedy request (one 64×64 PNG and a
 * question) goes through both, interleaved; every call must give the same text
 * and token count. Then decode speed and time to first token through the
 * worker, on WASM and on WebGPU.
 */
import { type BenchResult, type BenchSuite, freshContext, median, startBenchVite } from '../harness.ts';
import type { BenchDevice, OverheadResult, SpeedResult } from '../pages/engine-boundary.ts';

const PAGE = 'test/bench/pages/engine-boundary.html';
/** Token budgets for the overhead comparison: 1 = the fixed cost of a call dominates; 16 = a short answer. */
const OVERHEAD = { calls: 40, warmup: 5, budgets: [1, 16] } as const;
const SPEED = { maxTokens: 64, runs: { wasm: 5, webgpu: 3 } } as const;


const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;
const LABEL: Record<BenchDevice, string> = { wasm: 'WASM', webgpu: 'WebGPU' };

function overheadRows(r: OverheadResult): BenchResult[] {
  if (!r.sameOutput) throw new Error(`direct and worker calls gave different outputs (${r.maxTokens} tokens)`);
  const direct = median(r.directMs);
  const viaWorker = median(r.workerMs);
  const paired = r.directMs.map((d, i) => r.workerMs[i]! - d);
  const tokens = `${r.completionTokens} token${r.completionTokens === 1 ? '' : 's'}`;
  const how = `${LABEL[r.device]}, ${r.promptTokens}-token prompt (one 64×64 PNG + a question), greedy, ${tokens} out; median of ${r.directMs.length} interleaved calls`;
  return [
    { name: `Direct call in the page (${tokens}), median`, value: direct, unit: 'ms', how: `TransformersEngine.generate on the main thread; ${how}`, samples: r.directMs.map((v) => round(v, 2)) },
    { name: `Call through the worker (${tokens}), median`, value: viaWorker, unit: 'ms', how: `WorkerEngine.generate (Comlink, structured clone of the PNG, streamed tokens); ${how}`, samples: r.workerMs.map((v) => round(v, 2)) },
    { name: `Boundary overhead per call (${tokens})`, value: median(paired), unit: 'ms', how: 'median of (worker − direct) over the interleaved pairs', digits: 2, samples: paired.map((v) => round(v, 2)) },
    { name: `Worker ÷ direct (${tokens})`, value: viaWorker / direct, unit: '×', how: 'ratio of the two medians; 1.00 = no overhead', digits: 2, detail: { text: r.text, workerInfo: r.workerInfo } },
  ];
}

function speedRows(r: SpeedResult): BenchResult[] {
  const d = LABEL[r.device];
  const pick = (f: (u: SpeedResult['runs'][number]) => number | null) => r.runs.map(f).filter((v): v is number => v !== null);
  const decode = pick((u) => u.decodeTps);
  const ttft = pick((u) => u.ttftMs);
  const prefill = pick((u) => u.prefillTps);
  const tokens = pick((u) => u.completionTokens);
  if (decode.length === 0 || ttft.length === 0) throw new Error(`${d}: no decode speed or TTFT measured`);
  const device = r.workerInfo.device === 'webgpu' ? `WebGPU (${r.workerInfo.adapter ?? '?'})` : `WASM, ${r.workerInfo.wasmThreads} thread(s)`;
  const how = `self-test model in the transformers worker, ${device}; up to ${r.maxTokens} tokens (got ${Math.min(...tokens)}–${Math.max(...tokens)}); median of ${r.runs.length} runs after a first one`;
  const rows: BenchResult[] = [
    { name: `${d}: decode speed, median`, value: median(decode), unit: 'tokens/s', how: `${how}; (tokens − 1) ÷ time from first to last token`, samples: decode.map((v) => round(v)) },
    { name: `${d}: time to first token, median`, value: median(ttft), unit: 'ms', how: `${how}; from the worker receiving the call (image decode, vision encoder, prefill)`, samples: ttft.map((v) => round(v)) },
    { name: `${d}: prefill speed, median`, value: median(prefill), unit: 'tokens/s', how: 'prompt tokens (image tokens included) ÷ time from model start to first token; same runs', samples: prefill.map((v) => round(v)) },
  ];
  if (r.device === 'webgpu' && r.first.ttftMs !== null) {
    rows.push({ name: `${d}: time to first token, first run after load`, value: r.first.ttftMs, unit: 'ms', how: 'includes compiling the WebGPU shaders; single sample', detail: r.first });
  }
  return rows;
}

export const engineBoundarySuite: BenchSuite = {
  id: 'engine-boundary',
  title: 'Engine boundary and self-test model speed',
  description:
    'The same greedy request (one 64×64 PNG and a question) to the self-test model (random weights, 2 decoder layers of width 32) through transformers.js called directly in the page and through the app\'s engine boundary (`WorkerEngine` → Comlink → the transformers worker), then decode speed and time to first token through the worker on WASM and on WebGPU. The model is tiny, so these figures show the fixed costs of the runtime and of the boundary, not the speed of a real model.',
  async run(ctx) {
    const { server, url } = await startBenchVite(ctx.root, ['@huggingface/transformers', 'comlink', 'fflate'], true);
    const context = await freshContext(ctx.browser);
    try {
      const page = await context.newPage();
      page.on('pageerror', (e) => ctx.log(`  [pageerror] ${e.message}`));
      await page.goto(new URL(PAGE, url).href);
      await page.waitForFunction(() => window.__engineBench !== undefined, undefined, { timeout: 120_000 });
      page.setDefaultTimeout(240_000);

      const results: BenchResult[] = [];
      // WebGPU first: its first run after load is then the first use of the GPU in this page.
      ctx.log('  engine-boundary: WebGPU speed');
      const gpu = await page.evaluate((o) => window.__engineBench!.speed(o), { device: 'webgpu' as const, runs: SPEED.runs.webgpu, maxTokens: SPEED.maxTokens });
      for (const maxTokens of OVERHEAD.budgets) {
        ctx.log(`  engine-boundary: overhead, WASM, ${maxTokens} token(s), ${OVERHEAD.calls} calls per path`);
        const r = await page.evaluate((o) => window.__engineBench!.overhead(o), { device: 'wasm' as const, calls: OVERHEAD.calls, warmup: OVERHEAD.warmup, maxTokens });
        results.push(...overheadRows(r));
      }
      ctx.log('  engine-boundary: WASM speed');
      const cpu = await page.evaluate((o) => window.__engineBench!.speed(o), { device: 'wasm' as const, runs: SPEED.runs.wasm, maxTokens: SPEED.maxTokens });
      results.push(...speedRows(cpu), ...speedRows(gpu));
      return results;
    } finally {
      await context.close();
      await server.close();
    }
  },
};
