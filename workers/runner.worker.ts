/**
 * Evaluation runs, off the main thread. The runner core asks each model every
 * planned item and writes every answer to IndexedDB before the next request.
 * Engines come from the page's model host over the MessagePort given with
 * `start` (src/lib/engines/model-host.ts), whatever their runtime. A run
 * survives a closed tab: its configuration is stored with it, and `start`
 * on the same run id resumes where the stored answers end.
 */
import type { BenchCase, ProtocolDefaults } from '../src/core/bundle/types.ts';
import { createRepositories, openDatabase, type Repositories } from '../src/core/db/index.ts';
import type { RunRecord } from '../src/core/runner/records.ts';
import type { Engine } from '../src/core/engines/engine.ts';
import { describeDtypes } from '../src/core/engines/dtype-words.ts';
import { runtimeOfSpec, specFiles } from '../src/core/engines/spec.ts';
import { InvalidInputError, NeuroEvalError } from '../src/core/errors.ts';
import { sha256Hex } from '../src/core/hash/sha256.ts';
import { transformsPixels, variantImage } from '../src/core/imaging/variant-image.ts';
import { buildProvenance, planRun, RunController, runRun, webLocksRunLock, type ProvenanceInputs, type RunOutcome, type Variant } from '../src/core/runner/index.ts';
import { dexieRunStore } from '../src/core/stored/run-store.ts';
import { AUTO_PROTOCOL, runProtocol } from '../src/core/runner/protocol-adapter.ts';
import { jsonOutputRecord } from '../src/core/protocols/json-output.ts';
import { PROTOCOL_IDS } from '../src/core/protocols/registry.ts';
import type { RunConfig } from '../src/core/runner/config.ts';
import { withoutSecrets } from '../src/core/runner/secrets.ts';
import type { CallContext } from '../src/core/rpc/protocol.ts';
import { runReport } from '../src/core/runner/report.ts';
import { decodeToRaw } from './runtime/decode-image.ts';
import { assertRunFits } from '../src/core/runner/space.ts';
import { exposeApi } from './runtime/expose.ts';
import { hostClient, hostEngine, type HostClient } from './runtime/host-engines.ts';

export interface CreateRunInput {
  readonly name: string;
  readonly config: RunConfig;
  readonly app: ProvenanceInputs['app'];
  readonly environment: ProvenanceInputs['environment'];
}

let reposPromise: Promise<Repositories> | null = null;
const database = (): Promise<Repositories> => (reposPromise ??= openDatabase().then((db) => createRepositories(db)));
const controllers = new Map<string, RunController>();

function configOf(run: RunRecord): RunConfig {
  const config = run.config;
  if (!config) throw new InvalidInputError(`Run "${run.name}" has no stored configuration and cannot be started.`);
  return config;
}

async function casesOf(repos: Repositories, benchmarkId: string): Promise<BenchCase[]> {
  return (await repos.cases.listByBenchmark(benchmarkId)).map(({ benchmarkId: _b, ...c }) => c);
}

/** Each model's engine, through the page's model host (this worker loads no model itself). */
function engineFor(configs: RunConfig['engines'], host: HostClient, runId: string): (modelId: string) => Engine {
  return (modelId) => {
    const spec = configs.find((e) => e.id === modelId);
    if (!spec) throw new InvalidInputError(`The run has no engine for model "${modelId}".`);
    return hostEngine(host, spec, `run:${runId}`);
  };
}

