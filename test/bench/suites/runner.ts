/**
 * The evaluation runner, in two parts.
 *
 * 1. Runner overhead per item. The page test/bench/pages/runner-overhead.html
 *    (served by a Vite dev server, so it imports src/ directly) reads the demo
 *    bundle ZIP from public/demo with the app's bundle reader, commits it to a
 *    fresh IndexedDB database in a fresh on-disk profile, and runs the real
 *    runner core over it (`planRun`, `runRun`, `runProtocol('auto')`,
 *    `dexieRunStore`, a Web Lock), wired as workers/runner.worker.ts wires it,
 *    with a real `TransformersEngine` (self-test model, WASM) wrapped in a
 *    timing decorator. Overhead = (wall time of the run − time inside
 *    `generate` − model load and unload) ÷ items.
 *
 * 2. Main-thread long tasks during a run of ≥ 1,000 items through the real UI
 *    of the production build (fresh on-disk profile): the Runs page's form
 *    (demo benchmark, self-test model, WASM, several variants and samples,
 *    4 tokens), a `longtask` PerformanceObserver and long-animation-frame
 *    entries (for attribution) installed before "Start the run" is clicked,
 *    until the run's status reads `done`.
 */
import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../../../scripts/serve.mjs';
import { type BenchContext, type BenchResult, type BenchSuite, diskProfile, median, startBenchVite } from '../harness.ts';
import { LONG_TASK_MS, type MainThreadLog, describeLoaf, loafOf, readMainThreadLog, startMainThreadCollectors, tasksByPhase } from '../main-thread.ts';
import type { OverheadResult, RunTiming } from '../pages/runner-overhead.ts';

const PAGE = 'test/bench/pages/runner-overhead.html';

// ---------------------------------------------------------------- part 1: overhead in the runner core

/** Greedy, 4 tokens: the engine call is as short as the self-test model makes it, so the runner's own cost shows. */
const OVERHEAD = { variants: ['none'] as const, samples: 1, maxTokens: 4, repeats: 3, warmupCases: 6 };


const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;

function checkRun(r: RunTiming, what: string): void {
  if (r.status !== 'done') throw new Error(`${what} ended as ${r.status}: ${r.error ?? 'no reason given'}`);
  if (r.generated !== r.items || r.stored !== r.items) throw new Error(`${what}: ${r.items} items planned, ${r.generated} generated, ${r.stored} stored`);
  if (r.errors > 0) throw new Error(`${what}: ${r.errors} item(s) failed`);
}

function overheadOf(r: RunTiming): number {
  return (r.wallMs - r.generateMs - r.loadMs - r.unloadMs) / r.items;
}

async function measureOverhead(ctx: BenchContext): Promise<BenchResult[]> {
  const { server, url } = await startBenchVite(ctx.root, ['@huggingface/transformers', 'comlink', 'fflate', 'dexie'], true);
  let profile: Awaited<ReturnType<typeof diskProfile>> | null = null;
  try {
    profile = await diskProfile(ctx);
    const page = profile.page;
    await page.goto(new URL(PAGE, url).href);
    await page.waitForFunction(() => window.__runnerBench !== undefined, undefined, { timeout: 120_000 });
    page.setDefaultTimeout(240_000);
    ctx.log('  runner: importing the demo bundle into a fresh database');
    await page.evaluate(() => window.__runnerBench!.setup());
    ctx.log(`  runner: overhead, ${OVERHEAD.repeats} runs of the demo benchmark (${OVERHEAD.variants.join(', ')}; ${OVERHEAD.maxTokens} tokens) after a warm-up`);
    const r: OverheadResult = await page.evaluate((o) => window.__runnerBench!.overhead({ ...o, variants: [...o.variants] }), OVERHEAD);
    const deleted = await page.evaluate(() => window.__runnerBench!.cleanup());
    if (!deleted) throw new Error('the bench database was not deleted');
    checkRun(r.warmup, 'the warm-up run');
    r.runs.forEach((run, i) => checkRun(run, `measured run ${i + 1}`));
    if (r.engine.device !== 'wasm') throw new Error(`the engine ran on ${r.engine.device}, expected wasm`);
    return overheadRows(r, ctx);
  } finally {
    try {
      await profile?.close();
    } finally {
      await server.close();
    }
  }
}

