/**
 * Speed records for the run-time estimate, from the answers earlier runs
 * stored in this browser (so measured on this machine): each stored response
 * keeps its prompt and answer tokens, time to first token and latency, and
 * its run keeps when it started, which protocol asked it and on which device
 * each model ran. Deleting a run removes its measurements with it.
 *
 * Every model of a run has a load: the first model's is the wait from the
 * run's start to its first request, a later model's the wait from the
 * previous answer to its first request. Pricing only the first model's load
 * left a later model's load and slow first answers (WASM compilation) inside
 * its steady per-answer time, which a run of that model alone then paid on
 * every answer: several times too high for a fast model measured second.
 */
import { protocolFor } from '../../core/protocols/index.ts';
import { AUTO_PROTOCOL, runProtocol } from '../../core/runner/protocol-adapter.ts';
import { isVariant } from '../../core/runner/variants.ts';
import { type AnswerSample, itemWorkload, protocolKey, speedRecord, type SpeedRecord } from '../../core/runner/estimate.ts';
import type { Repositories } from '../../core/db/index.ts';
import type { ResponseRecord } from '../../core/model/answer.ts';
import type { RunRecord } from '../../core/runner/records.ts';

/** Recent runs read; older ones rarely add anything (the same machine, the same model). */
const RUNS_READ = 12;
/** Answers read per run: enough for stable rates without reading a long run whole. */
const ANSWERS_PER_RUN = 400;
/** Answers kept per model, newest runs first: the machine's speed now matters more than months ago. */
const ANSWERS_PER_MODEL = 300;

/** A speed record and where it was measured. */
export interface SpeedBasis extends SpeedRecord {
  /** `wasm`, `webgpu`, or an endpoint's or WebLLM's device as its engine reported it. */
  readonly device: string;
}

/**
 * Speed records per model on `device` (a transformers.js model on WASM says
 * nothing of its speed on WebGPU; WebLLM and endpoints have one device each).
 * Only answers asked in their run count: reused answers took no time.
 */
export async function speedRecords(repos: Repositories, modelIds: readonly string[], device: 'webgpu' | 'wasm'): Promise<Record<string, SpeedBasis>> {
  const samples = new Map<string, AnswerSample[]>();
  const waits = new Map<string, Record<string, number>>();
  const ranOnDevice = new Map<string, string>();
  for (const run of await repos.runs.list({ limit: RUNS_READ })) {
    const ranOn = new Map<string, string>();
    for (const id of modelIds) {
      const info = run.provenance?.engines?.[id]?.at(-1);
      if (info && (info.runtime !== 'transformers' || info.device === device)) ranOn.set(id, info.device);
    }
    if (ranOn.size === 0) continue;
    const responses = (await repos.responses.listByRun(run.id, { limit: ANSWERS_PER_RUN })).filter(asked).sort((a, b) => a.createdAt - b.createdAt);
    const { protocolOf, requestOf } = await runRequests(repos, run);
    const budget = run.config?.spec.sampling.maxTokens ?? 0;
    const startedAt = run.provenance?.startedAt;
    const started = new Set<string>();
    let previousEnd: number | null = null;
    for (const r of responses) {
      const start = r.createdAt - r.latencyMs;
      const gapMs = previousEnd === null ? null : start - previousEnd;
      // Each model's first request waits for its load: the run's start for the first model, the previous answer for the next ones.
      const waitFrom = previousEnd ?? (typeof startedAt === 'number' ? startedAt : null);
      if (!started.has(r.modelId) && ranOn.has(r.modelId) && waitFrom !== null) waits.set(r.modelId, { ...waits.get(r.modelId), [run.id]: start - waitFrom });
      started.add(r.modelId);
      previousEnd = r.createdAt;
      const on = ranOn.get(r.modelId);
      if (on === undefined || (samples.get(r.modelId)?.length ?? 0) >= ANSWERS_PER_MODEL) continue;
      ranOnDevice.set(r.modelId, on);
      const list = samples.get(r.modelId) ?? [];
      list.push({
        run: run.id,
        protocolKey: protocolKey(protocolOf(r.caseId), r.variant, run.config?.fewShot === true),
        // The tokens the engine computed: a prompt prefix kept from an earlier request cost nothing this time.
        promptTokens: r.usage.promptTokens === null ? null : r.usage.promptTokens - (r.usage.prompt?.reusedTokens ?? 0),
        answerTokens: r.usage.completionTokens,
        turns: Math.max(1, (r as ResponseRecord & { turns?: readonly unknown[] }).turns?.length ?? 1),
        ttftMs: r.usage.ttftMs,
        latencyMs: r.latencyMs,
        truncated: r.finishReason === 'length',
        budget,
        gapMs,
        ...(requestOf(r) ? { request: requestOf(r)! } : {}),
      });
      samples.set(r.modelId, list);
    }
  }
  const out: Record<string, SpeedBasis> = {};
  for (const [id, list] of samples) {
    const record = speedRecord(list, waits.get(id) ?? {});
    if (record) out[id] = { ...record, device: ranOnDevice.get(id) ?? device };
  }
  return out;
}

/** An answer the model produced in its run (not copied from another run, not failed). */
function asked(r: ResponseRecord): boolean {
  const extra = r as ResponseRecord & { reusedFrom?: string | null; error?: string | null };
  return !extra.reusedFrom && !extra.error && r.finishReason !== 'error' && r.finishReason !== 'abort' && r.latencyMs > 0;
}

/**
 * The protocol that asked each case of a run (its fixed protocol, or each
 * case's own under `auto`), and the text and images of an answer's request,
 * rebuilt from the run's protocol and the case (null where the run kept no
 * configuration or the case is gone).
 */
async function runRequests(repos: Repositories, run: RunRecord): Promise<{
  protocolOf: (caseId: string) => string;
  requestOf: (r: ResponseRecord) => { textChars: number; images: number } | null;
}> {
  const id = run.config?.protocolId ?? '';
  const [benchmark, cases] = await Promise.all([repos.benchmarks.get(run.benchmarkId), repos.cases.listByBenchmark(run.benchmarkId)]);
  const defaults = benchmark?.manifest.protocolDefaults;
  const byCase = new Map(cases.map((c) => [c.id, c]));
  const config = run.config;
  let protocol: ReturnType<typeof runProtocol> | null = null;
  try {
    protocol = config ? runProtocol(config.protocolId, { ...(config.templates ? { templates: config.templates } : {}), ...(defaults ? { defaults } : {}) }) : null;
  } catch {
    protocol = null; // a protocol this version no longer has: its answers still count, without their request
  }
  return {
    protocolOf: (caseId) => {
      if (id !== AUTO_PROTOCOL) return id;
      const kase = byCase.get(caseId);
      return kase ? protocolFor(kase, defaults).id : id;
    },
    requestOf: (r) => {
      const kase = byCase.get(r.caseId);
      const question = kase?.questions.find((q) => q.id === r.questionId);
      if (!protocol || !kase || !question || !isVariant(r.variant)) return null;
      const w = itemWorkload(kase, question, { modelId: r.modelId, variant: r.variant, sample: r.sample }, protocol);
      return { textChars: w.textChars, images: w.images };
    },
  };
}
