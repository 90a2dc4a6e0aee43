/// <reference types="vite/client" />
/**
 * Bench page (served by the Vite dev server that test/bench/suites/runner.ts
 * starts). It drives the real runner core — `planRun`, `runRun`,
 * `runProtocol('auto')`, `dexieRunStore` on a fresh database, a Web Lock —
 * over the demo benchmark, wired as workers/runner.worker.ts wires it, with a
 * real `TransformersEngine` (self-test model, WASM) wrapped in a decorator
 * that times every `load`, `generate` and `unload`. The store and the image
 * loader are timed the same way, so the time outside the engine can be split
 * into storage, images and the rest (protocol, request building, hashing,
 * bookkeeping). The suite drives it through `window.__runnerBench`.
 */
import ortMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import { memoryFile } from '../../../src/core/bundle/importer.ts';
import { prepareImport } from '../../../src/core/importers/import-pipeline.ts';
import { commitBundle } from '../../../src/core/stored/benchmark-store.ts';
import type { BenchCase } from '../../../src/core/bundle/types.ts';
import { turnImages } from '../../../src/core/chat/turn.ts';
import { createRepositories, openDatabase, type NeuroEvalDB, type Repositories } from '../../../src/core/db/index.ts';
import type { Engine, EngineInfo, GenerateOptions, GenerateRequest, GenerateResult, LoadOptions } from '../../../src/core/engines/engine.ts';
import { TransformersEngine } from '../../../src/core/engines/transformers/transformers-engine.ts';
import { sha256Hex } from '../../../src/core/hash/sha256.ts';
import { degradeImage, isDegradeVariant } from '../../../src/core/imaging/degrade/index.ts';
import { buildProvenance, planRun, RunController, runRun, webLocksRunLock, type ImageLoader, type RunOutcome, type RunPlan, type RunSpec, type RunStore, type Variant } from '../../../src/core/runner/index.ts';
import { dexieRunStore } from '../../../src/core/stored/run-store.ts';
import { runProtocol } from '../../../src/core/runner/protocol-adapter.ts';
import { decodeToRaw } from '../../../workers/runtime/decode-image.ts';

export interface OverheadOptions {
  readonly variants: readonly Variant[];
  readonly samples: number;
  readonly maxTokens: number;
  /** Cases of the unmeasured warm-up run (first N cases of the benchmark, same variants). */
  readonly warmupCases: number;
}

/** One measured run: wall time and where it went, all from performance.now() in this page. */
export interface RunTiming {
  readonly status: RunOutcome['status'];
  readonly error: string | null;
  readonly items: number;
  readonly generated: number;
  readonly errors: number;
  /** Responses of the run counted back from the database. */
  readonly stored: number;
  /** runRun call → resolved. */
  readonly wallMs: number;
  /** Time inside `engine.generate`, summed; and the number of calls (multi-turn items make several). */
  readonly generateMs: number;
  readonly generateCalls: number;
  /** Each generate call: ms inside it, prompt tokens (image tokens included) and images sent. */
  readonly calls: readonly { readonly ms: number; readonly promptTokens: number | null; readonly images: number }[];
  readonly completionTokens: number;
  /** Time inside `engine.load` and `engine.unload` (once each per run). */
  readonly loadMs: number;
  readonly unloadMs: number;
  /** Time inside the RunStore methods, by method. */
  readonly storeMs: Readonly<Record<keyof RunStore, number>>;
  readonly saveCalls: number;
  /** Time inside the image loader (asset read, and for degradation variants decode + transform + encode + hash). */
  readonly imagesMs: number;
  readonly imageCalls: number;
  /** Time inside the progress callback (builds and serialises the message the worker would post). */
  readonly progressMs: number;
  /** Per item (in run order, from the second item on): wall time between two stored answers minus the generate time between them. */
  readonly itemOverheadMs: readonly number[];
}

export interface OverheadResult {
  readonly benchmark: { readonly id: string; readonly cases: number; readonly questions: number; readonly images: number };
  /** Reading the demo ZIP, checking it and committing it to the fresh database. */
  readonly setupMs: number;
  readonly plan: RunPlan['counts'];
  readonly warmup: RunTiming;
  readonly runs: readonly RunTiming[];
  readonly engine: EngineInfo;
  readonly crossOriginIsolated: boolean;
  readonly hardwareConcurrency: number;
  readonly sampleText: string;
}

