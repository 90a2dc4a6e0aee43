/**
 * The one owner of loaded models in a tab. Runs (runner worker), scoring
 * passes (scoring worker) and the Models page get their engines here, for
 * any runtime, from an {@link EngineSpec}:
 *
 * - transformers.js models live in the ONE transformers.js worker
 *   (src/lib/engines/transformers-client.ts), WebLLM models in the WebLLM
 *   worker; on-prem endpoints are called from the page.
 * - **Residency.** Every consumer is a *session* (`run:<id>`, `score:<id>`,
 *   `models`). Models a session holds together stay loaded together (a judge
 *   and an encoder). When another session needs the GPU, or a model that
 *   takes the same worker slot, the resident models are unloaded first and
 *   loaded again when their session calls next: a run and a scoring pass that
 *   need different models swap them instead of holding both. Calls on GPU
 *   models go one at a time (the workers run one call at a time anyway).
 * - **Tabs.** A loaded model holds a Web Lock named after it; another tab
 *   that needs the same model asks (BroadcastChannel) the holder to let it
 *   go and waits for the lock, so two tabs never load one model twice.
 * - **Secrets.** An endpoint's API key is read from the endpoint settings
 *   when its engine is built; specs, runs and exports never carry it.
 *
 * Workers reach the host through a MessagePort ({@link ModelHost.connect}):
 * the runner and scoring workers build their engines with
 * workers/runtime/host-engines.ts over it.
 */
import type { BatchOptions, Engine, EngineInfo, GenerateOptions, GenerateRequest, GenerateResult, LoadOptions } from '../../core/engines/engine.ts';
import { OpenAiCompatibleEngine } from '../../core/engines/openai/openai-engine.ts';
import { residencyKey, type EngineSpec, type TransformersSpec } from '../../core/engines/spec.ts';
import { EngineError, InvalidInputError, throwIfAborted } from '../../core/errors.ts';
import type { HostApi, HostLoadInput, HostTokenEmbeddings, HostTokenEmbedOptions } from '../../core/engines/host-api.ts';
import type { CallContext } from '../../core/rpc/protocol.ts';
import { exposeApi } from '../../../workers/runtime/expose.ts';
import { transformersWorker, WorkerEngine } from './transformers-client.ts';
import { WebLlmWorkerEngine } from './webllm-client.ts';

/** How long loaded models stay resident with no call before they are unloaded. */
export const HOST_IDLE_MS = 5 * 60_000;

/** The secret-bearing settings of an endpoint, looked up by id when its engine is built. */
export interface EndpointSecrets {
  readonly apiKey?: string;
}

export interface ModelHostOptions {
  /** The endpoint's settings (API key), by endpoint id. */
  readonly endpointSecrets: (endpointId: string) => Promise<EndpointSecrets | undefined>;
  /** Cross-tab locks; default `navigator.locks` where it exists. */
  readonly locks?: LockManager | null;
  /** Where another tab is asked to let a model go; default a BroadcastChannel. */
  readonly channel?: Pick<BroadcastChannel, 'postMessage' | 'addEventListener'> | null;
  readonly idleMs?: number;
  /** The engine of a GPU runtime for a spec; default the model workers' engines. */
  readonly createEngine?: (spec: Exclude<EngineSpec, { kind: 'openai' }>) => Engine;
}

/** What the host says about a resident model (the Models page shows it). */
export interface ResidentModel {
  readonly key: string;
  readonly label: string;
  readonly runtime: EngineSpec['kind'];
  readonly session: string;
}

interface Resident {
  readonly spec: EngineSpec;
  readonly session: string;
  readonly engine: Engine;
  info: EngineInfo | null;
  readonly releaseLock: () => void;
}

/** Encoders: sentence and token embeddings from a transformers.js feature-extraction model. */
export interface HostEncoder {
  sentenceEmbeddings(texts: readonly string[], options: { pooling: 'mean' | 'cls'; normalize: boolean; signal?: AbortSignal }): Promise<Float32Array[]>;
  tokenEmbeddings(text: string, options?: HostTokenEmbedOptions & { signal?: AbortSignal }): Promise<HostTokenEmbeddings>;
}

const LOCK_PREFIX = 'neuroeval-model:';
const CHANNEL = 'neuroeval-models';

/** Runs tasks one after another. */
class Queue {
  #tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(fn, fn);
    this.#tail = next.catch(() => {});
    return next;
  }
}

/** Two specs that cannot be loaded side by side in their worker (one generating model per worker). */
function sameSlot(a: EngineSpec, b: EngineSpec): boolean {
  if (a.kind === 'webllm' && b.kind === 'webllm') return true;
  if (a.kind === 'transformers' && b.kind === 'transformers') {
    const encoder = (s: TransformersSpec) => s.task === 'feature-extraction';
    return encoder(a) === encoder(b);
  }
  return false;
}

