/**
 * A whole NeuroVLM-Bench run of the real-size SmolVLM-256M (random weights,
 * scripts/make-real-size-model.ts) on WASM, measured against what the
 * machine can do: the demo benchmark's 54 cases asked as the Runs page asks
 * them (runner worker, model host, transformers worker; the smoke harness
 * page, built from the app's modules), greedy, a fixed answer length.
 *
 * Paths, each in a browser of its own:
 * - `app`: the engine now: q8 decoder on WASM, threads from the machine's
 *   cores, the shared system prompt kept, batches where the engine takes
 *   them (for a q8 decoder it decodes alone: batch-size.ts);
 * - `app, 1 thread`: the same on one thread, a few cases (what the threads buy);
 * - `q4, one at a time` and `q4, batched`: the engine now with the q4
 *   decoder (the one an 8-bit decoder cannot be: its activations are
 *   quantised per call, so it decodes alone), the shared prompt kept, a few
 *   cases one at a time and then in the batches the engine measures and
 *   chooses (batch-size.ts): what batching buys where the engine allows it;
 * - `old`: the engine as it was: q4 decoder, onnxruntime-web's own thread
 *   count, every prompt from nothing through transformers.js' `generate`,
 *   a few cases before the app's run and a few after;
 * - `llama.cpp`: native llama.cpp (node-llama-cpp's prebuilt CPU binaries,
 *   installed on demand into .cache/peers/) on a GGUF of the same decoder
 *   (peers/make-gguf.py, Q8_0), the app's prompt length and answer length,
 *   runs before and after the app's run.
 *
 * The bound: memory read bandwidth measured here (peers/bandwidth.ts) ÷ the
 * bytes one decoded token reads: the decoder's weights as the path loads
 * them plus its key/value cache at the prompt's length (fp32 in onnxruntime,
 * f16 in llama.cpp). Answers per hour: answers ÷ the time from the start of
 * the first answer's generation to the last answer stored (the model load
 * left out: each path pays it once).
 */
import { type Browser, type Page, chromium } from '@playwright/test';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REAL_SIZE_CACHE } from '../../../scripts/make-real-size-model.ts';
import { ensureRealSizeModel } from '../../../scripts/real-size-model/build.ts';
import { SMOLVLM_256M, partFile } from '../../../scripts/real-size-model/dims.ts';
import { startServer, type StaticServer } from '../../../scripts/serve.mjs';
import { buildHarness } from '../../../scripts/smoke-real.ts';
import type { TransformersSpec } from '../../../src/core/engines/spec.ts';
import type { SmokeBenchRun } from '../../../src/smoke/types.ts';
import { type BenchContext, type BenchResult, type BenchSuite, freshContext, median } from '../harness.ts';
import { readBandwidth, type Bandwidth } from '../peers/bandwidth.ts';
import { ensureGguf, ensureNodeLlamaCpp, loadLlamaCpp, type LlamaCppRun } from '../peers/llama-cpp.ts';

/** Tokens each answer decodes: random weights never end an answer, so every answer is this long. */
const ANSWER_TOKENS = Number(process.env['NEUROEVAL_RUN_TOKENS'] ?? 48);
/** Cases of the old engine's runs (one before the app's run, one after), and of the one-thread run. */
const OLD_CASES = Number(process.env['NEUROEVAL_RUN_OLD_CASES'] ?? 3);
const ONE_THREAD_CASES = Number(process.env['NEUROEVAL_RUN_ONE_THREAD_CASES'] ?? 6);
/** Cases of each q4 run (one at a time, then batched). */
const BATCH_CASES = Number(process.env['NEUROEVAL_RUN_BATCH_CASES'] ?? 4);
/** The app's run: every case of the demo unless NEUROEVAL_RUN_CASES says fewer (for a quick look, not the committed table). */
const CASES = process.env['NEUROEVAL_RUN_CASES'] ? Number(process.env['NEUROEVAL_RUN_CASES']) : undefined;
const LLAMA_REPS = 3;
/** How long the idle page is watched for long tasks after the app's run (the machine's own background). */
const IDLE_CONTROL_MS = Number(process.env['NEUROEVAL_RUN_IDLE_MS'] ?? 120_000);