export interface RunnerBench {
  /** Prepares a fresh database holding the demo benchmark (once per page). */
  setup(): Promise<{ setupMs: number; database: string }>;
  /** A warm-up run, then `repeats` measured runs of the whole plan. */
  overhead(options: OverheadOptions & { repeats: number }): Promise<OverheadResult>;
  /** Closes and deletes the bench database; true when it is gone. */
  cleanup(): Promise<boolean>;
}

declare global {
  interface Window {
    __runnerBench?: RunnerBench;
  }
}

const MODEL_ID = 'self-test';
const MODEL_LOCATION = new URL('/models/self-test/', location.href).href;
const DEMO_ZIP = new URL('/demo/neuroeval-demo.zip', location.href).href;
const DB_NAME = `neuroeval-bench-runner-${Date.now().toString(36)}`;

interface Clock {
  generateMs: number;
  generateCalls: number;
  calls: { ms: number; promptTokens: number | null; images: number }[];
  completionTokens: number;
  loadMs: number;
  unloadMs: number;
  lastText: string;
}

/** The engine decorator: times what happens inside the real engine, nothing else. */
class TimedEngine implements Engine {
  constructor(
    private readonly inner: Engine,
    private readonly clock: Clock,
  ) {}

  async load(options?: LoadOptions): Promise<EngineInfo> {
    const t0 = performance.now();
    try {
      return await this.inner.load(options);
    } finally {
      this.clock.loadMs += performance.now() - t0;
    }
  }

  async generate(request: GenerateRequest, options?: GenerateOptions): Promise<GenerateResult> {
    const t0 = performance.now();
    let promptTokens: number | null = null;
    try {
      const result = await this.inner.generate(request, options);
      this.clock.completionTokens += result.usage.completionTokens ?? 0;
      this.clock.lastText = result.text;
      promptTokens = result.usage.promptTokens;
      return result;
    } finally {
      const ms = performance.now() - t0;
      this.clock.generateMs += ms;
      this.clock.generateCalls++;
      this.clock.calls.push({ ms, promptTokens, images: request.messages.reduce((n, m) => n + turnImages(m).length, 0) });
    }
  }

  async unload(): Promise<void> {
    const t0 = performance.now();
    try {
      await this.inner.unload();
    } finally {
      this.clock.unloadMs += performance.now() - t0;
    }
  }
}

let state: { db: NeuroEvalDB; repos: Repositories; benchmarkId: string; cases: BenchCase[]; images: number; setupMs: number } | null = null;
let lastEngineInfo: EngineInfo | null = null;
let lastText = '';