export class ModelHost {
  readonly #options: ModelHostOptions;
  readonly #resident = new Map<string, Resident>();
  readonly #gpu = new Queue();
  readonly #endpoints = new Map<string, OpenAiCompatibleEngine>();
  readonly #channel: Pick<BroadcastChannel, 'postMessage' | 'addEventListener'> | null;
  readonly #listeners = new Set<() => void>();
  #idleTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(options: ModelHostOptions) {
    this.#options = options;
    this.#channel = options.channel !== undefined ? options.channel : typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;
    this.#channel?.addEventListener('message', (e: Event) => {
      const data = (e as MessageEvent<{ type?: string; key?: string }>).data;
      // Another tab wants a model this tab holds: let it go after the call in progress.
      if (data?.type === 'release' && typeof data.key === 'string' && this.#resident.has(data.key)) {
        const key = data.key;
        void this.#gpu.run(() => this.#evict(key));
      }
    });
  }

  /** The models loaded now, for display. */
  resident(): ResidentModel[] {
    return [...this.#resident.entries()].map(([key, r]) => ({ key, label: r.spec.label, runtime: r.spec.kind, session: r.session }));
  }

  /** Calls `listener` whenever the resident set changes; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** An engine for `spec` used by `session`. Loading and every call go through the residency rules above. */
  engine(spec: EngineSpec, session: string): Engine {
    return new HostedEngine(this, spec, session);
  }

  /** An encoder (a transformers.js feature-extraction model) used by `session`. */
  encoder(spec: TransformersSpec, session: string): HostEncoder {
    if (spec.task !== 'feature-extraction') throw new InvalidInputError(`${spec.label} is not an encoder (feature-extraction model).`);
    const input = { source: { kind: 'folder' as const, location: spec.location }, device: spec.device, task: 'feature-extraction' as const, modelId: spec.id, ...(spec.dtype ? { dtype: spec.dtype } : {}) };
    return {
      sentenceEmbeddings: (texts, options) =>
        this.use(spec, session, options.signal, async () => {
          const out = await transformersWorker().api.embed({ texts, pooling: options.pooling, normalize: options.normalize, model: input }, options.signal ? { signal: options.signal } : {});
          return out.vectors;
        }),
      tokenEmbeddings: (text, options = {}) =>
        this.use(spec, session, options.signal, () =>
          transformersWorker().api.tokenEmbed({ text, model: input, ...tokenEmbedOptions(options) }, options.signal ? { signal: options.signal } : {}),
        ),
    };
  }

  /** Loads `spec` for `session` (see the file comment) and returns what the engine reports. */
  async load(spec: EngineSpec, session: string, options: LoadOptions = {}): Promise<EngineInfo> {
    if (spec.kind === 'openai') return (await this.#endpoint(spec)).load(options);
    // A model loaded and never asked must still be let go when the tab goes idle.
    this.#touch();
    return this.#gpu.run(async () => {
      const r = await this.#ensure(spec, session, options);
      return r.info!;
    });
  }

  /** Runs `fn` with `spec` resident for `session`. */
  use<T>(spec: EngineSpec, session: string, signal: AbortSignal | undefined, fn: (engine: Engine) => Promise<T>): Promise<T> {
    this.#touch();
    if (spec.kind === 'openai') return this.#endpoint(spec).then(async (e) => fn(e));
    return this.#gpu.run(async () => {
      const r = await this.#ensure(spec, session, signal ? { signal } : {});
      return fn(r.engine);
    });
  }

  /** Unloads `spec` if `session` holds it. */
  async unload(spec: EngineSpec, session: string): Promise<void> {
    if (spec.kind === 'openai') return;
    const key = residencyKey(spec);
    await this.#gpu.run(async () => {
      if (this.#resident.get(key)?.session === session) await this.#evict(key);
    });
  }

  /** Unloads everything this tab holds. */
  async unloadAll(): Promise<void> {
    await this.#gpu.run(async () => {
      for (const key of [...this.#resident.keys()]) await this.#evict(key);
    });
  }

  /**
   * A MessagePort over which a worker reaches this host (transfer it to the
   * worker). The worker side is workers/runtime/host-engines.ts.
   */
  connect(): MessagePort {
    const channel = new MessageChannel();
    exposeApi(hostApi(this), channel.port1);
    return channel.port2;
  }

  async #endpoint(spec: Extract<EngineSpec, { kind: 'openai' }>): Promise<OpenAiCompatibleEngine> {
    const key = residencyKey(spec);
    let engine = this.#endpoints.get(key);
    if (!engine) {
      const secrets = await this.#options.endpointSecrets(spec.endpointId);
      engine = new OpenAiCompatibleEngine({ baseUrl: spec.baseUrl, model: spec.model, concurrency: spec.concurrency, ...(secrets?.apiKey ? { apiKey: secrets.apiKey } : {}) });
      this.#endpoints.set(key, engine);
    }
    return engine;
  }

  async #ensure(spec: Exclude<EngineSpec, { kind: 'openai' }>, session: string, options: LoadOptions): Promise<Resident> {
    const key = residencyKey(spec);
    const held = this.#resident.get(key);
    if (held?.info) return held;
    for (const [k, r] of [...this.#resident.entries()]) {
      if (r.session !== session || sameSlot(r.spec, spec)) await this.#evict(k);
    }
    throwIfAborted(options.signal);
    const releaseLock = await this.#lock(key, options.signal);
    const engine = (this.#options.createEngine ?? rawEngine)(spec);
    const resident: Resident = { spec, session, engine, info: null, releaseLock };
    try {
      resident.info = await engine.load(options);
    } catch (error) {
      releaseLock();
      throw error;
    }
    this.#resident.set(key, resident);
    this.#changed();
    return resident;
  }

  async #evict(key: string): Promise<void> {
    const r = this.#resident.get(key);
    if (!r) return;
    this.#resident.delete(key);
    try {
      await r.engine.unload();
    } catch {
      // The worker may be gone already (stopped when idle, crashed): nothing is held then.
    } finally {
      r.releaseLock();
      this.#changed();
    }
  }

  /** Holds the cross-tab lock of `key` until the returned function is called. */
  async #lock(key: string, signal: AbortSignal | undefined): Promise<() => void> {
    const locks = this.#options.locks === undefined ? (globalThis.navigator?.locks ?? null) : this.#options.locks;
    if (!locks) return () => {};
    const name = LOCK_PREFIX + key;
    const state = await locks.query();
    if (state.held?.some((l) => l.name === name)) this.#channel?.postMessage({ type: 'release', key });
    return new Promise<() => void>((resolve, reject) => {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      locks
        .request(name, signal ? { signal } : {}, async () => {
          resolve(release);
          await held;
        })
        .catch(reject);
    });
  }

  #touch(): void {
    const idleMs = this.#options.idleMs ?? HOST_IDLE_MS;
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    this.#idleTimer = idleMs > 0 ? setTimeout(() => void this.unloadAll(), idleMs) : null;
  }

  #changed(): void {
    for (const l of this.#listeners) l();
  }
}