const runnerApi = {
  /** Plans a run and stores it (status `planned`); nothing is generated yet. */
  async create(input: CreateRunInput): Promise<{ runId: string; items: number; cases: number }> {
    const repos = await database();
    const benchmark = await repos.benchmarks.require(input.config.spec.benchmarkId);
    const plan = planRun(input.config.spec, await casesOf(repos, benchmark.id));
    if (plan.items.length === 0) throw new InvalidInputError('The selection holds no questions: widen the filters or pick another benchmark.', { field: 'filters' });
    const defaults = benchmark.manifest.protocolDefaults;
    const protocol = runProtocol(input.config.protocolId, { ...(input.config.templates ? { templates: input.config.templates } : {}), ...(defaults ? { defaults } : {}), ...(input.config.jsonOutput ? { jsonOutput: input.config.jsonOutput } : {}) });
    const provenance = buildProvenance({
      jsonOutput: jsonOutputRecord(input.config.jsonOutput ?? 'benchmark', input.config.protocolId === AUTO_PROTOCOL ? PROTOCOL_IDS : [input.config.protocolId]),
      app: input.app,
      environment: input.environment,
      models: input.config.engines.map((e) => ({
        id: e.id,
        label: e.label,
        runtime: runtimeOfSpec(e),
        files: specFiles(e),
        // The weight format of each session this device loads (q8 decoder on WASM, q4 on WebGPU), and any processor setting the user changed.
        ...(e.kind === 'transformers' && e.dtype ? { quantization: `${describeDtypes(typeof e.dtype === 'string' ? { model: e.dtype } : e.dtype)} (${e.device})` } : {}),
        ...(e.kind === 'transformers' && e.processor ? { processor: e.processor } : {}),
      })),
      protocol: { id: protocol.id, version: protocol.version, templateHashes: { [protocol.id]: protocol.templateHash } },
      sampling: input.config.spec.sampling,
      samples: plan.samples,
      variants: plan.variants,
      benchmark: { id: benchmark.id, name: benchmark.name, version: benchmark.version, contentHash: benchmark.contentHash },
      selection: input.config.spec.filters ?? null,
      ...(input.config.criteria?.criteria.length ? { criteria: input.config.criteria } : {}),
    });
    const now = Date.now();
    const runId = `run-${now.toString(36)}-${sha256Hex(`${now}${Math.random()}`).slice(0, 6)}`;
    await repos.runs.put({
      id: runId,
      benchmarkId: benchmark.id,
      name: input.name,
      status: 'planned',
      createdAt: now,
      updatedAt: now,
      // No secret is stored: specs name an endpoint by id (its key stays in the settings); withoutSecrets guards extra fields.
      config: withoutSecrets(input.config),
      provenance: withoutSecrets(provenance),
      plan: { cases: plan.counts.cases, models: plan.counts.models, variants: plan.counts.variants, samples: plan.counts.samples, items: plan.counts.items },
    });
    return { runId, items: plan.counts.items, cases: plan.counts.cases };
  },

  /**
   * Runs or resumes a run until it is done, paused or cancelled; progress
   * streams while it runs. `host` is a port to the page's model host
   * (`modelHost.connect()`, transferred with the call).
   */
  async start(input: { runId: string; host: MessagePort; force?: boolean }, ctx: CallContext): Promise<RunOutcome> {
    const repos = await database();
    const run = await repos.runs.require(input.runId);
    const config = configOf(run);
    const cases = await casesOf(repos, run.benchmarkId);
    const benchmark = await repos.benchmarks.require(run.benchmarkId);
    const fewShotIds = config.fewShot ? (benchmark.manifest.protocolDefaults?.fewShotCaseIds ?? []) : [];
    const fewShot = fewShotIds.map((id) => cases.find((c) => c.id === id)).filter((c): c is BenchCase => !!c);
    const plan = planRun(config.spec, cases);
    // Refuse up front when the remaining answers do not fit on the disk: filling it is what gets storage evicted.
    const stored = await repos.responses.itemKeysByRun(input.runId);
    const remaining = plan.items.filter((i) => !stored.has(i.itemKey)).length;
    const turns = 1 + Math.max(0, ...plan.cases.map((c) => Math.max(0, ...c.questions.map((q) => q.followUps?.length ?? 0))));
    const estimate = await (globalThis as { navigator?: { storage?: StorageManager } }).navigator?.storage?.estimate?.().catch(() => undefined);
    assertRunFits({ answers: remaining, maxTokens: plan.sampling.maxTokens, turns, estimate });
    const controller = new RunController();
    controllers.set(input.runId, controller);
    ctx.signal.addEventListener('abort', () => controller.pause(), { once: true });
    const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
    if (!locks) throw new NeuroEvalError('UNSUPPORTED', 'This browser lacks Web Locks, which keep two tabs from driving one run.');
    const host = hostClient(input.host);
    try {
      return await execute(input.runId, plan, config, { fewShot, defaults: benchmark.manifest.protocolDefaults }, controller, repos, locks, host, ctx, input.force ?? config.force === true);
    } finally {
      controllers.delete(input.runId);
      host.close();
    }
  },

  async pause(input: { runId: string }): Promise<boolean> {
    controllers.get(input.runId)?.pause();
    return controllers.has(input.runId);
  },

  async cancel(input: { runId: string }): Promise<boolean> {
    controllers.get(input.runId)?.cancel();
    return controllers.has(input.runId);
  },
};

async function execute(
  runId: string,
  plan: ReturnType<typeof planRun>,
  config: RunConfig,
  /** The few-shot exemplars and the benchmark's protocol defaults (its declared task): the same the scoring reads. */
  { fewShot, defaults }: { readonly fewShot: readonly BenchCase[]; readonly defaults: ProtocolDefaults | undefined },
  controller: RunController,
  repos: Repositories,
  locks: LockManager,
  host: HostClient,
  ctx: CallContext,
  force: boolean,
): Promise<RunOutcome> {
  return runRun({
    runId,
    plan,
    engineFor: engineFor(config.engines, host, runId),
    protocol: runProtocol(config.protocolId, { ...(config.templates ? { templates: config.templates } : {}), ...(fewShot.length ? { fewShot } : {}), ...(defaults ? { defaults } : {}), ...(config.jsonOutput ? { jsonOutput: config.jsonOutput } : {}) }),
    store: dexieRunStore(repos),
    images: async (sha256: string, variant: Variant) => {
      const asset = await repos.assets.require(sha256);
      const bytes = new Uint8Array(await asset.blob.arrayBuffer());
      if (!transformsPixels(variant)) return { bytes, mime: asset.mime, sha256 };
      const out = variantImage(await decodeToRaw(bytes, asset.mime), variant, sha256);
      return { bytes: out.bytes, mime: out.mime, sha256: sha256Hex(out.bytes) };
    },
    lock: webLocksRunLock(locks),
    control: controller,
    force,
    onProgress: (p) => ctx.progress({ phase: 'run', done: p.overall.done, total: p.overall.total, detail: runReport(p) }),
  });
}

export type RunnerApi = typeof runnerApi;

exposeApi(runnerApi);