const dims = SMOLVLM_256M;
/** fp32 key/value cache bytes one prompt position holds (every layer's keys and values). */
const kvBytesPerPosition = (bytesPerValue: number) => 2 * dims.text.layers * dims.text.kvHeads * dims.text.headDim * bytesPerValue;

interface PathFigures {
  readonly label: string;
  readonly run: SmokeBenchRun & { idle?: { count: number; longestMs: number } };
  readonly answers: number;
  readonly answersPerHour: number;
  readonly firstTtftMs: number;
  readonly laterTtftMs: readonly number[];
  readonly decode: readonly number[];
  readonly promptTokens: number;
  /** Tokens decoded by all answers per second of the run's span: a batch's rows count together. */
  readonly tokensPerS: number;
  /** Answers decoded together, as each answer reports (1 when alone). */
  readonly batches: readonly number[];
}

function figures(label: string, run: PathFigures['run']): PathFigures {
  const done = run.answers.filter((a) => a.finishReason !== 'error').sort((a, b) => a.createdAt - b.createdAt);
  if (done.length === 0) throw new Error(`${label}: no answer (${run.status}: ${run.error ?? 'no error given'})`);
  const first = done[0]!;
  const spanMs = done.at(-1)!.createdAt - (first.createdAt - first.latencyMs);
  const ttft = done.map((a) => a.usage.ttftMs).filter((v): v is number => v !== null);
  return {
    label,
    run,
    answers: done.length,
    answersPerHour: (done.length / spanMs) * 3_600_000,
    firstTtftMs: first.usage.ttftMs ?? NaN,
    laterTtftMs: ttft.slice(1),
    decode: done.map((a) => a.usage.decodeTps).filter((v): v is number => v !== null && v > 0),
    promptTokens: median(done.map((a) => a.usage.promptTokens ?? 0)),
    tokensPerS: (done.reduce((n, a) => n + (a.usage.completionTokens ?? 0), 0) / spanMs) * 1000,
    batches: done.map((a) => a.usage.batch ?? 1),
  };
}

const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;
const range = (xs: readonly number[], d = 1) => (xs.length ? `${round(Math.min(...xs), d)}–${round(Math.max(...xs), d)}` : 'none');

