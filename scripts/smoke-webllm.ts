/**
 * Smoke test of the real WebLLM engine: Chromium, the WebLLM worker as Vite
 * bundles it, a real model, one demo image and question. Prints the load
 * time, the answer and the usage figures. Documented in docs/smoke-webllm.md.
 *
 *   npm run smoke:webllm -- --model <catalogue id | WebLLM model id> [--weights <url|dir>] [--lib <url|file>] [--chromium <path>]
 *
 * Exits 1 with the reason when something is missing (no GPU, no weights,
 * no network); a network error surfaces at once, and a download that stops
 * moving fails after --stall seconds.
 */
import type { Browser } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'vite';
import { CATALOGUE } from '../src/core/engines/catalogue.ts';
import { findChromium } from './chromium.ts';
import { openSmokePage } from './smoke-browser.ts';
import { startServer, type StaticServer } from './serve.mjs';

const USAGE = `Usage: npm run smoke:webllm -- --model <catalogue id | WebLLM model id> [options]

  --model <id>          e.g. phi-3.5-vision-q4f32, smollm2-360m-q4f32, Qwen3-0.6B-q4f32_1-MLC
  --weights <url|dir>   base URL of the weights (WebLLM reads <base>/<model_id>/resolve/main/),
                        or a local folder with that layout; default: WebLLM's source (Hugging Face)
  --lib <url|file>      the model library (.wasm) for WebLLM 0.2.86; default: WebLLM's prebuilt URL
  --chromium <path>     browser to use; default: CHROME_PATH, /usr/bin/chromium, Playwright's
  --gpu-flags           add Chrome's documented flags for a real GPU in headless Linux
                        (--use-angle=vulkan --enable-features=Vulkan --disable-vulkan-surface)
  --headed              show the browser window
  --allow-software      run even when the only WebGPU adapter is a software fallback (SwiftShader)
  --question <text>     instead of the demo case's question
  --max-tokens <n>      default 200
  --context-window <n>  KV cache size in tokens; default: the catalogue's
  --stall <s>           fail when a load reports no progress for this long; default 120
  --timeout <s>         overall limit; default 1800
  --verbose             print the browser's console`;

const root = fileURLToPath(new URL('..', import.meta.url));

/** For text-only models (the judges): a short question with a known answer. */
const TEXT_QUESTION = 'In one sentence: which MRI sequence suppresses the signal of cerebrospinal fluid, and why is that useful for multiple sclerosis?';

class SmokeFailure extends Error {}
const fail = (message: string): never => {
  throw new SmokeFailure(message);
};