/** The engine of one runtime for a spec (GPU runtimes in their workers). */
function rawEngine(spec: Exclude<EngineSpec, { kind: 'openai' }>): Engine {
  if (spec.kind === 'transformers') {
    return new WorkerEngine({
      source: { kind: 'folder', location: spec.location },
      device: spec.device,
      modelId: spec.id,
      ...(spec.task ? { task: spec.task } : {}),
      ...(spec.dtype ? { dtype: spec.dtype } : {}),
      ...(spec.processor ? { processor: spec.processor } : {}),
      ...(spec.engine?.cachedDecoding === undefined ? {} : { cachedDecoding: spec.engine.cachedDecoding }),
      ...(spec.engine?.batch === undefined ? {} : { batch: spec.engine.batch }),
      ...(spec.engine?.wasmThreads === undefined ? {} : { wasmThreads: spec.engine.wasmThreads }),
    });
  }
  return new WebLlmWorkerEngine({
    entryId: spec.entryId,
    ...(spec.weightsBaseUrl ? { weightsBaseUrl: spec.weightsBaseUrl } : {}),
    ...(spec.modelLibUrl ? { modelLibUrl: spec.modelLibUrl } : {}),
    ...(spec.contextWindow ? { contextWindow: spec.contextWindow } : {}),
  });
}

/** An engine handed to a consumer: every call goes through the host. */
class HostedEngine implements Engine {
  constructor(
    private readonly host: ModelHost,
    private readonly spec: EngineSpec,
    private readonly session: string,
  ) {}

  load(options?: LoadOptions): Promise<EngineInfo> {
    if (this.spec.kind === 'transformers' && this.spec.task === 'feature-extraction') {
      return Promise.reject(new EngineError('ENGINE_UNSUPPORTED', `${this.spec.label} is an encoder; it does not generate text.`));
    }
    return this.host.load(this.spec, this.session, options);
  }

  generate(request: GenerateRequest, options: GenerateOptions = {}): Promise<GenerateResult> {
    return this.host.use(this.spec, this.session, options.signal, (engine) => engine.generate(request, options));
  }

