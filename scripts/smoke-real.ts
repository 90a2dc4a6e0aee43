/**
 * Real-weights smoke test: a catalogue model from a local folder, loaded
 * through the app's own engine (model host, model workers, runner worker)
 * in headless Chromium, answering one demo question per protocol. Prints the
 * answers, time to first token, decode speed, peak GPU buffer memory and
 * whether each JSON answer is valid. Documented in docs/smoke-real.md.
 *
 *   npm run smoke:real -- --model <catalogue-id> --from <folder> [options]
 *
 * Exits 1 with the reason (and what to do) when the folder lacks a file or
 * has the wrong layout, the model does not fit in GPU memory, or a run fails.
 */
import type { Browser } from '@playwright/test';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'vite';
import { CATALOGUE, describeDtypes, f32Alternative, partWord, weightsFor, type CatalogueEntry } from '../src/core/engines/catalogue.ts';
import { describePromptSize } from '../src/core/engines/prompt-size.ts';
import type { EngineSpec, ModelFileRef, TransformersTask } from '../src/core/engines/spec.ts';
import { formatBytes } from '../src/core/text/units.ts';
import { checkModelFolder, mlcShardPaths } from '../src/core/models/folder-layout.ts';
import { MODEL_MANIFEST, parseModelManifest } from '../src/core/models/manifest.ts';
import { PROTOCOL_IDS } from '../src/core/protocols/registry.ts';
import type { SmokeGpu, SmokeLoad, SmokePrepared, SmokeRunResult } from '../src/smoke/types.ts';
import { findChromium } from './chromium.ts';
import { openSmokePage } from './smoke-browser.ts';
import { startServer, type StaticServer } from './serve.mjs';

const USAGE = `Usage: npm run smoke:real -- --model <catalogue-id> --from <folder> [options]

  --model <id>              a catalogue model: ${CATALOGUE.models.filter((m) => m.purpose !== 'encoder' && !m.selfTest).map((m) => m.id).join(', ')}
  --from <folder>           the model's folder: a transformers.js export (config.json, onnx/…) or a
                            WebLLM MLC build (mlc-chat-config.json, tensor-cache.json, shards, one .wasm),
                            e.g. what "neuroeval model-fetch <id> --out <folder>" wrote
  --device webgpu|wasm      default: what the app would choose on this machine (WASM on a software GPU)
  --protocols <a,b,…>       default: all nine (${PROTOCOL_IDS.join(', ')})
  --max-tokens <n>          instead of each protocol's answer budget
  --gpu-memory-limit <MiB>  pretend the GPU has only this much buffer memory (tests the out-of-memory path)
  --json <file>             also write the results as JSON
  --chromium <path>         browser to use; default: CHROME_PATH, /usr/bin/chromium, Playwright's
  --gpu-flags               Chrome's flags for a real GPU in headless Linux
                            (--use-angle=vulkan --enable-features=Vulkan --disable-vulkan-surface)
  --allow-software          use WebGPU even when the adapter is a software fallback (SwiftShader)
  --harness <dir>           reuse a harness built earlier with --build-harness <dir>
  --build-harness <dir>     only build the harness page into <dir>, then exit
  --headed                  show the browser window
  --stall <s>               fail when nothing moves for this long; default 300
  --timeout <s>             overall limit; default 3600
  --verbose                 print the browser's console`;

const root = fileURLToPath(new URL('..', import.meta.url));
const MIB = 1024 * 1024;

export class SmokeFailure extends Error {}
const fail = (message: string): never => {
  throw new SmokeFailure(message);
};

interface Options {
  readonly model: string;
  readonly from: string;
  readonly device: 'webgpu' | 'wasm' | null;
  readonly protocols: string[] | null;
  readonly maxTokens: number | null;
  readonly gpuLimitBytes: number | null;
  readonly json: string | null;
  readonly chromium: string | undefined;
  readonly gpuFlags: boolean;
  readonly allowSoftware: boolean;
  readonly harness: string | null;
  readonly headed: boolean;
  readonly stallS: number;
  readonly timeoutS: number;
  readonly verbose: boolean;
}

