/**
 * The page `npm run smoke:real` drives (scripts/smoke-real.ts): the app's own
 * modules, built with the app's own Vite config and CSP, not a copy. It loads
 * the demo benchmark as the app does on first start, loads the model through
 * the app's model host (the same workers a run uses), and asks one question
 * per protocol as a one-case run through the runner worker, so prompts,
 * answer budgets, few-shot exemplars, parsing and the stored answers are
 * exactly what a real run produces. Not part of the app's build.
 */
import { answerBudget } from '../core/protocols/budgets.ts';
import { extractJsonObject } from '../core/protocols/json.ts';
import { PROTOCOLS, PROTOCOL_IDS, fits, protocolFor } from '../core/protocols/registry.ts';
import type { EngineSpec } from '../core/engines/spec.ts';
import { describeGpu, preferredDevice } from '../core/env/gpu.ts';
import { loadDemo } from '../features/benchmarks/benchmarks.service.ts';
import { environmentForProvenance } from '../features/runs/new-run.ts';
import { runsManager } from '../features/runs/runs-manager.svelte.ts';
import { modelHost } from '../lib/engines/app-host.ts';
import { transformersWorker } from '../lib/engines/transformers-client.ts';
import { webllmWorker } from '../lib/engines/webllm-client.ts';
import { repos } from '../lib/storage/app-db.ts';
import type { GpuMemoryInput, GpuMemoryReport } from '../../workers/runtime/gpu-meter.ts';
import type { Progress } from '../core/model/progress.ts';
import type { SmokeApi, SmokeError, SmokeGpuErrors, SmokePick } from './types.ts';

const SESSION = 'smoke';

function plain(e: unknown): SmokeError {
  const err = e as { name?: string; code?: string; engineCode?: string; message?: string } | null;
  const code = err?.engineCode ?? err?.code;
  return { name: err?.name ?? 'Error', ...(code ? { code } : {}), message: err?.message ?? String(e) };
}

/** The GPU buffer meter of the worker that runs `spec` (workers/runtime/gpu-meter.ts). */
function meter(spec: EngineSpec): { gpuMemory(input?: GpuMemoryInput): Promise<GpuMemoryReport> } | null {
  if (spec.kind === 'webllm') return { gpuMemory: (input) => webllmWorker.api.gpuMemory(input) };
  if (spec.kind === 'transformers') return { gpuMemory: (input) => transformersWorker().api.gpuMemory(input) };
  return null;
}

/** Whether an answer is JSON as the model sent it, only after repair (cut by the budget), or not at all. */
function jsonValidity(text: string): 'valid' | 'repaired' | 'invalid' {
  const found = extractJsonObject(text, { allowArray: true });
  return !found.ok ? 'invalid' : found.repaired ? 'repaired' : 'valid';
}

/** The meter's figures after a load or a run; nothing when the worker cannot answer (it crashed). */
async function gpuAfter(m: ReturnType<typeof meter>): Promise<{ gpuPeakBytes: number; gpuErrors: SmokeGpuErrors }> {
  const r = await m?.gpuMemory(undefined).catch(() => null);
  return { gpuPeakBytes: r?.peakBytes ?? 0, gpuErrors: { outOfMemory: r?.outOfMemory ?? null, deviceLost: r?.deviceLost ?? null } };
}

