/**
 * Drives a planned run: one answer per planned item, stored before the next
 * request, so a run can stop at any moment and resume where it stopped.
 *
 * - Resume: items whose key is already stored are skipped. Response ids are
 *   derived from run + item key and saved with put (upsert), so an item can
 *   never be stored twice; a crash between generate and save loses only that
 *   answer, which the next session asks again.
 * - Cache: an identical request already answered (same cache key, finished,
 *   non-empty) is copied instead of generated, unless `force`. Models whose
 *   `filesHash` is unknown never reuse.
 * - Pause: stops after the current item, or stops a batch at once keeping its
 *   finished answers (`paused`). Cancel: aborts the
 *   in-flight generation, which is not stored (`cancelled`).
 * - Errors: a failed item is stored with finishReason `error` and its message,
 *   and the run goes on. Errors the engine cannot recover from by itself (GPU
 *   device lost, worker crashed, server unreachable) and
 *   `maxConsecutiveErrors` failures in a row pause the run with the reason;
 *   the in-flight item is not stored, so resuming asks it again. A model that
 *   cannot be loaded ends the run as `failed`. A storage failure (a full
 *   disk above all) pauses it with the reason: every answer stored before it
 *   is kept, and resuming asks the rest. Any run can be resumed by calling
 *   `runRun` again, whatever its status.
 * - Models: loaded lazily on their first item that needs generating; the
 *   previous model is unloaded first unless the plan interleaves models.
 * - Concurrency (`concurrency` > 1, for endpoints that batch requests): up
 *   to that many items are asked at once and each answer is stored as it
 *   arrives, in any order. Items of the next model wait until the current
 *   model's are answered (unless the plan interleaves). A stop (pause,
 *   cancel, errors) starts no new item; the items already asked are stored
 *   when they answer, or dropped when cancelled, so resume asks each
 *   missing item once. With 1 (the app's default) it is the loop above.
 * - Shared prompts (prefix-groups.ts): each request names the opening parts
 *   it shares with the other items of its model (system prompt, few-shot
 *   exemplars), so an engine that keeps them computes them once.
 * - Batches (with concurrency 1): where the model's engine decodes several
 *   greedy single-turn requests together (`Engine.batchLimit`), that many
 *   consecutive items of the model are asked in one `generateBatch`, and
 *   each answer is stored as soon as the engine reports it, before the
 *   others finish. A stop ends after the batch in flight (a cancel drops
 *   its unfinished answers); resume asks exactly the items not stored.
 */
import type { BenchCase } from '../bundle/types.ts';
import type { PromptPrefix } from '../chat/prefix.ts';
import type { EngineInfo, GenerateResult } from '../engines/engine.ts';
import { isAbortLike } from '../errors.ts';
import { redactSecrets } from '../security/redact.ts';
import { isStorageFailure, storageStopMessage } from './storage-stop.ts';
import { isReusable } from './cache-key.ts';
import { EnginePool, type EngineFactory, type LoadedEngine } from './engine-pool.ts';
import { answerRow, errorRow, generateItem, itemCacheKey, openingRequest, prepareItem, reusedRow, singleTurnAnswer, type ItemAnswer, type PreparedItem } from './item.ts';
import { prefixGroups } from './prefix-groups.ts';
import { addTally, decodeSpeed, decodeTally, NO_DECODE, type DecodeTally } from './decode-speed.ts';
import type { ImageLoader, PlannedItem, RunControl, RunEndStatus, RunLock, RunModel, RunOutcome, RunPlan, RunProgress, RunProtocol, RunStore } from './types.ts';
import type { ResponseRecord } from '../model/answer.ts';