function overheadRows(r: OverheadResult, ctx: BenchContext): BenchResult[] {
  const runs = r.runs;
  const items = r.plan.items;
  const per = (f: (run: RunTiming) => number) => runs.map(f);
  const overhead = per(overheadOf);
  const engine = per((run) => run.generateMs / run.items);
  const ratio = per((run) => overheadOf(run) / (run.generateMs / run.items));
  const rate = per((run) => run.items / (run.wallMs / 1000));
  const store = per((run) => Object.values(run.storeMs).reduce((a, b) => a + b, 0) / run.items);
  const save = per((run) => run.storeMs.saveResponse / run.saveCalls);
  const imagesPer = per((run) => run.imagesMs / run.items);
  const other = per((run) => overheadOf(run) - Object.values(run.storeMs).reduce((a, b) => a + b, 0) / run.items - run.imagesMs / run.items);
  const load = per((run) => run.loadMs + run.unloadMs);
  const itemOverheads = runs.flatMap((run) => run.itemOverheadMs);
  const sorted = [...itemOverheads].sort((a, b) => a - b);
  const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0;
  const calls = runs[0]!.generateCalls;
  const byImages = new Map<number, { ms: number[]; tokens: number[] }>();
  for (const c of runs.flatMap((run) => run.calls)) {
    const b = byImages.get(c.images) ?? { ms: [], tokens: [] };
    b.ms.push(c.ms);
    if (c.promptTokens !== null) b.tokens.push(c.promptTokens);
    byImages.set(c.images, b);
  }
  const callsByImages = [...byImages]
    .sort((a, b) => a[0] - b[0])
    .map(([images, b]) => ({ images, callsPerRun: b.ms.length / runs.length, medianMs: round(median(b.ms), 1), medianPromptTokens: b.tokens.length ? median(b.tokens) : null }));
  for (const c of callsByImages) ctx.log(`    calls with ${c.images} image(s): ${c.callsPerRun} per run, median ${c.medianMs} ms, prompt ${c.medianPromptTokens ?? '?'} tokens`);
  const allCalls = runs.flatMap((run) => run.calls);
  const promptTokens = allCalls.map((c) => c.promptTokens).filter((t): t is number => t !== null);
  const callNote = `median call ${median(allCalls.map((c) => c.ms)).toFixed(0)} ms with a ${promptTokens.length ? median(promptTokens).toLocaleString('en-US') : '?'}-token prompt (protocol text plus image tokens of the 256×256 slices)`;
  for (const [i, run] of runs.entries()) {
    ctx.log(`    run ${i + 1}: ${run.items} items in ${(run.wallMs / 1000).toFixed(2)} s; generate ${run.generateMs.toFixed(0)} ms (${run.generateCalls} calls), load+unload ${(run.loadMs + run.unloadMs).toFixed(0)} ms, store ${Object.values(run.storeMs).reduce((a, b) => a + b, 0).toFixed(0)} ms, images ${run.imagesMs.toFixed(0)} ms, progress ${run.progressMs.toFixed(1)} ms`);
  }
  const plan = `${items} items (the demo benchmark's ${r.benchmark.questions} questions × ${r.plan.variants} variant${r.plan.variants === 1 ? '' : 's'} (${OVERHEAD.variants.join(', ')}) × ${r.plan.samples} sample${r.plan.samples === 1 ? '' : 's'}; ${calls} generate calls, multi-turn items make several)`;
  const how = `${plan}, self-test model on WASM, greedy, ${OVERHEAD.maxTokens} tokens; runner core in the page with dexieRunStore on a fresh on-disk database; median of ${runs.length} runs after a ${r.warmup.items}-item warm-up`;
  // Per-run totals for comparisons; the per-call and per-item samples stay out (summarised above).
  const totals = ({ itemOverheadMs: _i, calls: _c, storeMs, ...run }: RunTiming) => ({
    ...Object.fromEntries(Object.entries(run).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v])),
    storeMs: Object.fromEntries(Object.entries(storeMs).map(([k, v]) => [k, round(v)])),
  });
  const detail = { runs: runs.map(totals), warmup: totals(r.warmup), engine: r.engine, crossOriginIsolated: r.crossOriginIsolated, hardwareConcurrency: r.hardwareConcurrency, setupMs: round(r.setupMs), sampleText: r.sampleText };
  return [
    { name: 'Runner overhead per item', value: median(overhead), unit: 'ms', how: `(wall time of runRun − time inside generate − model load and unload) ÷ items; ${how}`, digits: 2, samples: overhead.map((v) => round(v)), detail },
    { name: 'Engine time per item', value: median(engine), unit: 'ms', how: `time inside TransformersEngine.generate (timing decorator) ÷ items; same runs; ${callNote}`, digits: 2, samples: engine.map((v) => round(v)), detail: { callsByImages } },
    { name: 'Overhead ÷ engine time', value: median(ratio), unit: '×', how: 'runner overhead per item ÷ engine time per item; 0 = the runner costs nothing next to the model', digits: 2, samples: ratio.map((v) => round(v, 3)) },
    { name: 'Items per second (runner core)', value: median(rate), unit: 'items/s', how: 'items ÷ wall time of runRun, model load included; same runs', digits: 1, samples: rate.map((v) => round(v, 1)) },
    { name: 'Overhead: storage per item', value: median(store), unit: 'ms', how: 'time inside the RunStore methods (dexieRunStore: one put per answer, status and provenance updates) ÷ items', digits: 2, samples: store.map((v) => round(v)) },
    { name: 'Overhead: one saveResponse', value: median(save), unit: 'ms', how: 'time inside saveResponse ÷ answers stored (one IndexedDB transaction each)', digits: 2, samples: save.map((v) => round(v)) },
    { name: 'Overhead: image loading per item', value: median(imagesPer), unit: 'ms', how: 'time inside the image loader (asset read from IndexedDB, as the runner worker does it) ÷ items', digits: 2, samples: imagesPer.map((v) => round(v)) },
    { name: 'Overhead: the rest per item', value: median(other), unit: 'ms', how: 'overhead − storage − images: protocol prompts, request building, prompt and cache-key hashing, progress, bookkeeping', digits: 2, samples: other.map((v) => round(v)) },
    { name: 'Overhead per item, p95', value: p95, unit: 'ms', how: `95th percentile over the ${itemOverheads.length} items of all runs of (time between two stored answers − generate time between them)`, digits: 2 },
    { name: 'Model load + unload per run', value: median(load), unit: 'ms', how: 'time inside engine.load and engine.unload (left out of the overhead); the runner loads the model on the first item and unloads it at the end', digits: 0, samples: load.map((v) => round(v, 1)) },
  ];
}