function options(argv: string[]): Options | { buildOnly: string } {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        model: { type: 'string' },
        from: { type: 'string' },
        device: { type: 'string' },
        protocols: { type: 'string' },
        'max-tokens': { type: 'string' },
        'gpu-memory-limit': { type: 'string' },
        json: { type: 'string' },
        chromium: { type: 'string' },
        'gpu-flags': { type: 'boolean', default: false },
        'allow-software': { type: 'boolean', default: false },
        harness: { type: 'string' },
        'build-harness': { type: 'string' },
        headed: { type: 'boolean', default: false },
        stall: { type: 'string', default: '300' },
        timeout: { type: 'string', default: '3600' },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }).values;
  } catch (error) {
    return fail(`${(error as Error).message}\n\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (values['build-harness']) return { buildOnly: resolve(values['build-harness']) };
  if (!values.model) fail(`--model is required.\n\n${USAGE}`);
  if (!values.from) fail(`--from is required: the folder holding ${values.model}'s files.\n\n${USAGE}`);
  const num = (name: string, v: string | undefined, integer: boolean) => {
    if (v === undefined) return null;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) fail(`--${name} must be a positive ${integer ? 'whole ' : ''}number, got "${v}".`);
    return n;
  };
  if (values.device !== undefined && values.device !== 'webgpu' && values.device !== 'wasm') fail(`--device must be webgpu or wasm, got "${values.device}".`);
  const protocols = values.protocols ? values.protocols.split(',').map((p) => p.trim()).filter(Boolean) : null;
  const unknown = protocols?.filter((p) => !(PROTOCOL_IDS as readonly string[]).includes(p)) ?? [];
  if (unknown.length) fail(`--protocols: unknown ${unknown.join(', ')}; known: ${PROTOCOL_IDS.join(', ')}.`);
  const limitMiB = num('gpu-memory-limit', values['gpu-memory-limit'], false);
  return {
    model: values.model as string,
    from: resolve(values.from as string),
    device: (values.device as 'webgpu' | 'wasm' | undefined) ?? null,
    protocols,
    maxTokens: num('max-tokens', values['max-tokens'], true),
    gpuLimitBytes: limitMiB === null ? null : Math.round(limitMiB * MIB),
    json: values.json ? resolve(values.json) : null,
    chromium: values.chromium,
    gpuFlags: values['gpu-flags'],
    allowSoftware: values['allow-software'],
    harness: values.harness ? resolve(values.harness) : null,
    headed: values.headed,
    stallS: num('stall', values.stall, true) as number,
    timeoutS: num('timeout', values.timeout, true) as number,
    verbose: values.verbose,
  };
}

function catalogueEntry(id: string): CatalogueEntry {
  const entry = CATALOGUE.models.find((m) => m.id === id);
  if (!entry) fail(`"${id}" is not in the catalogue. Catalogue models: ${CATALOGUE.models.map((m) => m.id).join(', ')}.`);
  if (entry!.purpose === 'encoder') fail(`"${id}" is an encoder (similarity scoring): it answers no questions. Try it on the Models page instead.`);
  return entry!;
}

/** Every file under `dir`, relative, with `/` separators. */
function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile() || e.isSymbolicLink()) out.push(relative(dir, full).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

function sha256File(path: string): Promise<string> {
  return new Promise((res, rej) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => res(hash.digest('hex')))
      .on('error', rej);
  });
}

export interface CheckedFolder {
  readonly files: string[];
  /** The files that identify the weights, hashed (and checked against manifest.json when the folder has one). */
  readonly refs: ModelFileRef[];
  readonly bytes: number;
  /** The model library of an MLC folder. */
  readonly library: string | null;
}