function options() {
  try {
    const { values } = parseArgs({
      options: {
        model: { type: 'string' },
        weights: { type: 'string' },
        lib: { type: 'string' },
        chromium: { type: 'string' },
        'gpu-flags': { type: 'boolean', default: false },
        headed: { type: 'boolean', default: false },
        'allow-software': { type: 'boolean', default: false },
        question: { type: 'string' },
        'max-tokens': { type: 'string', default: '200' },
        'context-window': { type: 'string' },
        stall: { type: 'string', default: '120' },
        timeout: { type: 'string', default: '1800' },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    });
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    if (!values.model) fail(`--model is required.\n\n${USAGE}`);
    const int = (name: string, v: string | undefined) => {
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n <= 0) fail(`--${name} must be a positive whole number, got "${v}".`);
      return n;
    };
    for (const [flag, value, kind] of [['weights', values.weights, 'folder'], ['lib', values.lib, 'file']] as const) {
      if (value === undefined || /^https?:\/\//.test(value)) continue;
      if (!existsSync(value)) fail(`--${flag}: "${value}" is neither an http(s) URL nor an existing ${kind}.`);
      if (statSync(value).isDirectory() !== (kind === 'folder')) fail(`--${flag} needs a ${kind} (or an http(s) URL): "${value}".`);
    }
    return {
      model: values.model as string,
      weights: values.weights,
      lib: values.lib,
      chromium: values.chromium,
      gpuFlags: values['gpu-flags'],
      headed: values.headed,
      allowSoftware: values['allow-software'],
      question: values.question,
      maxTokens: int('max-tokens', values['max-tokens']) as number,
      contextWindow: int('context-window', values['context-window']),
      stallS: int('stall', values.stall) as number,
      timeoutS: int('timeout', values.timeout) as number,
      verbose: values.verbose,
    };
  } catch (error) {
    if (error instanceof SmokeFailure) throw error;
    return fail(`${(error as Error).message}\n\n${USAGE}`);
  }
}

/** The first demo case with an image: its image bytes, question and reference. */
function demoCase(): { id: string; image: Uint8Array; mime: string; question: string; reference: unknown } {
  const zipPath = join(root, 'public/demo/neuroeval-demo.zip');
  if (!existsSync(zipPath)) fail('public/demo/neuroeval-demo.zip is missing; run "npm run demo".');
  const files = unzipSync(readFileSync(zipPath));
  const cases = strFromU8(files['cases.jsonl'] ?? fail('The demo bundle has no cases.jsonl.'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; images: { path: string; mime: string }[]; questions: { text: string; reference?: unknown }[] });
  const c = cases.find((x) => x.images.length > 0 && x.questions.length > 0) ?? fail('The demo bundle has no case with an image.');
  const img = c.images[0]!;
  const q = c.questions[0]!;
  return { id: c.id, image: files[img.path] ?? fail(`The demo bundle lacks ${img.path}.`), mime: img.mime, question: q.text, reference: q.reference };
}

/** The harness page: the WebLLM client exactly as the app imports it, driven from page.evaluate. */
function harnessSource(): Record<string, string> {
  const src = (p: string) => JSON.stringify(join(root, p));
  return {
    'index.html': '<!doctype html><meta charset="utf-8"><title>NeuroEval WebLLM smoke</title><script type="module" src="./main.js"></script>',
    'main.js': `
import { describeGpu } from ${src('src/core/env/gpu.ts')};
import { webllmWorker } from ${src('src/lib/engines/webllm-client.ts')};

const plain = (e) => ({ name: e?.name ?? 'Error', code: e?.code, message: e?.message ?? String(e) });
const report = (stage, p) => window.__smokeProgress?.({ stage, ...p });

window.__smokeGpu = async () => (await describeGpu(navigator.gpu, 'this page')).facts;
window.__smokeRun = async ({ load, question, image, maxTokens }) => {
  const t0 = performance.now();
  let info;
  try {
    info = await webllmWorker.api.load(load, { onProgress: (p) => report('load', p) });
  } catch (e) {
    return { ok: false, stage: 'load', error: plain(e), ms: performance.now() - t0 };
  }
  const loadWallMs = performance.now() - t0;
  const images = image ? [{ bytes: new Uint8Array(image.bytes), mime: image.mime }] : [];
  const request = {
    messages: [{ role: 'user', text: question, images }],
    sampling: { temperature: 0, topP: 1, seed: 42, maxTokens },
  };
  const t1 = performance.now();
  try {
    const result = await webllmWorker.api.generate({ request }, { onProgress: (p) => report('generate', { phase: p.phase, done: p.done, total: p.total }) });
    return { ok: true, info, loadWallMs, result, generateWallMs: performance.now() - t1 };
  } catch (e) {
    return { ok: false, stage: 'generate', error: plain(e), info, loadWallMs };
  } finally {
    await webllmWorker.api.unload().catch(() => {});
  }
};
window.__smokeReady = true;
`,
  };
}

async function buildHarness(dir: string): Promise<string> {
  for (const [name, text] of Object.entries(harnessSource())) writeFileSync(join(dir, name), text);
  const outDir = join(dir, 'dist');
  await build({
    configFile: false,
    root: dir,
    base: './',
    logLevel: 'error',
    // As vite.config.ts: ES-module workers (WebLLM is code-split), the same target.
    worker: { format: 'es' },
    build: { outDir, emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 16_384, reportCompressedSize: false },
  });
  return outDir;
}

/** A local weights folder or library file (checked in options()) is served from the harness' own origin: the worker fetches same-origin, no CORS. */
function localOrUrl(value: string | undefined, dist: string, mount: string, serverUrl: string, kind: 'dir' | 'file'): string | undefined {
  if (value === undefined) return undefined;
  if (/^https?:\/\//.test(value)) return value;
  const path = resolve(value);
  const target = kind === 'dir' ? mount : `${mount}-${basename(path)}`;
  symlinkSync(path, join(dist, target));
  return `${serverUrl}${target}${kind === 'dir' ? '/' : ''}`;
}

const fmt = (n: number | null | undefined, digits = 1) => (n === null || n === undefined || !Number.isFinite(n) ? 'n/a' : n.toFixed(digits));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface Outcome {
  ok: boolean;
  stage?: 'load' | 'generate';
  error?: { name: string; code?: string; message: string };
  info?: { runtimeVersion: string; modelId: string; entryId: string; adapter: string; fromCache: boolean; loadMs: number; weightsUrl: string; modelLibUrl: string };
  loadWallMs?: number;
  generateWallMs?: number;
  result?: {
    text: string;
    finishReason: string;
    usage: { promptTokens: number | null; completionTokens: number | null; ttftMs: number | null; prefillTps: number | null; decodeTps: number | null; totalMs: number };
  };
}

function hint(o: Outcome): string {
  const m = o.error?.message ?? '';
  if (/could not be downloaded/.test(m)) return 'The weights or the model library could not be fetched: no network, a wrong --weights/--lib, or the mirror lacks <model_id>/resolve/main/. Pass a mirror or a local folder with --weights.';
  if (/shader-f16/.test(m)) return 'This adapter has no shader-f16: use a q4f32 model (e.g. phi-3.5-vision-q4f32), or a GPU and browser with shader-f16.';
  if (/WebGPU/.test(m)) return 'No usable WebGPU in the worker: run on a machine with a GPU; on headless Linux try --gpu-flags.';
  if (/device lost/.test(m)) return 'The GPU ran out of memory: try a smaller model or --context-window 2048.';
  return '';
}

async function main(): Promise<number> {
  const o = options();
  const t0 = Date.now();
  const inCatalogue = CATALOGUE.models.find((m) => m.id === o.model || m.modelId === o.model);
  if (inCatalogue && inCatalogue.runtime !== 'webllm') fail(`"${o.model}" is a ${inCatalogue.runtime} model in the catalogue; WebLLM models: ${CATALOGUE.models.filter((m) => m.runtime === 'webllm').map((m) => m.id).join(', ')}.`);
  const demo = demoCase();
  const isVlm = inCatalogue ? inCatalogue.images : /vision/i.test(o.model);
  const question = o.question ?? (isVlm ? demo.question : TEXT_QUESTION);

  const executablePath = o.chromium ?? (await findChromium());
  if (!executablePath) fail('No Chromium found: run "node scripts/setup-chromium.mjs", set CHROME_PATH, or pass --chromium <path>.');
  if (o.chromium && !existsSync(o.chromium)) fail(`--chromium: no file at "${o.chromium}".`);

  const dir = mkdtempSync(join(tmpdir(), 'neuroeval-smoke-webllm-'));
  let server: StaticServer | null = null;
  let browser: Browser | null = null;
  try {
    process.stdout.write('Bundling the WebLLM worker and a harness page with Vite… ');
    const dist = await buildHarness(dir);
    console.log(`${secs(Date.now() - t0)}`);
    server = await startServer({ root: dist });
    const weightsBaseUrl = localOrUrl(o.weights, dist, 'mlc', server.url, 'dir');
    const modelLibUrl = localOrUrl(o.lib, dist, 'lib', server.url, 'file');

    const opened = await openSmokePage(executablePath as string, o);
    browser = opened.browser;
    const page = opened.page;

    let lastProgress = Date.now();
    let lastPrinted = '';
    let lastPrintAt = 0;
    await page.exposeFunction('__smokeProgress', (p: { stage: string; phase: string; done: number; total?: number; message?: string }) => {
      lastProgress = Date.now();
      if (p.stage !== 'load') return;
      const line = `${p.phase}${p.total === 1 ? ` ${Math.round(p.done * 100)}%` : ''}`;
      if (line === lastPrinted || (Date.now() - lastPrintAt < 2000 && p.done < 1 && line.split(' ')[0] === lastPrinted.split(' ')[0])) return;
      lastPrinted = line;
      lastPrintAt = Date.now();
      console.log(`  [${secs(Date.now() - t0)}] ${line}${p.message ? `  ${p.message.slice(0, 100)}` : ''}`);
    });
    await page.goto(server.url);
    await page.waitForFunction(() => (window as { __smokeReady?: boolean }).__smokeReady === true, undefined, { timeout: 30_000 });

    const gpu = await page.evaluate(() => (window as unknown as { __smokeGpu: () => Promise<{ available: boolean; reason?: string; vendor?: string; architecture?: string; description?: string; isFallbackAdapter?: boolean; features: string[] }> }).__smokeGpu());
    const adapter = gpu.available ? `${gpu.architecture || gpu.description || 'unknown'}, vendor ${gpu.vendor || 'unknown'}${gpu.isFallbackAdapter ? ', software fallback' : ''}${gpu.features.includes('shader-f16') ? ', shader-f16' : ', no shader-f16'}` : 'none';
    console.log(`Chromium:      ${browser.version()} (${executablePath})`);
    console.log(`WebGPU (page): ${adapter}`);
    if (!gpu.available) fail(`No WebGPU adapter: ${gpu.reason ?? 'unknown reason'}. WebLLM needs a GPU; on headless Linux try --gpu-flags.`);
    if (gpu.isFallbackAdapter && !o.allowSoftware) {
      fail('No hardware GPU: the only WebGPU adapter is a software fallback (SwiftShader), too slow for a real model. Run on a machine with a GPU (on headless Linux add --gpu-flags), or pass --allow-software to try anyway.');
    }

    const load = {
      entryId: o.model,
      ...(weightsBaseUrl ? { weightsBaseUrl } : {}),
      ...(modelLibUrl ? { modelLibUrl } : {}),
      ...(o.contextWindow ? { contextWindow: o.contextWindow } : {}),
    };
    console.log(`Model:         ${o.model}${inCatalogue ? ` (${inCatalogue.label})` : ''}`);
    console.log(`Question:      ${question.length > 160 ? `${question.slice(0, 157)}…` : question}`);
    console.log(isVlm ? `Image:         demo case ${demo.id} (${demo.image.length.toLocaleString('en')} bytes, ${demo.mime})` : 'Image:         none (text-only model)');
    console.log('Loading…');

    const run = page.evaluate(
      (input) => (window as unknown as { __smokeRun: (i: unknown) => Promise<unknown> }).__smokeRun(input),
      { load, question, image: isVlm ? { bytes: [...demo.image], mime: demo.mime } : null, maxTokens: o.maxTokens },
    ) as Promise<Outcome>;
    const watchdog = new Promise<never>((_, reject) => {
      const timer = setInterval(() => {
        const now = Date.now();
        if (now - t0 > o.timeoutS * 1000) reject(new SmokeFailure(`Timed out after ${o.timeoutS} s (--timeout).`));
        else if (now - lastProgress > o.stallS * 1000) reject(new SmokeFailure(`No progress for ${o.stallS} s (--stall): the download or the GPU upload stopped moving.`));
      }, 1000);
      void run.finally(() => clearInterval(timer)).catch(() => {});
    });
    const out = await Promise.race([run, watchdog]);

    if (!out.ok) {
      const e = out.error!;
      const h = hint(out);
      fail(`${out.stage === 'generate' ? 'Generation' : 'Load'} failed after ${secs(Date.now() - t0)}: ${e.name}${e.code ? ` (${e.code})` : ''}: ${e.message}${h ? `\n  ${h}` : ''}`);
    }
    const info = out.info!;
    const r = out.result!;
    const u = r.usage;
    console.log('');
    console.log(`WebLLM:        ${info.runtimeVersion}, adapter in the worker: ${info.adapter}`);
    console.log(`Weights:       ${info.weightsUrl}${info.fromCache ? ' (from the browser cache)' : ''}`);
    console.log(`Library:       ${info.modelLibUrl}`);
    console.log(`Load time:     ${secs(info.loadMs)} in the worker, ${secs(out.loadWallMs ?? 0)} on the page`);
    console.log(`Answer (${r.finishReason}):`);
    console.log(r.text.replace(/^/gm, '  '));
    console.log(`Usage:         prompt ${u.promptTokens ?? 'n/a'} tokens, completion ${u.completionTokens ?? 'n/a'} tokens`);
    console.log(`               time to first token ${fmt(u.ttftMs, 0)} ms, prefill ${fmt(u.prefillTps)} tok/s, decode ${fmt(u.decodeTps)} tok/s, total ${secs(u.totalMs)}`);
    if (demo.reference && isVlm && !o.question) console.log(`Reference:     ${JSON.stringify(demo.reference)}`);
    console.log(`smoke:webllm OK in ${secs(Date.now() - t0)}`);
    return 0;
  } finally {
    await browser?.close().catch(() => {});
    await server?.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof SmokeFailure ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.error(`\nsmoke:webllm FAILED: ${message}`);
    process.exit(1);
  },
);