export interface RunOptions {
  readonly runId: string;
  readonly plan: RunPlan;
  /** Creates (does not load) the engine of a model; the runner loads and unloads it. */
  readonly engineFor: EngineFactory;
  readonly protocol: RunProtocol;
  readonly store: RunStore;
  readonly images: ImageLoader;
  readonly lock: RunLock;
  readonly control?: RunControl;
  readonly onProgress?: (p: RunProgress) => void;
  /** Generate even when an identical answer is cached. */
  readonly force?: boolean;
  /** Engine failures in a row that pause the run (default 5). */
  readonly maxConsecutiveErrors?: number;
  /** Items asked at once (default 1: each answer stored before the next request). */
  readonly concurrency?: number;
  readonly now?: () => number;
}

/**
 * Runs (or resumes) a run to its end, a pause or a cancel.
 * @throws RunLockedError when the run is held by another tab; nothing is changed then.
 */
export async function runRun(options: RunOptions): Promise<RunOutcome> {
  const release = await options.lock.acquire(options.runId);
  try {
    return await new RunSession(options).run();
  } finally {
    await release();
  }
}

type Stop = { readonly status: RunEndStatus; readonly error: string | null };

/** An item made ready to generate: its request, cache key and loaded engine. */
interface ToGenerate {
  readonly kind: 'generate';
  readonly item: PlannedItem;
  readonly model: RunModel;
  readonly prepared: PreparedItem;
  readonly key: string;
  readonly loaded: LoadedEngine;
}

/** What starting an item came to: a stop, an item already settled (reused or failed and stored), or one to generate. */
type Begun = { readonly kind: 'stop'; readonly stop: Stop } | { readonly kind: 'settled' } | ToGenerate;

const PAUSING_ENGINE_CODES = new Set(['ENGINE_DEVICE_LOST', 'ENGINE_NOT_LOADED', 'ENGINE_UNREACHABLE']);
const PAUSING_CODES = new Set(['WORKER_CRASHED', 'WORKER_TERMINATED', 'WEBGPU_UNAVAILABLE']);

/** Errors after which further requests to the same engine are pointless until the user recovers. */
export function isPausingEngineError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { engineCode, code } = err as { engineCode?: unknown; code?: unknown };
  return PAUSING_ENGINE_CODES.has(String(engineCode)) || PAUSING_CODES.has(String(code));
}

/** An error's message as stored (the run's status, a failed answer): without any bearer token an engine's server may have echoed. */
const messageOf = (err: unknown) => redactSecrets(err instanceof Error ? err.message || err.name : String(err));

/** Items a batch can take: one turn, greedy (a sampled request's draws would depend on its batch). */
const batchable = (g: ToGenerate) => g.prepared.followUps.length === 0 && g.item.sampling.temperature === 0;

class RunSession {
  private readonly o: RunOptions;
  private readonly now: () => number;
  private readonly signal: AbortSignal;
  private readonly cases = new Map<string, BenchCase>();
  private readonly models = new Map<string, RunModel>();
  private readonly modelTotals = new Map<string, number>();
  private readonly modelDone = new Map<string, number>();
  /** Per model, its decode tokens and seconds in this session (decode-speed.ts). */
  private readonly speed = new Map<string, DecodeTally>();
  private readonly engines: Record<string, EngineInfo> = {};
  private readonly pool: EnginePool;
  private done = 0;
  private generated = 0;
  private reused = 0;
  private errors = 0;
  private consecutiveErrors = 0;
  /** Loads under way, so items asked at once share one load of their model. */
  private readonly loading = new Map<string, Promise<LoadedEngine | Stop>>();
  /** The shared opening of each pending item's request, by item key. */
  private prefixes = new Map<string, PromptPrefix>();
  /** Requests each model's engine decodes together. */
  private readonly batchLimits = new Map<string, number>();

  constructor(options: RunOptions) {
    this.o = options;
    this.now = options.now ?? Date.now;
    this.signal = options.control?.signal ?? new AbortController().signal;
    this.pool = new EnginePool(options.engineFor, options.plan.interleave);
    for (const c of options.plan.cases) this.cases.set(c.id, c);
    for (const m of options.plan.models) this.models.set(m.id, m);
    for (const item of options.plan.items) this.modelTotals.set(item.modelId, (this.modelTotals.get(item.modelId) ?? 0) + 1);
  }