// ---------------------------------------------------------------- part 2: long tasks during a UI run

/**
 * What the Runs form is set to. The demo's 54 questions × 7 variants × 3
 * samples = 1,134 items: every kind of variant (as stored, no image, and each degradation at
 * severity 2), so the worker also decodes, degrades and re-encodes images.
 */
const UI_RUN = {
  variants: ['none', 'text-only', 'degrade:noise:2', 'degrade:blur:2', 'degrade:contrast:2', 'degrade:jpeg:2', 'degrade:downsample:2'],
  samples: 3,
  maxTokens: 4,
  minItems: 1000,
};
const DEMO_NAME = 'NeuroEval demo (synthetic)';
/** Longest wait for the run; the workload is never reduced to fit. */
const RUN_TIMEOUT_MS = 330_000;
/** Quiet time after the status reads done, so late work (live queries, GC) is still observed. */
const SETTLE_MS = 1500;

type MarkName = 'click' | 'detail' | 'loading' | 'firstAnswer' | 'done';

interface UiLog {
  marks: Partial<Record<MarkName, number>>;
  /** Answers shown by the run page over time (each change of the count). */
  progress: { t: number; done: number }[];
}

/**
 * Installs a MutationObserver that stamps the steps of the run as the UI
 * shows them (the long-task collectors are installed next to it). Runs in
 * the page (no closures over Node values).
 */