async function setup(): Promise<NonNullable<typeof state>> {
  if (state) return state;
  const t0 = performance.now();
  const res = await fetch(DEMO_ZIP);
  if (!res.ok) throw new Error(`GET ${DEMO_ZIP}: HTTP ${res.status}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const preview = await prepareImport([memoryFile('neuroeval-demo.zip', bytes)]);
  if (!preview.bundle) throw new Error(`the demo bundle did not read: ${preview.errors.map((e) => e.message).join('; ')}`);
  const db = await openDatabase({ name: DB_NAME });
  const repos = createRepositories(db);
  const committed = await commitBundle(repos, preview.bundle);
  // As the runner worker reads them: the stored cases, in benchmark order.
  const cases = (await repos.cases.listByBenchmark(committed.benchmarkId)).map(({ benchmarkId: _b, ...c }) => c);
  state = { db, repos, benchmarkId: committed.benchmarkId, cases, images: preview.bundle.images.size, setupMs: performance.now() - t0 };
  return state;
}

/** The engine factory of workers/runner.worker.ts, with the decorator around it. */
function engineFor(clock: Clock): (modelId: string) => Engine {
  return (modelId) =>
    new TimedEngine(
      new TransformersEngine({
        runtime: { wasmPaths: { mjs: new URL(ortMjsUrl, location.href).href, wasm: new URL(ortWasmUrl, location.href).href } },
        source: { kind: 'folder', location: MODEL_LOCATION },
        device: 'wasm',
        modelId,
      }),
      clock,
    );
}

/** Wraps every method of a store so the time inside it is summed per method. */
function timedStore(inner: RunStore, ms: Record<keyof RunStore, number>, onSaved: () => void): RunStore {
  const time = async <T>(key: keyof RunStore, call: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await call();
    } finally {
      ms[key] += performance.now() - t0;
    }
  };
  return {
    completedItemKeys: (runId) => time('completedItemKeys', () => inner.completedItemKeys(runId)),
    findCached: (key) => time('findCached', () => inner.findCached(key)),
    saveResponse: async (row) => {
      await time('saveResponse', () => inner.saveResponse(row));
      onSaved();
    },
    updateRun: (runId, update) => time('updateRun', () => inner.updateRun(runId, update)),
    recordProvenance: (runId, patch) => time('recordProvenance', () => inner.recordProvenance!(runId, patch)),
  };
}

/** Stores a run record as the runner worker's `create` does. */
async function createRun(repos: Repositories, benchmarkId: string, spec: RunSpec, plan: RunPlan, name: string): Promise<string> {
  const benchmark = await repos.benchmarks.require(benchmarkId);
  const protocol = runProtocol('auto');
  const provenance = buildProvenance({
    app: { version: 'bench', commit: 'bench' },
    environment: { userAgent: navigator.userAgent, crossOriginIsolated, wasmThreads: null, adapter: null },
    models: [{ id: MODEL_ID, label: 'Self-test (random weights)', runtime: 'transformers', files: [] }],
    protocol: { id: protocol.id, version: protocol.version, templateHashes: { [protocol.id]: protocol.templateHash } },
    sampling: spec.sampling,
    samples: plan.samples,
    variants: plan.variants,
    benchmark: { id: benchmark.id, name: benchmark.name, version: benchmark.version, contentHash: benchmark.contentHash },
    selection: spec.filters ?? null,
  });
  const now = Date.now();
  const runId = `run-bench-${now.toString(36)}-${sha256Hex(`${now}${Math.random()}`).slice(0, 6)}`;
  await repos.runs.put({
    id: runId,
    benchmarkId,
    name,
    status: 'planned',
    createdAt: now,
    updatedAt: now,
    config: {
      spec,
      protocolId: 'auto',
      fewShot: false,
      engines: [{ kind: 'transformers', id: MODEL_ID, label: 'Self-test (random weights)', location: MODEL_LOCATION, device: 'wasm', files: [] }],
    },
    provenance,
    plan: { cases: plan.counts.cases, models: plan.counts.models, variants: plan.counts.variants, samples: plan.counts.samples, items: plan.counts.items },
  });
  return runId;
}

/** One run of the plan, wired as workers/runner.worker.ts `execute` wires it, timed throughout. */
async function timedRun(s: NonNullable<typeof state>, spec: RunSpec, name: string): Promise<RunTiming> {
  const { repos } = s;
  const plan = planRun(spec, s.cases);
  const runId = await createRun(repos, s.benchmarkId, spec, plan, name);
  const clock: Clock = { generateMs: 0, generateCalls: 0, calls: [], completionTokens: 0, loadMs: 0, unloadMs: 0, lastText: '' };
  const storeMs: Record<keyof RunStore, number> = { completedItemKeys: 0, findCached: 0, saveResponse: 0, updateRun: 0, recordProvenance: 0 };
  let imagesMs = 0;
  let imageCalls = 0;
  let progressMs = 0;
  const marks: { t: number; generateMs: number }[] = [];
  const store = timedStore(dexieRunStore(repos), storeMs, () => marks.push({ t: performance.now(), generateMs: clock.generateMs }));
  const images: ImageLoader = async (sha256, variant) => {
    const t0 = performance.now();
    try {
      const asset = await repos.assets.require(sha256);
      const bytes = new Uint8Array(await asset.blob.arrayBuffer());
      if (!isDegradeVariant(variant)) return { bytes, mime: asset.mime, sha256 };
      const out = degradeImage(await decodeToRaw(bytes, asset.mime), variant, sha256);
      return { bytes: out.bytes, mime: out.mime, sha256: sha256Hex(out.bytes) };
    } finally {
      imagesMs += performance.now() - t0;
      imageCalls++;
    }
  };
  const t0 = performance.now();
  const outcome = await runRun({
    runId,
    plan,
    engineFor: engineFor(clock),
    protocol: runProtocol('auto'),
    store,
    images,
    lock: webLocksRunLock(navigator.locks),
    control: new RunController(),
    onProgress: (p) => {
      const p0 = performance.now();
      const latest = p.latest ? { itemKey: p.latest.itemKey, text: p.latest.rawText.slice(0, 400), parseError: p.latest.parseError, finishReason: p.latest.finishReason } : null;
      JSON.stringify({ phase: p.phase, modelId: p.modelId, model: p.model, decodeTps: p.decodeTps, latest });
      progressMs += performance.now() - p0;
    },
  });
  const wallMs = performance.now() - t0;
  lastEngineInfo = outcome.engines[MODEL_ID] ?? lastEngineInfo;
  lastText = clock.lastText;
  const itemOverheadMs: number[] = [];
  for (let i = 1; i < marks.length; i++) itemOverheadMs.push(marks[i]!.t - marks[i - 1]!.t - (marks[i]!.generateMs - marks[i - 1]!.generateMs));
  const stored = await repos.responses.countByRun(runId);
  return {
    status: outcome.status,
    error: outcome.error,
    items: plan.counts.items,
    generated: outcome.generated,
    errors: outcome.errors,
    stored,
    wallMs,
    generateMs: clock.generateMs,
    generateCalls: clock.generateCalls,
    calls: clock.calls,
    completionTokens: clock.completionTokens,
    loadMs: clock.loadMs,
    unloadMs: clock.unloadMs,
    storeMs,
    saveCalls: marks.length,
    imagesMs,
    imageCalls,
    progressMs,
    itemOverheadMs,
  };
}

function specFor(benchmarkId: string, options: OverheadOptions, caseIds?: readonly string[]): RunSpec {
  // What NewRunForm builds: no filters, the self-test model with an unknown files hash (never reuses), greedy.
  return {
    benchmarkId,
    filters: caseIds ? { caseIds } : {},
    models: [{ id: MODEL_ID, filesHash: '' }],
    variants: options.variants,
    samples: options.samples,
    sampling: { temperature: 0, topP: 1, seed: 42, maxTokens: options.maxTokens },
  };
}

const bench: RunnerBench = {
  async setup() {
    const s = await setup();
    return { setupMs: s.setupMs, database: DB_NAME };
  },

  async overhead(options) {
    const s = await setup();
    const warmup = await timedRun(s, specFor(s.benchmarkId, options, s.cases.slice(0, options.warmupCases).map((c) => c.id)), 'bench warm-up');
    const runs: RunTiming[] = [];
    for (let i = 0; i < options.repeats; i++) runs.push(await timedRun(s, specFor(s.benchmarkId, options), `bench run ${i + 1}`));
    if (!lastEngineInfo) throw new Error('the runner reported no engine');
    const plan = planRun(specFor(s.benchmarkId, options), s.cases).counts;
    return {
      benchmark: { id: s.benchmarkId, cases: s.cases.length, questions: s.cases.reduce((n, c) => n + c.questions.length, 0), images: s.images },
      setupMs: s.setupMs,
      plan,
      warmup,
      runs,
      engine: lastEngineInfo,
      crossOriginIsolated,
      hardwareConcurrency: navigator.hardwareConcurrency,
      sampleText: lastText,
    };
  },

  async cleanup() {
    state?.db.close();
    state = null;
    await new Promise<void>((resolve, reject) => {
      const req = indexedDB.deleteDatabase(DB_NAME);
      req.onsuccess = () => resolve();
      req.onerror = () => reject(req.error);
      req.onblocked = () => resolve();
    });
    const names = (await indexedDB.databases()).map((d) => d.name);
    return !names.includes(DB_NAME);
  },
};

window.__runnerBench = bench;
const out = document.getElementById('out');
if (out) out.textContent = 'ready';