/** The folder fits the catalogue entry, or a SmokeFailure names every problem. */
export async function checkFolder(entry: CatalogueEntry, folder: string): Promise<CheckedFolder> {
  if (!existsSync(folder)) fail(`--from: no folder at "${folder}".`);
  if (!statSync(folder).isDirectory()) fail(`--from needs the model's folder, not a file: "${folder}".`);
  const files = listFiles(folder);
  if (files.length === 0) fail(`--from: "${folder}" is empty.`);
  const index = ['tensor-cache.json', 'ndarray-cache.json'].find((f) => files.includes(f));
  const shards = index ? mlcShardPaths(readFileSync(join(folder, index), 'utf8')) : null;
  const problems = checkModelFolder(entry, files, shards);
  if (problems.length) {
    fail(`${folder} cannot be ${entry.label} (${entry.runtime}):\n${problems.map((p) => `  - ${p.message}`).join('\n')}\n  ${entry.source ? `The folder should hold ${entry.source.page} at revision ${entry.source.revision}, laid out as there; "neuroeval model-fetch ${entry.id} --out <folder>" writes exactly that.` : `The folder should be a copy of ${entry.sources[0] ?? 'the model repository'}, laid out as there.`}`);
  }
  const manifest = files.includes(MODEL_MANIFEST) ? parseModelManifest(JSON.parse(readFileSync(join(folder, MODEL_MANIFEST), 'utf8')), join(folder, MODEL_MANIFEST)) : null;
  const refs: ModelFileRef[] = [];
  let bytes = 0;
  for (const name of files) {
    if (name === MODEL_MANIFEST || /(^|\/)README\.md$/.test(name)) continue;
    const size = statSync(join(folder, name)).size;
    const sha256 = await sha256File(join(folder, name));
    const listed = manifest?.files.find((f) => f.path === name);
    if (listed && (listed.bytes !== size || listed.sha256 !== sha256)) fail(`${name} does not match ${MODEL_MANIFEST} (expected ${listed.bytes} bytes, SHA-256 ${listed.sha256.slice(0, 12)}…; found ${size} bytes, ${sha256.slice(0, 12)}…): the copy is damaged or was changed.`);
    refs.push({ name, sha256 });
    bytes += size;
  }
  const missing = manifest?.files.filter((f) => !files.includes(f.path)) ?? [];
  if (missing.length) fail(`${missing[0]!.path} is missing: ${MODEL_MANIFEST} lists it (${missing.length} file(s) missing in all).`);
  return { files, refs, bytes, library: files.find((f) => f.endsWith('.wasm')) ?? null };
}

/** Builds the harness page (src/smoke/) with the app's own Vite config, CSP and public files. */
export async function buildHarness(outDir: string): Promise<string> {
  await build({
    configFile: join(root, 'vite.config.ts'),
    root: join(root, 'src/smoke'),
    publicDir: join(root, 'public'),
    logLevel: 'error',
    build: { outDir, emptyOutDir: true, reportCompressedSize: false, chunkSizeWarningLimit: 16_384 },
  });
  return outDir;
}