function installRunCollectors(): void {
  const log: UiLog = { marks: {}, progress: [] };
  (window as unknown as { __runnerUi: UiLog }).__runnerUi = log;
  const stamp = (key: MarkName) => {
    log.marks[key] ??= performance.now();
  };
  document.addEventListener(
    'click',
    (e) => {
      const button = (e.target as Element | null)?.closest?.('[data-testid="new-run"] button[type="submit"]');
      if (button) stamp('click');
    },
    true,
  );
  new MutationObserver(() => {
    const m = log.marks;
    if (m.click === undefined || m.done !== undefined) return;
    const detail = document.querySelector('[data-testid="run-detail"]');
    if (!detail) return;
    stamp('detail');
    if (m.loading === undefined && document.querySelector('[data-testid="run-live"]')?.textContent?.trim().startsWith('Loading')) stamp('loading');
    const done = Number(document.querySelector('[data-testid="run-count"]')?.textContent?.trim().split(' ')[0]);
    if (Number.isFinite(done) && done !== log.progress.at(-1)?.done) {
      log.progress.push({ t: performance.now(), done });
      if (done > 0) stamp('firstAnswer');
    }
    if (document.querySelector('[data-testid="run-status"]')?.textContent?.trim() === 'done') stamp('done');
  }).observe(document.body, { childList: true, subtree: true, characterData: true });
}

type Phase = 'before the click' | 'click → run page' | 'model loading' | 'answering' | 'after done';

function phaseOf(t: { startTime: number; duration: number }, m: Required<UiLog['marks']>): Phase {
  const end = t.startTime + t.duration;
  if (end <= m.click) return 'before the click';
  if (t.startTime < m.detail) return 'click → run page';
  if (t.startTime < m.firstAnswer) return 'model loading';
  if (t.startTime < m.done) return 'answering';
  return 'after done';
}

/** A few characters of the built file around a script position, so a minified function can be found. */
function codeAt(dist: string, sourceURL: string, position: number): string | null {
  try {
    const path = new URL(sourceURL).pathname;
    if (!path.endsWith('.js') || position < 0) return null;
    const text = readFileSync(join(dist, decodeURIComponent(path)), 'utf8');
    return text.slice(Math.max(0, position - 40), position + 80).replace(/\s+/g, ' ');
  } catch {
    return null;
  }
}

interface StoredRun {
  status: string;
  planned: number;
  stored: number;
  errors: number;
  device: string | null;
  variants: string[];
  samples: number;
  maxTokens: number;
  latencyMs: number;
  completionTokens: number;
}

/** The run as stored in the app's database, read straight from IndexedDB. */
async function storedRun(page: Page, runId: string): Promise<StoredRun> {
  return page.evaluate(async (id) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('neuroeval');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const get = <T,>(store: string, key: IDBValidKey) =>
      new Promise<T>((resolve, reject) => {
        const req = db.transaction(store).objectStore(store).get(key);
        req.onsuccess = () => resolve(req.result as T);
        req.onerror = () => reject(req.error);
      });
    const all = <T,>(store: string, index: string, key: IDBValidKey) =>
      new Promise<T[]>((resolve, reject) => {
        const req = db.transaction(store).objectStore(store).index(index).getAll(key);
        req.onsuccess = () => resolve(req.result as T[]);
        req.onerror = () => reject(req.error);
      });
    type Config = { spec: { variants: string[]; samples: number; sampling: { maxTokens: number } }; engines: { device?: string }[] };
    const run = await get<{ status: string; plan: { items: number }; config: Config | null }>('runs', id);
    const rows = await all<{ finishReason: string; latencyMs: number; usage: { completionTokens: number | null } }>('responses', 'runId', id);
    db.close();
    const config = run.config;
    return {
      status: run.status,
      planned: run.plan.items,
      stored: rows.length,
      errors: rows.filter((r) => r.finishReason === 'error').length,
      device: config?.engines[0]?.device ?? null,
      variants: config?.spec.variants ?? [],
      samples: config?.spec.samples ?? 0,
      maxTokens: config?.spec.sampling.maxTokens ?? 0,
      latencyMs: rows.reduce((n, r) => n + r.latencyMs, 0),
      completionTokens: rows.reduce((n, r) => n + (r.usage.completionTokens ?? 0), 0),
    };
  }, runId);
}