  async run(): Promise<RunOutcome> {
    const { runId, store, plan } = this.o;
    let stop: Stop;
    try {
      const completed = await store.completedItemKeys(runId);
      for (const item of plan.items) if (completed.has(item.itemKey)) this.count(item);
      await store.updateRun(runId, { status: 'running', error: null, progress: this.overall() });
      await store.recordProvenance?.(runId, { startedAt: this.now() });
      this.emit('running', null);
      const pending = plan.items.filter((item) => !completed.has(item.itemKey));
      this.prefixes = prefixGroups(pending, this.cases, this.o.protocol);
      stop = await this.drive(pending);
    } catch (err) {
      if (this.signal.aborted && isAbortLike(err)) stop = { status: 'cancelled', error: null };
      else if (isStorageFailure(err)) stop = { status: 'paused', error: storageStopMessage(err, this.overall()) };
      else stop = { status: 'failed', error: messageOf(err) };
    }
    await this.pool.unloadAll();
    return this.finish(stop);
  }

  /**
   * Asks the items with up to `concurrency` in flight; returns the first stop
   * (or done) once every item asked has been answered or dropped. A store
   * failure is thrown after the items in flight have settled, so nothing is
   * written once the run has ended.
   */
  private async drive(items: readonly PlannedItem[]): Promise<Stop> {
    const slots = Math.max(1, Math.floor(this.o.concurrency ?? 1));
    if (slots === 1) return this.driveInOrder(items);
    let next = 0;
    let active = 0;
    let activeModel: string | null = null;
    // Held in an object: the workers set them, and TypeScript does not see writes made inside closures.
    const end: { stop: Stop | null; thrown: { error: unknown } | null } = { stop: null, thrown: null };
    let idle: (() => void)[] = [];
    const worker = async (): Promise<void> => {
      while (end.stop === null && end.thrown === null && next < items.length) {
        if (this.signal.aborted) end.stop = { status: 'cancelled', error: null };
        else if (this.o.control?.pauseRequested) end.stop = { status: 'paused', error: null };
        if (end.stop) break;
        const item = items[next]!;
        // One model resident: the next model's items wait for the current model's to be answered.
        if (!this.o.plan.interleave && active > 0 && activeModel !== item.modelId) {
          await new Promise<void>((resolve) => idle.push(resolve));
          continue;
        }
        next++;
        active++;
        activeModel = item.modelId;
        try {
          const s = await this.runItem(item);
          if (s) end.stop ??= s;
        } catch (error) {
          end.thrown ??= { error };
        } finally {
          active--;
          if (active === 0) {
            const waiting = idle;
            idle = [];
            for (const resolve of waiting) resolve();
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(slots, Math.max(1, items.length)) }, worker));
    if (end.thrown) throw end.thrown.error;
    return end.stop ?? { status: 'done', error: null };
  }

  /**
   * Asks the items in order, one request at a time, or in batches of
   * consecutive items of one model where its engine decodes several together
   * (each answer stored as it comes). Returns the first stop, or done.
   */
  private async driveInOrder(items: readonly PlannedItem[]): Promise<Stop> {
    let next = 0;
    while (next < items.length) {
      if (this.signal.aborted) return { status: 'cancelled', error: null };
      if (this.o.control?.pauseRequested) return { status: 'paused', error: null };
      const begun = await this.begin(items[next++]!);
      if (begun.kind === 'stop') return begun.stop;
      if (begun.kind === 'settled') continue;
      const limit = await this.batchLimit(begun);
      const batch: ToGenerate[] = [begun];
      let after: Begun | null = null;
      while (batch.length < limit && next < items.length && items[next]!.modelId === begun.item.modelId && !this.signal.aborted && !this.o.control?.pauseRequested) {
        const more = await this.begin(items[next++]!);
        if (more.kind === 'settled') continue;
        if (more.kind === 'stop' || !batchable(more)) {
          after = more;
          break;
        }
        batch.push(more);
      }
      const stop = batch.length === 1 ? await this.generateOne(batch[0]!) : await this.generateBatch(batch);
      if (stop) return stop;
      if (after?.kind === 'stop') return after.stop;
      if (after?.kind === 'generate') {
        const s = await this.generateOne(after);
        if (s) return s;
      }
    }
    return { status: 'done', error: null };
  }

  /** Answers one item; returns how the run must stop, or nothing to go on. Store failures throw. */
  private async runItem(item: PlannedItem): Promise<Stop | null> {
    const begun = await this.begin(item);
    if (begun.kind === 'stop') return begun.stop;
    if (begun.kind === 'settled') return null;
    return this.generateOne(begun);
  }

  /**
   * Makes an item ready to generate: its request (images loaded), its cache
   * key, its model's engine loaded. An item that cannot be built is stored
   * as an error and a cached identical answer is copied (both `settled`).
   */
  private async begin(item: PlannedItem): Promise<Begun> {
    const { protocol, runId } = this.o;
    const model = this.models.get(item.modelId);
    const kase = this.cases.get(item.caseId);
    const question = kase?.questions.find((q) => q.id === item.questionId);
    const settle = (stop: Stop | null): Begun => (stop ? { kind: 'stop', stop } : { kind: 'settled' });
    if (!model || !kase || !question) return settle(await this.saveError(item, '', 'The plan refers to a case, question or model it does not contain.', false));

    let prepared;
    try {
      prepared = await prepareItem(item, kase, question, protocol, this.o.images);
    } catch (err) {
      if (this.signal.aborted) return settle({ status: 'cancelled', error: null });
      return settle(await this.saveError(item, '', `Could not build the request: ${messageOf(err)}`, false));
    }

    let loaded: LoadedEngine | Stop | null = null;
    let runtime: { runtime: string; runtimeVersion: string } | null =
      model.runtime !== undefined && model.runtimeVersion !== undefined ? { runtime: model.runtime, runtimeVersion: model.runtimeVersion } : null;
    if (!runtime) {
      loaded = await this.load(model);
      if ('status' in loaded) return settle(loaded);
      runtime = loaded.info;
    }
    const key = itemCacheKey(item, prepared, model, runtime, protocol);

    if (!this.o.force && model.filesHash !== '') {
      const cached = await this.o.store.findCached(key);
      if (cached && isReusable(cached)) {
        await this.save(reusedRow(runId, item, key, cached as ResponseRecord, this.now()));
        this.reused++;
        return { kind: 'settled' };
      }
    }

    loaded ??= await this.load(model);
    if ('status' in loaded) return settle(loaded);
    return { kind: 'generate', item, model, prepared, key, loaded };
  }

  /** Generates one item's every turn and stores its answer. */
  private async generateOne(g: ToGenerate): Promise<Stop | null> {
    let answer;
    try {
      answer = await generateItem(g.loaded.engine, g.item, g.prepared, this.o.protocol, this.signal, this.now, this.prefixes.get(g.item.itemKey));
    } catch (err) {
      return this.engineFailure([g], err);
    }
    if (answer.turns.at(-1)?.finishReason === 'abort' && this.signal.aborted) return { status: 'cancelled', error: null };
    return this.storeAnswer(g, answer);
  }

  /**
   * Asks several single-turn items of one model in one batch; each answer
   * is stored as soon as the engine reports it. A cancel drops the answers
   * not finished; an engine failure is handled as for one item, for every
   * item of the batch not yet stored.
   */
  private async generateBatch(batch: readonly ToGenerate[]): Promise<Stop | null> {
    const engine = batch[0]!.loaded.engine;
    const requests = batch.map((g) => openingRequest(g.item, g.prepared, this.prefixes.get(g.item.itemKey)));
    // The batch stops with the run, or when an answer cannot be stored (the store failure then ends the run).
    const local = new AbortController();
    const stopBatch = () => local.abort();
    this.signal.addEventListener('abort', stopBatch, { once: true });
    // A pause stops the batch too (answers finished so far are kept; the others are asked again on resume): a batch
    // can take minutes, and a pause is asked for now. The control is a flag, so it is looked at a few times a second.
    let pausedHere = false;
    const pauseWatch = setInterval(() => {
      if (!this.o.control?.pauseRequested || local.signal.aborted) return;
      pausedHere = true;
      local.abort();
    }, 200);
    const stored = new Set<number>();
    let saving: Promise<void> = Promise.resolve();
    let failure: { error: unknown } | null = null;
    let stop: Stop | null = null;
    const onResult = (i: number, result: GenerateResult) => {
      if (stored.has(i) || (result.finishReason === 'abort' && local.signal.aborted)) return;
      stored.add(i);
      saving = saving
        .then(async () => {
          if (failure) return;
          const s = await this.storeAnswer(batch[i]!, singleTurnAnswer(batch[i]!.item, batch[i]!.prepared, result));
          stop ??= s;
        })
        .catch((error: unknown) => {
          failure ??= { error };
          local.abort();
        });
    };
    try {
      await engine.generateBatch!(requests, { signal: local.signal, onResult });
    } catch (err) {
      await saving;
      if (failure) throw (failure as { error: unknown }).error;
      if (pausedHere && !this.signal.aborted) return stop ?? { status: 'paused', error: null };
      return this.engineFailure(batch.filter((_, i) => !stored.has(i)), err);
    } finally {
      clearInterval(pauseWatch);
      this.signal.removeEventListener('abort', stopBatch);
    }
    await saving;
    if (failure) throw (failure as { error: unknown }).error;
    if (this.signal.aborted) return { status: 'cancelled', error: null };
    if (pausedHere) return stop ?? { status: 'paused', error: null };
    return stop;
  }

  /** How the run goes on after the engine failed on these items: cancelled, paused (device lost, …), or each stored as an error. */
  private async engineFailure(items: readonly ToGenerate[], err: unknown): Promise<Stop | null> {
    if (this.signal.aborted) return { status: 'cancelled', error: null };
    const model = items[0]?.model;
    if (model && isPausingEngineError(err)) {
      await this.pool.drop(model.id);
      return { status: 'paused', error: `Paused: ${model.id} stopped working (${messageOf(err)}). Resume once it has recovered.` };
    }
    let stop: Stop | null = null;
    for (const g of items) stop ??= await this.saveError(g.item, g.key, messageOf(err), true);
    return stop;
  }

  /** Stores a generated answer and counts it; returns a stop after too many failures in a row. */
  private async storeAnswer(g: ToGenerate, answer: ItemAnswer): Promise<Stop | null> {
    this.speed.set(g.model.id, addTally(this.speed.get(g.model.id) ?? NO_DECODE, decodeTally(answer.turns.map((t) => t.usage))));
    const row = answerRow(this.o.runId, g.item, g.key, answer, this.now());
    await this.save(row);
    this.generated++;
    if (row.finishReason !== 'error' && row.finishReason !== 'abort') {
      this.consecutiveErrors = 0;
      return null;
    }
    return this.countError(row.error ?? 'The engine reported an error.');
  }

  /** Requests the model's engine decodes together (asked once per model; 1 when it cannot batch this item). */
  private async batchLimit(g: ToGenerate): Promise<number> {
    const engine = g.loaded.engine;
    if (!batchable(g) || !engine.batchLimit || !engine.generateBatch) return 1;
    let limit = this.batchLimits.get(g.model.id);
    if (limit === undefined) {
      try {
        limit = Math.max(1, Math.floor(await engine.batchLimit(openingRequest(g.item, g.prepared))));
      } catch {
        limit = 1;
      }
      this.batchLimits.set(g.model.id, limit);
    }
    return limit;
  }

  /** Loads (or returns the loaded) engine of a model, or says how the run stops; items asked at once share the load. */
  private load(model: RunModel): Promise<LoadedEngine | Stop> {
    let pending = this.loading.get(model.id);
    if (!pending) {
      pending = this.loadNow(model).finally(() => this.loading.delete(model.id));
      this.loading.set(model.id, pending);
    }
    return pending;
  }

  private async loadNow(model: RunModel): Promise<LoadedEngine | Stop> {
    let loaded: LoadedEngine;
    try {
      loaded = await this.pool.get(model.id, this.signal, () => this.emit('loading-model', model.id));
    } catch (err) {
      if (this.signal.aborted) return { status: 'cancelled', error: null };
      if (isPausingEngineError(err)) return { status: 'paused', error: `Paused while loading ${model.id}: ${messageOf(err)}. Resume once it has recovered.` };
      return { status: 'failed', error: `Model ${model.id} could not be loaded: ${messageOf(err)}` };
    }
    const { info } = loaded;
    if (this.engines[model.id] !== info) {
      const wrong =
        (model.runtime !== undefined && model.runtime !== info.runtime) ||
        (model.runtimeVersion !== undefined && model.runtimeVersion !== info.runtimeVersion);
      if (wrong) {
        return {
          status: 'failed',
          error: `Model ${model.id} was planned for ${model.runtime} ${model.runtimeVersion ?? ''} but the engine is ${info.runtime} ${info.runtimeVersion}; plan the run again.`,
        };
      }
      this.engines[model.id] = info;
      await this.o.store.recordProvenance?.(this.o.runId, { engine: { modelId: model.id, info } });
      this.emit('running', model.id);
    }
    return loaded;
  }

  private async saveError(item: PlannedItem, key: string, message: string, engineFailure: boolean): Promise<Stop | null> {
    await this.save(errorRow(this.o.runId, item, key, message, this.now()));
    if (!engineFailure) {
      this.errors++;
      return null;
    }
    return this.countError(message);
  }

  private countError(message: string): Stop | null {
    this.errors++;
    this.consecutiveErrors++;
    const max = this.o.maxConsecutiveErrors ?? 5;
    if (this.consecutiveErrors < max) return null;
    return { status: 'paused', error: `Paused after ${this.consecutiveErrors} failed answers in a row; the last: ${message}` };
  }

  /** One write per answer, before the next request. */
  private async save(row: ResponseRecord): Promise<void> {
    await this.o.store.saveResponse(row);
    this.count(row);
    this.emit('running', row.modelId, row);
  }

  private count(item: { modelId: string }): void {
    this.done++;
    this.modelDone.set(item.modelId, (this.modelDone.get(item.modelId) ?? 0) + 1);
  }

  private overall() {
    return { done: this.done, total: this.o.plan.items.length };
  }

  private emit(phase: RunProgress['phase'], modelId: string | null, latest?: ResponseRecord): void {
    if (!this.o.onProgress) return;
    const s = modelId ? this.speed.get(modelId) : undefined;
    const progress: RunProgress = {
      runId: this.o.runId,
      phase,
      modelId,
      overall: this.overall(),
      model: modelId ? { done: this.modelDone.get(modelId) ?? 0, total: this.modelTotals.get(modelId) ?? 0 } : null,
      decodeTps: s ? decodeSpeed(s) : null,
      ...(latest ? { latest } : {}),
    };
    try {
      this.o.onProgress(progress);
    } catch {
      // A broken progress listener must not stop a long run.
    }
  }

  private async finish(stop: Stop): Promise<RunOutcome> {
    let { status, error } = stop;
    try {
      await this.o.store.recordProvenance?.(this.o.runId, { endedAt: this.now() });
      await this.o.store.updateRun(this.o.runId, { status, error, progress: this.overall() });
    } catch (err) {
      // A full disk also refuses the status write: the run stays resumable, and the outcome says why.
      if (!isStorageFailure(err) || status !== 'paused') {
        if (status !== 'failed') error = `Could not record the run's status: ${messageOf(err)}`;
        status = 'failed';
      }
    }
    this.emit('finished', null);
    const { generated, reused, errors, engines } = this;
    return { status, error, progress: this.overall(), generated, reused, errors, engines: { ...engines } };
  }
}