/** Mounts the model folder on the harness' origin where the engine reads it; returns the spec. */
function mountModel(entry: CatalogueEntry, folder: string, checked: CheckedFolder, dist: string, url: string, device: 'webgpu' | 'wasm'): EngineSpec {
  const link = (target: string, at: string) => {
    mkdirSync(dirname(join(dist, at)), { recursive: true });
    rmSync(join(dist, at), { recursive: true, force: true });
    symlinkSync(target, join(dist, at));
  };
  if (entry.runtime === 'webllm') {
    // WebLLM reads <base>/<model id>/resolve/main/<file>, as an imported MLC folder is kept (model-manager).
    link(folder, `smoke-model/${entry.modelId}/resolve/main`);
    link(join(folder, checked.library!), `smoke-model/lib/${checked.library!.split('/').pop()}`);
    return {
      kind: 'webllm',
      id: entry.id,
      label: entry.label,
      entryId: entry.id,
      weightsBaseUrl: `${url}smoke-model/`,
      modelLibUrl: `${url}smoke-model/lib/${checked.library!.split('/').pop()}`,
      task: entry.images ? 'image-text-to-text' : 'text-generation',
      files: checked.refs,
    };
  }
  link(folder, 'smoke-model');
  // The device's own files where the folder has them, else the best it holds (catalogue.ts weightsFor), said aloud.
  const weights = weightsFor(entry, device === 'webgpu' ? 'webgpu' : 'wasm', checked.files);
  if (weights) {
    const other = [
      ...weights.substituted.map((s) => `the folder has no ${s.wanted} ${partWord(s.part)}, so its ${s.dtype} one`),
      ...weights.missing.map((p) => `the folder has no ${partWord(p)} file`),
    ].join('; ');
    console.log(`Weights:   ${weights.summary} (the catalogue's choice for ${device}${other ? `; ${other}` : ''})`);
  }
  const dtype = weights ? { ...weights.dtype } : undefined;
  return {
    kind: 'transformers',
    id: entry.id,
    label: entry.label,
    location: `${url}smoke-model/`,
    device,
    task: entry.task as TransformersTask,
    files: checked.refs,
    ...(dtype ? { dtype } : {}),
  };
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const fmt = (n: number | null | undefined, digits = 1) => (n === null || n === undefined || !Number.isFinite(n) ? 'n/a' : n.toFixed(digits));

/** What the error means and what to do, for the failures a user meets. */
export function hintFor(message: string, entry: CatalogueEntry, device: string): string {
  if (/out of memory|OutOfMemory|device (was )?lost|DEVICE_LOST/i.test(message)) {
    const alt = f32Alternative(entry);
    return `The model did not fit in GPU memory (the catalogue lists about ${Math.round(entry.vramMB)} MB for ${entry.label}). Close other GPU work, ${device === 'webgpu' ? 'try --device wasm (slower, uses system memory), ' : ''}or choose a smaller model${alt ? ` (e.g. ${alt.id})` : ''}.`;
  }
  if (/\b404\b|not found|could not locate file|could not be (fetched|downloaded)|Failed to fetch/i.test(message)) {
    return `A file the runtime asked for is not in the folder (its name is in the error).${entry.source ? ` Fetch the model again with "neuroeval model-fetch ${entry.id} --out <folder>" and point --from at that folder.` : ` Copy it from ${entry.sources[0] ?? 'the model repository'}.`}`;
  }
  if (/shader-f16/i.test(message)) {
    const alt = f32Alternative(entry);
    return alt ? `This GPU lacks shader-f16: try ${alt.id}, the same model with f32 math.` : 'This GPU lacks shader-f16 and the catalogue has no f32-math build of this model: use --device wasm or another GPU.';
  }
  return '';
}

function report(entry: CatalogueEntry, device: string, gpu: SmokeGpu, load: SmokeLoad, results: readonly SmokeRunResult[], prepared: SmokePrepared): void {
  for (const r of results) {
    console.log('');
    console.log(`── ${r.pick.protocolLabel} (${r.pick.protocolId}), case ${r.pick.caseId}${r.pick.native ? '' : ' (fits; no demo case defaults to it)'}`);
    if (r.error) console.log(`   FAILED: ${r.error}`);
    for (const a of r.answers) {
      const u = a.usage;
      console.log(`   question ${a.questionId}: ${a.finishReason === 'length' ? 'TRUNCATED (hit the token limit)' : `finished (${a.finishReason})`}, ${u.completionTokens ?? 'n/a'} tokens`);
      console.log(`   time to first token ${fmt(u.ttftMs, 0)} ms · decode ${fmt(u.decodeTps)} tok/s · prefill ${fmt(u.prefillTps)} tok/s · ${secs(a.latencyMs)}`);
      console.log(`   prompt ${describePromptSize(u.promptTokens, u.prompt)}`);
      console.log(`   ${a.json === null ? 'free-text answer' : `JSON ${a.json}`} · ${a.parseError === null ? 'parsed by the protocol' : `not parsed: ${a.parseError}`}`);
      console.log(a.text.trim().split('\n').map((l) => `   │ ${l}`).join('\n'));
    }
    if (device === 'webgpu') console.log(`   peak GPU buffer memory during this question: ${formatBytes(r.gpuPeakBytes)}`);
  }
  for (const p of prepared.unfit) console.log(`\n── ${p}: no demo case fits this protocol; not asked.`);
  const answers = results.flatMap((r) => r.answers);
  const json = answers.filter((a) => a.json !== null);
  const decode = answers.map((a) => a.usage.decodeTps).filter((v): v is number => v !== null && v > 0);
  const ttft = answers.map((a) => a.usage.ttftMs).filter((v): v is number => v !== null);
  const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : null);
  console.log('');
  console.log(`Summary for ${entry.label} on ${device} (${gpu.adapter}${gpu.fallback ? ', software fallback' : ''}):`);
  console.log(`  load ${secs(load.wallMs)} · answers ${answers.length} from ${results.length} protocols · failed runs ${results.filter((r) => r.error).length}`);
  if (load.weights && Object.keys(load.weights).length) console.log(`  weights ${describeDtypes(load.weights)}${device === 'wasm' && load.wasmThreads ? ` · ${load.wasmThreads} WASM thread${load.wasmThreads === 1 ? '' : 's'}` : ''}`);
  const prompts = answers.map((a) => a.usage.promptTokens).filter((v): v is number => v !== null);
  if (prompts.length) console.log(`  prompt tokens ${Math.min(...prompts)}–${Math.max(...prompts)} (median ${median(prompts)})`);
  console.log(`  median time to first token ${fmt(median(ttft), 0)} ms · median decode ${fmt(median(decode))} tok/s`);
  console.log(`  JSON answers valid ${json.filter((a) => a.json === 'valid').length}/${json.length}, repaired ${json.filter((a) => a.json === 'repaired').length}, invalid ${json.filter((a) => a.json === 'invalid').length} · truncated ${answers.filter((a) => a.finishReason === 'length').length}/${answers.length}`);
  if (device === 'webgpu') console.log(`  peak GPU buffer memory: ${formatBytes(Math.max(load.gpuPeakBytes, ...results.map((r) => r.gpuPeakBytes)))} (catalogue estimate ${Math.round(entry.vramMB)} MB)`);
}