async function measureUiRun(ctx: BenchContext): Promise<BenchResult[]> {
  const server = await startServer({ root: ctx.dist });
  let profile: Awaited<ReturnType<typeof diskProfile>> | null = null;
  try {
    profile = await diskProfile(ctx);
    const page = profile.page;
    await page.goto(`${server.url}#/benchmarks`);
    await page.waitForSelector('html[data-ready="true"]');
    // The demo benchmark is imported on first start: wait until the list shows it.
    await page.getByTestId('benchmark-list').getByText(DEMO_NAME).first().waitFor({ timeout: 60_000 });
    await page.goto(`${server.url}#/runs`);
    const form = page.getByTestId('new-run');
    await form.getByTestId('run-plan').getByText('requests').waitFor({ timeout: 30_000 });
    // The form switches to WebGPU once it has found an adapter: let that happen first, then choose WASM.
    await page.evaluate(async () => {
      if ('gpu' in navigator) await navigator.gpu.requestAdapter();
    });
    await page.waitForTimeout(500);
    await form.locator('select[name="device"]').selectOption('wasm');
    for (const v of UI_RUN.variants) await form.locator(`input[name="variant"][value="${v}"]`).check();
    await form.locator('input[name="samples"]').fill(String(UI_RUN.samples));
    await form.locator('input[name="max-tokens"]').fill(String(UI_RUN.maxTokens));
    await form.getByTestId('run-plan').getByText(`× ${UI_RUN.variants.length} variants × ${UI_RUN.samples} samples`).waitFor({ timeout: 10_000 });
    const planText = (await form.getByTestId('run-plan').textContent())?.replace(/\s+/g, ' ').trim() ?? '';
    const planned = Number(await form.getByTestId('run-plan').locator('strong').first().textContent());
    if (planned < UI_RUN.minItems) throw new Error(`the form plans ${planned} items, fewer than ${UI_RUN.minItems}`);
    if ((await form.locator('select[name="device"]').inputValue()) !== 'wasm') throw new Error('the device select does not read wasm');

    await startMainThreadCollectors(page);
    await page.evaluate(installRunCollectors);
    // Calibration: one deliberate 80 ms task before the click must be seen, or a count of 0 would mean nothing.
    await page.evaluate(
      () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            const t0 = performance.now();
            let spins = 0;
            while (performance.now() - t0 < 80) spins++;
            resolve(void spins);
          }, 0),
        ),
    );
    await page.waitForTimeout(500);
    const calibrated = (await readMainThreadLog(page)).longTasks.some((t) => t.duration >= 75);
    if (!calibrated) throw new Error('the longtask observer did not report a deliberate 80 ms task: long tasks cannot be counted in this browser');
    ctx.log(`  runner: UI run of ${planned} items (${UI_RUN.variants.length} variants × ${UI_RUN.samples} samples, ${UI_RUN.maxTokens} tokens, WASM)`);
    await form.getByRole('button', { name: 'Start the run' }).click();
    await page.getByTestId('run-detail').waitFor({ timeout: 60_000 });
    const runId = decodeURIComponent(new URL(page.url()).hash.split('/').pop() ?? '');
    const progress = setInterval(() => {
      void page
        .getByTestId('run-count')
        .textContent({ timeout: 1000 })
        .then((t) => ctx.log(`    ${t ?? '?'}`), () => undefined);
    }, 30_000);
    try {
      await page.waitForFunction(() => (window as unknown as { __runnerUi: UiLog }).__runnerUi.marks.done !== undefined, undefined, { timeout: RUN_TIMEOUT_MS, polling: 500 });
    } catch {
      const count = await page.getByTestId('run-count').textContent().catch(() => null);
      const status = await page.getByTestId('run-status').textContent().catch(() => null);
      throw new Error(`the run did not finish in ${RUN_TIMEOUT_MS / 1000} s (status ${status}, ${count}); the workload was not reduced`);
    } finally {
      clearInterval(progress);
    }
    await page.waitForTimeout(SETTLE_MS);
    const log = await page.evaluate(() => (window as unknown as { __runnerUi: UiLog }).__runnerUi);
    const mainThread = await readMainThreadLog(page);
    const stored = await storedRun(page, runId);
    const alert = await page.locator('[data-testid="run-error"]').textContent({ timeout: 100 }).catch(() => null);

    if (stored.status !== 'done') throw new Error(`the run is stored as ${stored.status}${alert ? `: ${alert}` : ''}`);
    if (stored.planned !== planned || stored.stored !== planned) throw new Error(`${planned} items planned, the run record says ${stored.planned}, ${stored.stored} answers stored`);
    if (stored.device !== 'wasm') throw new Error(`the run used ${stored.device}, expected wasm`);
    if (stored.errors > 0) throw new Error(`${stored.errors} answers failed${alert ? `: ${alert}` : ''}`);
    const m = log.marks;
    if (m.click === undefined || m.detail === undefined || m.firstAnswer === undefined || m.done === undefined) throw new Error(`missing timing marks: ${JSON.stringify(m)}`);
    const marks = m as Required<UiLog['marks']>;
    return uiRows(ctx, log, mainThread, marks, stored, planText);
  } finally {
    try {
      await profile?.close();
    } finally {
      await server.close();
    }
  }
}

