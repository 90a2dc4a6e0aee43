/**
 * The remaining time of a run this tab drives: before its first answers,
 * from the speed records (what the run form showed, for the items left);
 * then blended with the run's own rate (core/runner/estimate.ts,
 * `remainingSeconds`), which knows how busy the machine is now.
 */
import { protocolFor } from '../../core/protocols/index.ts';
import { estimateRun, planRun, planWorkloads, remainingSeconds, type Remaining } from '../../core/runner/index.ts';
import { AUTO_PROTOCOL, runProtocol } from '../../core/runner/protocol-adapter.ts';
import type { BenchCase } from '../../core/bundle/types.ts';
import type { Repositories } from '../../core/db/index.ts';
import { speedRecords } from './speed-records.ts';

/** Per model of a run: the items left when it started here, and their measured seconds. */
export interface RunPrior {
  /** The device its in-browser models run on. */
  readonly device: 'webgpu' | 'wasm';
  /** Models in plan order. */
  readonly models: readonly { readonly modelId: string; readonly items: number; readonly perItemS: number | null; readonly loadS: number }[];
}

/** The measured estimate for what is left of a run; null for a run without a configuration. */
export async function runPrior(repos: Repositories, runId: string, warmOn: (device: 'webgpu' | 'wasm') => ReadonlySet<string>): Promise<RunPrior | null> {
  const run = await repos.runs.get(runId);
  const config = run?.config;
  if (!run || !config) return null;
  const [cases, benchmark, done] = await Promise.all([repos.cases.listByBenchmark(run.benchmarkId), repos.benchmarks.get(run.benchmarkId), repos.responses.itemKeysByRun(runId)]);
  const plan = planRun(config.spec, cases);
  const defaults = benchmark?.manifest.protocolDefaults;
  const protocol = runProtocol(config.protocolId, { ...(config.templates ? { templates: config.templates } : {}), ...(defaults ? { defaults } : {}), ...(config.jsonOutput ? { jsonOutput: config.jsonOutput } : {}) });
  const protocolIdOf = (c: BenchCase) => (config.protocolId === AUTO_PROTOCOL ? protocolFor(c, defaults).id : config.protocolId);
  const workloads = planWorkloads(plan, { protocol, done, protocolIdOf, fewShot: config.fewShot });
  const device = config.engines.find((e) => e.kind === 'transformers')?.device === 'webgpu' ? 'webgpu' : 'wasm';
  const records = await speedRecords(repos, plan.models.map((m) => m.id), device);
  const est = estimateRun(workloads, { budget: plan.sampling.maxTokens, records, warm: warmOn(device) });
  return { device, models: est.perModel.map((m) => ({ modelId: m.modelId, items: m.items, perItemS: m.perItemS, loadS: m.loadS })) };
}

/** What the live view knows of the model now answering. */
export interface LiveModel {
  readonly modelId: string | null;
  /** Items of that model left. */
  readonly itemsLeft: number;
  /** Answers of that model after its first one in this session, and the seconds since that first one (its load excluded). */
  readonly answers: number;
  readonly seconds: number;
  /** Its first answer here has arrived (so its load is over). */
  readonly started: boolean;
}

/**
 * Seconds left: the current model's items at its blended rate, and the
 * models after it at their measured rate (their load included), or at the
 * current live rate where nothing is measured for them. `itemsLeft` is the
 * whole run's.
 */
export function liveRemaining(prior: RunPrior | null, current: LiveModel, itemsLeft: number): Remaining | null {
  const live = current.answers > 0 ? { answers: current.answers, seconds: current.seconds } : null;
  const models = prior?.models ?? [];
  const at = models.findIndex((m) => m.modelId === current.modelId);
  const here = at >= 0 ? models[at]! : null;
  const mine = remainingSeconds(at >= 0 ? current.itemsLeft : itemsLeft, here?.perItemS ?? null, live);
  if (at < 0 || mine === null) return mine;
  let seconds = mine.seconds + (current.started ? 0 : here!.loadS);
  let rest = Math.max(0, itemsLeft - current.itemsLeft);
  const livePerItem = live && live.answers > 0 ? live.seconds / live.answers : null;
  for (const m of models.slice(at + 1)) {
    const n = Math.min(rest, m.items);
    rest -= n;
    const per = m.perItemS ?? livePerItem;
    if (per === null) return null;
    seconds += n * per + (n > 0 ? m.loadS : 0);
  }
  return { seconds, basis: mine.basis };
}
