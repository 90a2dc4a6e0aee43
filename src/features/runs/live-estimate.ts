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

/** Time left, model by model: the parts that are known, summed, and the models whose part is not. */
export interface LiveRemaining extends Remaining {
  /** Models with items left whose speed is not known yet (no record here, too few answers of their own). */
  readonly unknown: readonly string[];
}

/**
 * Seconds left, as the sum of each remaining model's own part: the current
 * model's items at its blended rate (record and live answers), and each
 * other model with items left at its own measured rate, its load included. A model with
 * nothing measured is listed in `unknown` instead of being priced at another
 * model's rate: models differ by orders of magnitude. `itemsLeft` is the
 * whole run's. Null when no part is known.
 */
export function liveRemaining(prior: RunPrior | null, current: LiveModel, itemsLeft: number): LiveRemaining | null {
  const live = current.answers > 0 ? { answers: current.answers, seconds: current.seconds } : null;
  const models = prior?.models ?? [];
  const at = models.findIndex((m) => m.modelId === current.modelId);
  const here = at >= 0 ? models[at]! : null;
  const unknown: string[] = [];
  let known = 0;
  let seconds = 0;
  // Before the first model starts, every item is priced from the records; without a plan per model, only the current model's items are its own.
  const mineLeft = current.modelId !== null ? Math.min(current.itemsLeft, itemsLeft) : 0;
  const mine = mineLeft > 0 ? remainingSeconds(mineLeft, here?.perItemS ?? null, live) : null;
  if (mineLeft > 0) {
    if (mine === null) unknown.push(current.modelId!);
    else {
      known++;
      seconds += mine.seconds + (here && !current.started ? here.loadS : 0);
    }
  }
  let rest = Math.max(0, itemsLeft - mineLeft);
  // The models after the current one in plan order, then those before it (left over only when a run interleaves its models).
  for (const m of at >= 0 ? [...models.slice(at + 1), ...models.slice(0, at)] : models.filter((x) => x.modelId !== current.modelId)) {
    const n = Math.min(rest, m.items);
    rest -= n;
    if (n === 0) continue;
    if (m.perItemS === null) unknown.push(m.modelId);
    else {
      known++;
      seconds += n * m.perItemS + m.loadS;
    }
  }
  // Items the plan per model does not account for (no prior): whose they are is not known.
  if (rest > 0) unknown.push('');
  if (itemsLeft <= 0) return { seconds: 0, basis: live ? 'live' : 'record', unknown: [] };
  if (known === 0) return null;
  return { seconds, basis: mine?.basis ?? 'record', unknown: [...new Set(unknown)] };
}