function uiRows(ctx: BenchContext, log: UiLog, mainThread: MainThreadLog, marks: Required<UiLog['marks']>, stored: StoredRun, planText: string): BenchResult[] {
  const windowEnd = marks.done + SETTLE_MS;
  const inWindow = (t: { startTime: number; duration: number }) => t.startTime + t.duration > marks.click && t.startTime < windowEnd;
  const tasks = mainThread.longTasks
    .filter((t) => inWindow(t) && t.duration > LONG_TASK_MS)
    .map((t) => {
      const loaf = loafOf(mainThread.loafs, t);
      const top = loaf ? [...loaf.scripts].sort((a, b) => b.duration - a.duration)[0] : undefined;
      return {
        startTime: t.startTime,
        duration: t.duration,
        at: t.startTime - marks.click,
        phase: phaseOf(t, marks),
        cause: describeLoaf(loaf),
        code: top ? codeAt(ctx.dist, top.sourceURL, top.sourceCharPosition) : null,
        loafScripts: loaf?.scripts ?? [],
      };
    });
  const frames = mainThread.loafs.filter(inWindow).map((f) => ({ at: f.startTime - marks.click, duration: f.duration, blockingDuration: f.blockingDuration, phase: phaseOf(f, marks), cause: describeLoaf(f) }));
  const byPhase = tasksByPhase(tasks);
  for (const f of frames) ctx.log(`    long animation frame ${f.duration.toFixed(0)} ms (blocking ${f.blockingDuration.toFixed(0)} ms) at +${(f.at / 1000).toFixed(2)} s [${f.phase}]: ${f.cause}`);
  for (const t of tasks) ctx.log(`    long task ${t.duration.toFixed(0)} ms at +${(t.at / 1000).toFixed(2)} s [${t.phase}]: ${t.cause}${t.code ? ` — code: ${t.code}` : ''}`);
  const longest = tasks.reduce((n, t) => Math.max(n, t.duration), 0);
  const totalMs = marks.done - marks.click;
  const answeringMs = marks.done - marks.firstAnswer;
  const items = stored.planned;
  const engineMs = stored.latencyMs;
  const timeline = {
    clickToRunPageMs: marks.detail - marks.click,
    clickToFirstAnswerMs: marks.firstAnswer - marks.click,
    firstAnswerToDoneMs: answeringMs,
    progressUpdatesSeen: log.progress.length,
  };
  ctx.log(`  runner: ${items} items in ${(totalMs / 1000).toFixed(1)} s (first answer after ${(timeline.clickToFirstAnswerMs / 1000).toFixed(2)} s); ${tasks.length} long task(s), ${frames.length} long animation frame(s)`);
  const phaseNote = Object.keys(byPhase).length ? `; by phase: ${Object.entries(byPhase).map(([k, v]) => `${k} ${v.count} (longest ${v.longestMs.toFixed(0)} ms)`).join(', ')}` : '';
  const plan = planText.replace(/ Estimated time:.*$/, '').replace(/\.$/, '');
  const where = `started from the Runs page of the production build in a fresh on-disk profile; the form's plan: "${plan}"; variants ${UI_RUN.variants.join(', ')}; self-test model on WASM, greedy, ${UI_RUN.maxTokens} tokens`;
  return [
    {
      name: 'UI run: items',
      value: items,
      unit: 'items',
      how: where,
      detail: { variants: stored.variants, samples: stored.samples, maxTokens: stored.maxTokens, device: stored.device, planText },
    },
    {
      name: 'UI run: main-thread long tasks',
      value: tasks.length,
      unit: 'tasks',
      how: `target: 0. longtask PerformanceObserver (> ${LONG_TASK_MS} ms) installed on the Runs page before "Start the run", from the click until ${SETTLE_MS / 1000} s after the status reads done${phaseNote}; long-animation-frame script attribution in benchmarks.json`,
      detail: { observedInPage: mainThread.longTasks.length, byPhase, tasks },
    },
    { name: 'UI run: longest main-thread task', value: longest, unit: 'ms', how: `target: none over ${LONG_TASK_MS} ms; 0 when there was no long task`, digits: 0 },
    {
      name: 'UI run: long animation frames',
      value: frames.length,
      unit: 'frames',
      how: mainThread.loafSupported ? 'long-animation-frame entries (> 50 ms from task start to paint) in the same window; they include rendering, which long tasks do not' : 'long-animation-frame is not supported by this Chromium: 0 by default',
      detail: { frames },
    },
    { name: 'UI run: total time', value: totalMs / 1000, unit: 's', how: '"Start the run" click → run status reads done (MutationObserver in the page); includes creating the run in the runner worker and loading the model', digits: 1, detail: timeline },
    { name: 'UI run: items per second', value: items / (totalMs / 1000), unit: 'items/s', how: 'items ÷ total time', digits: 1 },
    { name: 'UI run: click → first answer shown', value: timeline.clickToFirstAnswerMs, unit: 'ms', how: 'run created in the worker, run page shown, model loaded, first answer stored and counted on the page', digits: 0 },
    {
      name: 'UI run: engine time per item',
      value: engineMs / items,
      unit: 'ms',
      how: 'Σ latencyMs of the stored answers (the runner times each engine call in the runner worker, Date.now() resolution) ÷ items',
      digits: 1,
      detail: { completionTokens: stored.completionTokens },
    },
    {
      name: 'UI run: time outside the engine per item',
      value: (answeringMs - engineMs) / Math.max(1, items - 1),
      unit: 'ms',
      how: '(first answer shown → done − Σ engine latency) ÷ (items − 1): the runner in the worker, image variants, storage, progress messages and the page, end to end',
      digits: 1,
    },
  ];
}

export const runnerSuite: BenchSuite = {
  id: 'runner',
  title: 'Runner',
  description:
    'Two views of the evaluation runner on the self-test model (random weights, 2 decoder layers of width 32: about the cheapest engine call the app can make, so the runner\'s own costs show as much as they ever will; a real VLM takes seconds per answer). First, the runner core (`planRun`, `runRun`, `runProtocol(\'auto\')`, `dexieRunStore` on a fresh on-disk database) over the demo benchmark in a page, with a real `TransformersEngine` on WASM behind a timing decorator: the time outside `generate` per item, and what it is made of. Second, a run of more than 1,000 items started from the real Runs page of the production build, with a long-task observer on the page. Target for the main thread: no long task (> 50 ms) during the run.',
  async run(ctx) {
    const results = await measureOverhead(ctx);
    results.push(...(await measureUiRun(ctx)));
    return results;
  },
};