const api: SmokeApi = {
  async gpu() {
    const { facts } = await describeGpu(navigator.gpu, 'this page');
    const choice = preferredDevice(facts);
    const adapter = facts.available ? [facts.architecture || facts.description || 'unknown', facts.vendor && `vendor ${facts.vendor}`].filter(Boolean).join(', ') : 'none';
    return {
      available: facts.available,
      ...(facts.reason ? { reason: facts.reason } : {}),
      adapter,
      fallback: facts.isFallbackAdapter === true,
      shaderF16: facts.features.includes('shader-f16'),
      preferred: choice.device,
      preferredReason: choice.reason,
    };
  },

  async prepare(protocols) {
    const benchmarkId = await loadDemo();
    const r = await repos();
    const benchmark = await r.benchmarks.get(benchmarkId);
    const defaults = benchmark?.manifest.protocolDefaults;
    const exemplars = new Set(defaults?.fewShotCaseIds ?? []);
    // Exemplars are shown to the model as worked examples: never the question itself.
    const cases = (await r.cases.listByBenchmark(benchmarkId)).filter((c) => !exemplars.has(c.id));
    const picks: SmokePick[] = [];
    const unfit: string[] = [];
    for (const id of protocols ?? PROTOCOL_IDS) {
      const protocol = PROTOCOLS[id as keyof typeof PROTOCOLS];
      if (!protocol) throw new Error(`Unknown protocol "${id}"; known: ${PROTOCOL_IDS.join(', ')}.`);
      const native = cases.find((c) => protocolFor(c, defaults).id === id);
      const chosen = native ?? cases.find((c) => fits(id as keyof typeof PROTOCOLS, c));
      if (!chosen) unfit.push(id);
      else picks.push({ protocolId: id, protocolLabel: protocol.label, caseId: chosen.id, native: native !== undefined, answerBudget: answerBudget(id), expectsJson: protocol.templates.some((t) => /\bJSON\b/.test(`${t.system ?? ''}\n${t.user}`)) });
    }
    return { benchmarkId, picks, unfit };
  },

  async load(spec, gpuLimitBytes) {
    const m = meter(spec);
    await m?.gpuMemory({ resetPeak: true, limitBytes: gpuLimitBytes });
    const t0 = performance.now();
    const read = { modelBytes: 0, modelFiles: [] as string[] };
    const onProgress = (p: Progress) => {
      window.neuroevalSmokeProgress?.({ stage: 'load', ...p });
      if (p.phase !== 'download') return;
      read.modelBytes = p.done;
      if (p.message && !read.modelFiles.includes(p.message)) read.modelFiles.push(p.message);
    };
    try {
      const info = await modelHost.load(spec, SESSION, { onProgress });
      // A transformers.js model's worker also says which weights each session loaded and how many threads it runs.
      const worker = info as Partial<{ weights: Record<string, string>; wasmThreads: number }>;
      return {
        ok: true,
        wallMs: performance.now() - t0,
        ...read,
        runtime: `${info.runtime} ${info.runtimeVersion}`,
        device: info.device,
        ...(worker.weights ? { weights: worker.weights } : {}),
        ...(worker.wasmThreads ? { wasmThreads: worker.wasmThreads } : {}),
        ...(await gpuAfter(m)),
      };
    } catch (e) {
      return { ok: false, error: plain(e), wallMs: performance.now() - t0, ...read, ...(await gpuAfter(m)) };
    }
  },

  async run(spec, benchmarkId, pick, { maxTokens, variant }) {
    const r = await repos();
    const benchmark = await r.benchmarks.get(benchmarkId);
    const fewShot = (benchmark?.manifest.protocolDefaults?.fewShotCaseIds?.length ?? 0) > 0;
    const m = meter(spec);
    await m?.gpuMemory({ resetPeak: true });
    const t0 = performance.now();
    const runId = await runsManager.create({
      name: `smoke:real · ${spec.label} · ${pick.protocolLabel}`,
      config: {
        spec: {
          benchmarkId,
          filters: { caseIds: [pick.caseId] },
          models: [{ id: spec.id, filesHash: '' }],
          variants: [variant],
          samples: 1,
          // As the run form does: greedy, seed 42, the protocol's answer budget unless overridden.
          sampling: { temperature: 0, topP: 1, seed: 42, maxTokens: maxTokens ?? pick.answerBudget },
        },
        protocolId: pick.protocolId,
        fewShot,
        force: true,
        engines: [spec],
      },
      app: { version: __APP_VERSION__, commit: __APP_COMMIT__ },
      environment: await environmentForProvenance(),
    });
    const timer = setInterval(() => {
      const live = runsManager.live(runId);
      if (live) window.neuroevalSmokeProgress?.({ stage: 'run', phase: pick.protocolId, done: live.done, total: live.total });
    }, 1000);
    try {
      await runsManager.start(runId);
    } finally {
      clearInterval(timer);
    }
    const responses = await r.responses.listByRun(runId);
    return {
      pick,
      runId,
      error: runsManager.error(runId) ?? null,
      answers: responses.map((x) => ({ questionId: x.questionId, text: x.rawText, finishReason: x.finishReason, parseError: x.parseError, json: pick.expectsJson ? jsonValidity(x.rawText) : null, usage: x.usage, latencyMs: x.latencyMs })),
      wallMs: performance.now() - t0,
      ...(await gpuAfter(m)),
    };
  },

  async demo() {
    return loadDemo();
  },

  async idleLongTasks(ms) {
    const found = { count: 0, longestMs: 0 };
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        found.count++;
        found.longestMs = Math.max(found.longestMs, e.duration);
      }
    });
    observer.observe({ type: 'longtask', buffered: false });
    await new Promise((resolve) => setTimeout(resolve, ms));
    observer.disconnect();
    return found;
  },

  async runBenchmark(spec, benchmarkId, { protocolId, maxTokens, cases }) {
    const r = await repos();
    const all = (await r.cases.listByBenchmark(benchmarkId)).map((c) => c.id);
    const caseIds = cases === undefined ? undefined : all.slice(0, cases);
    const runId = await runsManager.create({
      name: `throughput · ${spec.label} · ${protocolId}`,
      config: {
        spec: {
          benchmarkId,
          ...(caseIds ? { filters: { caseIds } } : {}),
          models: [{ id: spec.id, filesHash: '' }],
          variants: ['none'],
          samples: 1,
          sampling: { temperature: 0, topP: 1, seed: 42, maxTokens },
        },
        protocolId,
        fewShot: false,
        force: true,
        engines: [spec],
      },
      app: { version: __APP_VERSION__, commit: __APP_COMMIT__ },
      environment: await environmentForProvenance(),
    });
    // Main-thread long tasks while the run runs: the page must stay responsive while the worker uses every core.
    // Long animation frames say how much of a long task was script, and whose: a task that ran little script
    // was the thread waiting for a core (the machine busy), not work of the app's.
    const longTasks = { count: 0, longestMs: 0, scriptMs: 0, frames: 0, invokers: {} as Record<string, number> };
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        longTasks.count++;
        longTasks.longestMs = Math.max(longTasks.longestMs, e.duration);
      }
    });
    observer.observe({ type: 'longtask', buffered: false });
    const frames = new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & { scripts?: { duration: number; invoker?: string }[] })[]) {
        longTasks.frames++;
        for (const script of e.scripts ?? []) {
          longTasks.scriptMs += script.duration;
          const who = script.invoker || 'unknown';
          longTasks.invokers[who] = (longTasks.invokers[who] ?? 0) + script.duration;
        }
      }
    });
    try {
      frames.observe({ type: 'long-animation-frame', buffered: false });
    } catch {
      // Browsers without the Long Animation Frames API: the long-task count alone.
    }
    // What the worker loaded, read while the run holds the model (the runner unloads it at the end); `info` is not queued behind a generation.
    let info: { weights?: Record<string, string>; wasmThreads?: number } | null = null;
    const timer = setInterval(() => {
      const live = runsManager.live(runId);
      if (live) window.neuroevalSmokeProgress?.({ stage: 'run', phase: protocolId, done: live.done, total: live.total });
      if (!info && spec.kind === 'transformers') void transformersWorker().api.info().then((i) => (info ??= i)).catch(() => {});
    }, 1000);
    const t0 = performance.now();
    try {
      await runsManager.start(runId);
    } finally {
      clearInterval(timer);
      observer.disconnect();
      frames.disconnect();
    }
    const wallMs = performance.now() - t0;
    const run = await r.runs.get(runId);
    const responses = await r.responses.listByRun(runId);
    return {
      runId,
      error: runsManager.error(runId) ?? run?.error ?? null,
      status: run?.status ?? 'unknown',
      answers: responses.map((x) => ({ caseId: x.caseId, text: x.rawText, finishReason: x.finishReason, usage: x.usage, latencyMs: x.latencyMs, createdAt: x.createdAt })),
      wallMs,
      longTasks: { count: longTasks.count, longestMs: longTasks.longestMs, scriptMs: longTasks.scriptMs, frames: longTasks.frames, invokers: Object.fromEntries(Object.entries(longTasks.invokers).sort((a, b) => b[1] - a[1]).slice(0, 5)) },
      weights: (info as { weights?: Record<string, string> } | null)?.weights ?? null,
      wasmThreads: (info as { wasmThreads?: number } | null)?.wasmThreads ?? null,
    };
  },
};

window.neuroevalSmoke = api;
document.documentElement.dataset.ready = 'true';