export const realSizeRunSuite: BenchSuite = {
  id: 'real-size-run',
  title: 'Real-size SmolVLM-256M: a NeuroVLM-Bench run against the machine\'s limit',
  description:
    'The demo benchmark\'s cases asked the NeuroVLM-Bench structured prompt (zero-shot: the shared system prompt, then each case\'s image) by a random-weight model of SmolVLM-256M-Instruct\'s dimensions on WASM, through the app\'s runner, model host and transformers worker, greedy, every answer ' +
    `${ANSWER_TOKENS} tokens (random weights never stop early). Beside it: the engine as it was (q4 decoder, onnxruntime-web's default threads, every prompt from nothing), one thread instead of every core, the q4 decoder with the kept prompt one case at a time and then in the batches the engine chooses (an 8-bit decoder decodes alone), and native llama.cpp on a GGUF of the same decoder. ` +
    'Each speed is also given ÷ its bound: memory bandwidth measured here ÷ (decoder weights + key/value cache at the prompt\'s length), the bytes a decoded token must read. Runs of the paths alternate (old engine and llama.cpp before and after the app\'s run), ranges are the spread over answers or runs.',
  budgetMinutes: 300,
  async run(ctx: BenchContext) {
    const log = ctx.log;
    const dir = join(REAL_SIZE_CACHE, dims.id);
    const { stamp } = ensureRealSizeModel(dir, dims);
    const cores = os.cpus().length;
    const bandwidth: Bandwidth = await readBandwidth(cores);
    log(`  real-size-run: memory read bandwidth ${(bandwidth.bytesPerS / 1e9).toFixed(1)} GB/s with ${cores} thread(s) (rounds ${bandwidth.rounds.map((b) => (b / 1e9).toFixed(1)).join(', ')})`);

    const work = mkdtempSync(join(tmpdir(), 'neuroeval-run-bench-'));
    let server: StaticServer | null = null;
    try {
      log('  real-size-run: building the harness page');
      const dist = await buildHarness(join(work, 'dist'));
      symlinkSync(dir, join(dist, 'smoke-model'));
      server = await startServer({ root: dist });
      const location = `${server.url}smoke-model/`;
      const files = stamp.files.map((f) => ({ name: f.path, sha256: '' }));
      const spec = (id: string, label: string, decoder: 'q8' | 'q4', engine?: TransformersSpec['engine']): TransformersSpec => ({
        kind: 'transformers',
        id,
        label,
        location,
        device: 'wasm',
        task: 'image-text-to-text',
        files: files.filter((f) => !f.name.startsWith('onnx/decoder') || f.name === `onnx/${partFile('decoder_model_merged', decoder)}`),
        dtype: { vision_encoder: 'fp32', embed_tokens: 'fp32', decoder_model_merged: decoder },
        ...(engine ? { engine } : {}),
      });

      /** One run in a fresh browser (its own renderer and workers), as a user's tab would. */
      const runIn = async (s: TransformersSpec, cases: number | undefined, idleControlMs = 0): Promise<SmokeBenchRun & { idle?: { count: number; longestMs: number } }> => {
        const browser: Browser = await chromium.launch({ executablePath: ctx.chromium.executablePath, args: [...ctx.chromium.args], headless: true });
        try {
          const page: Page = await (await freshContext(browser)).newPage();
          page.setDefaultTimeout(0);
          page.on('pageerror', (e) => log(`  [pageerror] ${e.message}`));
          let lastLine = '';
          await page.exposeFunction('neuroevalSmokeProgress', (p: { stage: string; done: number; total?: number }) => {
            const line = `    ${s.label}: ${p.stage} ${p.done}/${p.total ?? '?'}`;
            if (p.stage === 'run' && line !== lastLine && p.done % 6 === 0) log(line);
            lastLine = line;
          });
          await page.goto(server!.url);
          await page.waitForSelector('html[data-ready="true"]', { timeout: 120_000 });
          const benchmarkId = await page.evaluate(() => window.neuroevalSmoke!.demo());
          const t0 = performance.now();
          const run = await page.evaluate(([x, b, c, n]) => window.neuroevalSmoke!.runBenchmark(x, b, { protocolId: 'neurovlm-structured', maxTokens: n, ...(c === null ? {} : { cases: c }) }), [s, benchmarkId, cases ?? null, ANSWER_TOKENS] as const);
          log(`    ${s.label}: ${run.answers.length} answers, ${run.status}${run.error ? ` (${run.error})` : ''} in ${((performance.now() - t0) / 1000).toFixed(0)} s; threads ${run.wasmThreads ?? '?'}, weights ${JSON.stringify(run.weights)}, long tasks ${run.longTasks.count} (script ${Math.round(run.longTasks.scriptMs)} ms: ${JSON.stringify(run.longTasks.invokers)})`);
          if (!idleControlMs) return run;
          // The same page doing nothing for a while: the long tasks the machine's other load alone causes.
          const idle = await page.evaluate((ms) => window.neuroevalSmoke!.idleLongTasks(ms), idleControlMs);
          log(`    ${s.label}: idle page, ${idleControlMs / 1000} s: ${idle.count} long tasks`);
          return { ...run, idle };
        } finally {
          await browser.close();
        }
      };

      // llama.cpp peer: its prompt is as long as the app's (known after the app's run), so it runs after a first app answer count is known.
      const entry = ensureNodeLlamaCpp(ctx.root, log);
      const gguf = ensureGguf(ctx.root, dir, join(REAL_SIZE_CACHE, `${dims.id}.Q8_0.gguf`), 'Q8_0', log);
      const llama = await loadLlamaCpp(entry, gguf);
      const llamaRuns: LlamaCppRun[] = [];
      const llamaOne: LlamaCppRun[] = [];
      const runLlama = async (promptTokens: number) => {
        for (let i = 0; i < LLAMA_REPS; i++) {
          llamaRuns.push(await llama.run(promptTokens, ANSWER_TOKENS, cores));
          llamaOne.push(await llama.run(promptTokens, ANSWER_TOKENS, 1));
          const [a, b] = [llamaRuns.at(-1)!, llamaOne.at(-1)!];
          log(`    llama.cpp: ${a.threads} threads decode ${a.decodeTps.toFixed(1)} tok/s, first token ${(a.ttftMs / 1000).toFixed(1)} s; 1 thread ${b.decodeTps.toFixed(1)} tok/s, ${(b.ttftMs / 1000).toFixed(1)} s`);
        }
      };

      let results: BenchResult[];
      try {
        const oldSpec = spec('old-engine', 'old engine', 'q4', { cachedDecoding: false, wasmThreads: 'runtime-default' });
        const oldBefore = figures('old engine (before)', await runIn(oldSpec, OLD_CASES));
        await runLlama(oldBefore.promptTokens);
        const app = figures('app', await runIn(spec('app', 'app', 'q8'), CASES, IDLE_CONTROL_MS));
        const oneThread = figures('app, 1 thread', await runIn(spec('app-1t', 'app, 1 thread', 'q8', { wasmThreads: 1 }), ONE_THREAD_CASES));
        const q4One = figures('q4, one at a time', await runIn(spec('q4-one', 'q4, one at a time', 'q4', { batch: 1 }), BATCH_CASES));
        const q4Batched = figures('q4, batched', await runIn(spec('q4-batched', 'q4, batched', 'q4'), BATCH_CASES));
        const oldAfter = figures('old engine (after)', await runIn(oldSpec, OLD_CASES));
        await runLlama(app.promptTokens);
        results = rows({ app, oneThread, q4One, q4Batched, old: [oldBefore, oldAfter], llamaRuns, llamaOne, llamaBytes: llama.modelBytes, bandwidth, weights: stamp.decoderWeightBytes, cores });
      } finally {
        await llama.dispose();
      }
      return results;
    } finally {
      await server?.close();
      rmSync(work, { recursive: true, force: true });
    }
  },
};