  batchLimit(request: GenerateRequest): Promise<number> {
    return this.host.use(this.spec, this.session, undefined, async (engine) => (engine.batchLimit ? engine.batchLimit(request) : 1));
  }

  generateBatch(requests: readonly GenerateRequest[], options: BatchOptions = {}): Promise<GenerateResult[]> {
    return this.host.use(this.spec, this.session, options.signal, (engine) => batchOn(engine, requests, options));
  }

  unload(): Promise<void> {
    return this.host.unload(this.spec, this.session);
  }
}

/** `engine.generateBatch`, or its requests one by one where the engine has none. */
async function batchOn(engine: Engine, requests: readonly GenerateRequest[], options: BatchOptions): Promise<GenerateResult[]> {
  if (engine.generateBatch) return engine.generateBatch(requests, options);
  const out: GenerateResult[] = [];
  for (const [i, request] of requests.entries()) {
    out.push(await engine.generate(request, options.signal ? { signal: options.signal } : {}));
    options.onResult?.(i, out[i]!);
  }
  return out;
}

/** The host's side of {@link HostApi}, served on each port a worker connects with (see {@link ModelHost.connect}). */
function hostApi(host: ModelHost): HostApi {
  return {
    async load(input: HostLoadInput, ctx: CallContext): Promise<EngineInfo> {
      const info = await host.load(input.spec, input.session, { signal: ctx.signal, onProgress: (p) => ctx.progress(p) });
      // What identifies the engine (it goes into provenance); not this load's timings or threads.
      return { runtime: info.runtime, runtimeVersion: info.runtimeVersion, modelId: info.modelId, device: info.device };
    },
    async generate(input: HostLoadInput & { readonly request: GenerateRequest }, ctx: CallContext): Promise<GenerateResult> {
      let pieces = 0;
      const onToken = (piece: string) => ctx.progress({ phase: 'token', done: ++pieces, total: input.request.sampling.maxTokens, detail: { kind: 'tokens', piece } });
      return host.use(input.spec, input.session, ctx.signal, (engine) => engine.generate(input.request, { signal: ctx.signal, onToken }));
    },
    async generateBatch(input: HostLoadInput & { readonly requests: readonly GenerateRequest[] }, ctx: CallContext): Promise<GenerateResult[]> {
      let done = 0;
      const total = input.requests.length;
      return host.use(input.spec, input.session, ctx.signal, (engine) =>
        batchOn(engine, input.requests, {
          signal: ctx.signal,
          onResult: (index, result) => ctx.progress({ phase: 'result', done: ++done, total, detail: { kind: 'results', results: [{ index, result }] } }),
        }),
      );
    },
    async batchLimit(input: HostLoadInput & { readonly request: GenerateRequest }, ctx: CallContext): Promise<number> {
      return host.use(input.spec, input.session, ctx.signal, async (engine) => (engine.batchLimit ? engine.batchLimit(input.request) : 1));
    },
    async unload(input: HostLoadInput): Promise<void> {
      await host.unload(input.spec, input.session);
    },
    async embed(input: HostLoadInput & { readonly texts: readonly string[]; readonly pooling: 'mean' | 'cls'; readonly normalize: boolean }, ctx: CallContext): Promise<Float32Array[]> {
      return host.encoder(asEncoder(input.spec), input.session).sentenceEmbeddings(input.texts, { pooling: input.pooling, normalize: input.normalize, signal: ctx.signal });
    },
    async tokenEmbed(input: HostLoadInput & HostTokenEmbedOptions & { readonly text: string }, ctx: CallContext): Promise<HostTokenEmbeddings> {
      const out = await host.encoder(asEncoder(input.spec), input.session).tokenEmbeddings(input.text, { signal: ctx.signal, ...tokenEmbedOptions(input) });
      return { tokens: out.tokens, vectors: out.vectors, special: out.special, layer: out.layer, layers: out.layers, hiddenStates: out.hiddenStates, upstream: out.upstream };
    },
  };
}

/** The options that were given (an RPC message carries no `undefined` fields). */
function tokenEmbedOptions(o: HostTokenEmbedOptions): HostTokenEmbedOptions {
  return { ...(o.normalize === undefined ? {} : { normalize: o.normalize }), ...(o.layer === undefined ? {} : { layer: o.layer }), ...(o.specialTokens ? { specialTokens: o.specialTokens } : {}) };
}

function asEncoder(spec: EngineSpec): TransformersSpec {
  if (spec.kind !== 'transformers') throw new InvalidInputError(`${spec.label} is not a transformers.js encoder.`);
  return spec;
}