async function main(argv: string[]): Promise<number> {
  const parsed = options(argv);
  if ('buildOnly' in parsed) {
    await buildHarness(parsed.buildOnly);
    console.log(`Harness built in ${parsed.buildOnly}`);
    return 0;
  }
  const o = parsed;
  const t0 = Date.now();
  const entry = catalogueEntry(o.model);
  process.stdout.write(`Checking ${o.from} against the catalogue's file list for ${entry.id}… `);
  const checked = await checkFolder(entry, o.from);
  console.log(`${checked.files.length} files, ${formatBytes(checked.bytes)}, hashed`);

  const executablePath = o.chromium ?? (await findChromium());
  if (!executablePath) fail('No Chromium found: run "node scripts/setup-chromium.mjs", set CHROME_PATH, or pass --chromium <path>.');

  const dir = mkdtempSync(join(tmpdir(), 'neuroeval-smoke-real-'));
  let server: StaticServer | null = null;
  let browser: Browser | null = null;
  try {
    let dist = o.harness;
    if (dist) {
      if (!existsSync(join(dist, 'index.html'))) fail(`--harness: "${dist}" holds no built harness; build one with --build-harness <dir>.`);
      // A private copy of the links only: the harness' files are shared, the model mount is ours.
      const own = join(dir, 'dist');
      mkdirSync(own);
      for (const name of readdirSync(dist)) symlinkSync(join(dist, name), join(own, name));
      dist = own;
    } else {
      process.stdout.write('Building the harness page with the app\'s Vite config… ');
      dist = await buildHarness(join(dir, 'dist'));
      console.log(secs(Date.now() - t0));
    }
    server = await startServer({ root: dist });
    const opened = await openSmokePage(executablePath as string, o);
    browser = opened.browser;
    const page = opened.page;

    let lastProgress = Date.now();
    let lastLine = '';
    await page.exposeFunction('neuroevalSmokeProgress', (p: { stage: string; phase: string; done: number; total?: number; message?: string }) => {
      lastProgress = Date.now();
      const line = p.stage === 'load' ? `  loading: ${p.phase}${p.total === 1 ? ` ${Math.round(p.done * 100)}%` : ''}` : '';
      if (line && line.replace(/\d+%$/, '') !== lastLine.replace(/\d+%$/, '')) console.log(`${line}${p.message ? `  ${p.message.slice(0, 90)}` : ''}`);
      if (line) lastLine = line;
    });
    await page.goto(server.url);
    // page.evaluate runs its function's source in the page: it reaches the harness only through window.
    await page.waitForSelector('html[data-ready="true"]', { timeout: 60_000 });

    const gpu = await page.evaluate(() => window.neuroevalSmoke!.gpu());
    console.log(`Chromium:  ${browser.version()} (${executablePath})`);
    console.log(`WebGPU:    ${gpu.available ? `${gpu.adapter}${gpu.fallback ? ', software fallback' : ''}, ${gpu.shaderF16 ? 'shader-f16' : 'no shader-f16'}` : `none (${gpu.reason ?? 'unknown reason'})`}`);
    const device = entry.runtime === 'webllm' ? 'webgpu' : (o.device ?? gpu.preferred);
    console.log(`Device:    ${device}${o.device ? ' (--device)' : entry.runtime === 'webllm' ? ' (WebLLM runs on WebGPU only)' : ` (${gpu.preferredReason})`}`);
    if (device === 'webgpu') {
      if (!gpu.available) fail(`No WebGPU adapter: ${gpu.reason ?? 'unknown reason'}. ${entry.runtime === 'webllm' ? 'WebLLM needs a GPU' : 'Use --device wasm'}; on headless Linux try --gpu-flags.`);
      if (gpu.fallback && !o.allowSoftware && !o.device) fail('The only WebGPU adapter is a software fallback (SwiftShader), far too slow for a real model. Run on a machine with a GPU (on headless Linux add --gpu-flags), or pass --allow-software to try anyway.');
      if (entry.needsShaderF16 && !gpu.shaderF16) fail(hintFor('shader-f16', entry, device));
    }

    const spec = mountModel(entry, o.from, checked, dist, server.url, device);
    const prepared = await page.evaluate((p) => window.neuroevalSmoke!.prepare(p), o.protocols);
    console.log(`Questions: ${prepared.picks.map((p) => `${p.protocolId} (${p.caseId})`).join(', ')}`);

    const watchdog = <T>(work: Promise<T>): Promise<T> =>
      Promise.race([
        work,
        new Promise<never>((_, reject) => {
          const timer = setInterval(() => {
            if (Date.now() - t0 > o.timeoutS * 1000) reject(new SmokeFailure(`Timed out after ${o.timeoutS} s (--timeout).`));
            else if (Date.now() - lastProgress > o.stallS * 1000) reject(new SmokeFailure(`Nothing moved for ${o.stallS} s (--stall): the load or the generation stopped.`));
          }, 1000);
          void work.finally(() => clearInterval(timer)).catch(() => {});
        }),
      ]);

    console.log(`Loading ${entry.label} through the app's model host…`);
    lastProgress = Date.now();
    const load = await watchdog(page.evaluate(([s, l]) => window.neuroevalSmoke!.load(s, l), [spec, o.gpuLimitBytes] as const));
    if (!load.ok) {
      const e = load.error!;
      const gpuSaid = [load.gpuErrors.outOfMemory, load.gpuErrors.deviceLost && `GPU device lost (${load.gpuErrors.deviceLost})`].filter(Boolean).join('; ');
      const hint = hintFor(`${gpuSaid} ${e.code ?? ''} ${e.message}`, entry, device);
      fail(`Load failed after ${secs(load.wallMs)}: ${gpuSaid ? `${gpuSaid}.\n  The runtime reported: ` : ''}${e.name}${e.code ? ` (${e.code})` : ''}: ${e.message}${device === 'webgpu' ? `\n  GPU buffers at the failure: peak ${formatBytes(load.gpuPeakBytes)}${o.gpuLimitBytes ? ` of the ${formatBytes(o.gpuLimitBytes)} --gpu-memory-limit` : ''}.` : ''}${hint ? `\n  ${hint}` : ''}`);
    }
    console.log(`Loaded in ${secs(load.wallMs)} (${load.runtime}, ${load.device}), ${load.modelBytes > 0 ? `read ${formatBytes(load.modelBytes)} of model files (${load.modelFiles.length} files)` : 'no model file bytes reported'}${device === 'webgpu' ? `, GPU buffers ${formatBytes(load.gpuPeakBytes)}` : ''}`);
    if (load.weights && Object.keys(load.weights).length) console.log(`Loaded:    ${describeDtypes(load.weights)}${load.device === 'wasm' && load.wasmThreads ? ` · ${load.wasmThreads} WASM thread${load.wasmThreads === 1 ? '' : 's'}` : ''}`);

    const results: SmokeRunResult[] = [];
    for (const pick of prepared.picks) {
      process.stdout.write(`Asking ${pick.protocolId}… `);
      lastProgress = Date.now();
      const variant = entry.images ? 'none' : 'text-only';
      const r = await watchdog(page.evaluate(([s, b, p, x]) => window.neuroevalSmoke!.run(s, b, p, x), [spec, prepared.benchmarkId, pick, { maxTokens: o.maxTokens, variant }] as const));
      // What WebGPU said comes first: the runtime's own error often hides an out-of-memory.
      const gpuSaid = [r.gpuErrors.outOfMemory, r.gpuErrors.deviceLost && `GPU device lost (${r.gpuErrors.deviceLost})`].filter(Boolean).join('; ');
      const result = r.error && gpuSaid ? { ...r, error: `${gpuSaid}; the run reported: ${r.error}` } : r;
      console.log(result.error ? `failed (${secs(r.wallMs)})` : `${r.answers.length} answer(s) in ${secs(r.wallMs)}`);
      results.push(result);
      if (gpuSaid) break;
    }
    report(entry, device, gpu, load, results, prepared);
    if (o.json) {
      writeFileSync(o.json, `${JSON.stringify({ model: entry.id, folder: o.from, device, gpu, load, prepared, results, chromium: browser.version() }, null, 2)}\n`);
      console.log(`Results written to ${o.json}`);
    }
    const failed = results.filter((r) => r.error);
    if (failed.length) {
      const first = failed[0]!.error!;
      const hint = hintFor(first, entry, device);
      fail(`${failed.length} of ${results.length} protocol run(s) failed; the first: ${first}${hint ? `\n  ${hint}` : ''}`);
    }
    console.log(`\nsmoke:real OK in ${secs(Date.now() - t0)}`);
    return 0;
  } finally {
    await browser?.close().catch(() => {});
    await server?.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      const message = error instanceof SmokeFailure ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
      console.error(`\nsmoke:real FAILED: ${message}`);
      process.exit(1);
    },
  );
}