function rows(o: {
  app: PathFigures;
  oneThread: PathFigures;
  q4One: PathFigures;
  q4Batched: PathFigures;
  old: readonly PathFigures[];
  llamaRuns: readonly LlamaCppRun[];
  llamaOne: readonly LlamaCppRun[];
  llamaBytes: number;
  bandwidth: Bandwidth;
  weights: { readonly webgpu: number; readonly wasm: number };
  cores: number;
}): BenchResult[] {
  const bw = o.bandwidth.bytesPerS;
  const bound = (weightBytes: number, positions: number, kvValueBytes: number) => bw / (weightBytes + positions * kvBytesPerPosition(kvValueBytes));
  const { app, oneThread } = o;
  const oldRate = median(o.old.map((p) => p.answersPerHour));
  const oldDecode = o.old.flatMap((p) => p.decode);
  const oldTtft = o.old.flatMap((p) => [p.firstTtftMs, ...p.laterTtftMs]);
  const appBound = bound(o.weights.wasm, app.promptTokens, 4);
  const oldBound = bound(o.weights.webgpu, o.old[0]!.promptTokens, 4);
  const llamaBound = bound(o.llamaBytes, app.promptTokens, 2);
  const appDecode = median(app.decode);
  const laterTtft = median(app.laterTtftMs);
  const llamaDecode = median(o.llamaRuns.map((r) => r.decodeTps));
  const prompt = app.run.answers.find((a) => a.usage.prompt)?.usage.prompt;
  const reused = Math.max(0, ...app.run.answers.map((a) => a.usage.prompt?.reusedTokens ?? 0));
  const how = (p: PathFigures) => `${p.answers} answers of ${ANSWER_TOKENS} tokens; prompt ${p.promptTokens} tokens (median)`;
  const r: BenchResult[] = [
    { name: 'Memory read bandwidth', value: bw / 1e9, unit: 'GB/s', how: `memcmp of two 256 MiB buffers per thread, ${o.cores} thread(s), best of ${o.bandwidth.rounds.length} rounds (${o.bandwidth.rounds.map((b) => (b / 1e9).toFixed(1)).join(', ')})`, digits: 1, samples: [...o.bandwidth.rounds] },
    { name: 'App: answers per hour', value: app.answersPerHour, unit: 'answers/h', how: `${how(app)}; answers ÷ time from the first answer's start to the last answer stored (the load left out); ${app.run.wasmThreads ?? '?'} WASM threads, weights ${JSON.stringify(app.run.weights)}` },
    { name: 'Old engine: answers per hour', value: oldRate, unit: 'answers/h', how: `q4 decoder, onnxruntime-web's default threads, every prompt computed from nothing; median of ${o.old.length} runs of ${OLD_CASES} cases, one before the app's run and one after (${o.old.map((p) => round(p.answersPerHour)).join(', ')})` },
    { name: 'App ÷ old engine, answers per hour', value: app.answersPerHour / oldRate, unit: '×', how: 'target ≥ 10', digits: 1 },
    { name: 'App: time to first token, first case', value: app.firstTtftMs, unit: 'ms', how: 'the first answer: computes the shared system prompt (kept for the others), its image and its question' },
    { name: 'App: time to first token, later cases', value: laterTtft, unit: 'ms', how: `median of the ${app.laterTtftMs.length} later answers (range ${range(app.laterTtftMs, 0)} ms): their image (vision encoder) and their own tokens on the kept prompt` },
    { name: 'App: later ÷ first time to first token', value: laterTtft / app.firstTtftMs, unit: '×', how: 'target ≤ 0.3', digits: 2 },
    { name: 'Old engine: time to first token', value: median(oldTtft), unit: 'ms', how: `median of its ${oldTtft.length} answers (range ${range(oldTtft, 0)} ms): the whole prompt every time` },
    { name: 'App: decode speed', value: appDecode, unit: 'tokens/s', how: `median over the answers (range ${range(app.decode)}); (tokens − 1) ÷ time from the first to the last token`, samples: [...app.decode] },
    { name: 'App: decode ÷ bound', value: appDecode / appBound, unit: '×', how: `bound ${round(appBound)} tokens/s = bandwidth ÷ (q8 decoder ${round(o.weights.wasm / 1e6)} MB + fp32 key/value cache at ${app.promptTokens} positions ${round((app.promptTokens * kvBytesPerPosition(4)) / 1e6)} MB); target ≥ 0.15`, digits: 3 },
    { name: 'App, 1 thread: decode speed', value: median(oneThread.decode), unit: 'tokens/s', how: `${how(oneThread)}; range ${range(oneThread.decode)}; what the second core adds: app ÷ this = ${(appDecode / median(oneThread.decode)).toFixed(2)}` },
    { name: 'App, 1 thread: answers per hour', value: oneThread.answersPerHour, unit: 'answers/h', how: how(oneThread) },
    { name: 'Old engine: decode speed', value: median(oldDecode), unit: 'tokens/s', how: `median over its answers (range ${range(oldDecode)})` },
    { name: 'Old engine: decode ÷ bound', value: median(oldDecode) / oldBound, unit: '×', how: `bound ${round(oldBound)} tokens/s (q4 decoder ${round(o.weights.webgpu / 1e6)} MB + the same cache)`, digits: 3 },
    { name: 'llama.cpp native: decode speed', value: llamaDecode, unit: 'tokens/s', how: `node-llama-cpp prebuilt CPU build, Q8_0 GGUF of the same decoder, ${o.cores} threads, prompt of ${app.promptTokens} tokens; median of ${o.llamaRuns.length} runs before and after the app's (range ${range(o.llamaRuns.map((x) => x.decodeTps))})` },
    { name: 'llama.cpp native: decode ÷ bound', value: llamaDecode / llamaBound, unit: '×', how: `bound ${round(llamaBound)} tokens/s (Q8_0 tensors ${round(o.llamaBytes / 1e6)} MB + f16 key/value cache)`, digits: 3 },
    { name: 'llama.cpp native, 1 thread: decode speed', value: median(o.llamaOne.map((x) => x.decodeTps)), unit: 'tokens/s', how: `range ${range(o.llamaOne.map((x) => x.decodeTps))}` },
    { name: 'llama.cpp native: prompt speed', value: median(o.llamaRuns.map((x) => x.prefillTps)), unit: 'tokens/s', how: `prompt tokens ÷ time to the first token (no vision encoder), ${o.cores} threads (range ${range(o.llamaRuns.map((x) => x.prefillTps))})` },
    { name: 'App ÷ llama.cpp, decode', value: appDecode / llamaDecode, unit: '×', how: 'same decoder size, same prompt length, same machine', digits: 2 },
    {
      name: 'App: main-thread long tasks during the run',
      value: app.run.longTasks.count,
      unit: 'tasks',
      how:
        `PerformanceObserver longtask (> 50 ms) in the page from the run's start to its end (${round(app.run.wallMs / 60000)} min); longest ${round(app.run.longTasks.longestMs, 0)} ms; ` +
        `script in the ${app.run.longTasks.frames} long animation frames ${round(app.run.longTasks.scriptMs, 0)} ms in all (${Object.entries(app.run.longTasks.invokers).map(([k, v]) => `${k} ${round(v, 0)} ms`).join(', ') || 'none'}); ` +
        `the same page idle for ${IDLE_CONTROL_MS / 1000} s afterwards: ${app.run.idle?.count ?? '?'} long tasks (longest ${round(app.run.idle?.longestMs ?? 0, 0)} ms); target 0`,
      detail: { longTasks: app.run.longTasks, idle: app.run.idle },
    },
  ];
  const { q4One, q4Batched } = o;
  const sizes = [...new Set(q4Batched.batches)].sort((a, b) => a - b).join(', ');
  r.push(
    { name: 'q4, one at a time: decoded tokens per second', value: q4One.tokensPerS, unit: 'tokens/s', how: `${how(q4One)}; all answers' tokens ÷ the run's span (prompts included), the shared prompt kept; per-answer decode ${range(q4One.decode)} tokens/s` },
    { name: 'q4, batched: decoded tokens per second', value: q4Batched.tokensPerS, unit: 'tokens/s', how: `${how(q4Batched)}; the batch size the engine measured and chose: ${sizes} answer(s) per step; per-answer decode ${range(q4Batched.decode)} tokens/s` },
    { name: 'q4: batched ÷ one at a time', value: q4Batched.tokensPerS / q4One.tokensPerS, unit: '×', how: `answers per hour ${round(q4Batched.answersPerHour)} against ${round(q4One.answersPerHour)}; the q8 decoder of the app's run decodes alone (batch-size.ts)`, digits: 2 },
  );
  if (prompt) {
    r.push({ name: 'App: prompt tokens', value: app.promptTokens, unit: 'tokens', how: `${prompt.textTokens} text + ${prompt.imageTokens} image (${prompt.images.length} image(s), ${prompt.images.map((i) => `${i.tiles ?? '?'} tile(s)`).join(', ')}); ${reused} of them kept from the shared prompt, so later answers compute ${app.promptTokens - reused}` });
  }
  return r;
}
