/**
 * One planned item: build its request (images loaded for the variant), key
 * it, generate its turns, and shape the stored response.
 *
 * Multi-turn: the opening turns are sent, the answer is appended as an
 * assistant turn, then each scripted follow-up is appended and answered in
 * turn. The stored row's `rawText`/`parsed` are the final turn's; `turns`
 * holds every turn's raw text, parse, usage and finish reason. A turn that
 * ends in `error` or `abort` ends the conversation there.
 */
import type { BenchCase, Question } from '../bundle/types.ts';
import type { PromptPrefix } from '../chat/prefix.ts';
import { noUsage, type ResponseUsage } from '../model/answer.ts';
import { mapTurnImages, textTurn, withoutImages } from '../chat/turn.ts';
import { capAnswer, type ChatTurn, type Engine, type EngineImage, type EngineUsage, type GenerateRequest, type GenerateResult } from '../engines/engine.ts';
import { InvalidInputError } from '../errors.ts';
import { redactSecrets } from '../security/redact.ts';
import type { ImageRef, ParseResult } from '../protocols/types.ts';
import { cacheKey, promptHash } from './cache-key.ts';
import { responseIdOf } from './plan.ts';
import type { ImageLoader, LoadedImage, PlannedItem, ProtocolTurn, RunModel, RunProtocol } from './types.ts';
import type { ResponseRecord, TurnRecord } from '../model/answer.ts';

export interface PreparedItem {
  readonly opening: readonly ChatTurn[];
  readonly followUps: readonly { readonly id: string; readonly turn: ChatTurn; readonly parse: (raw: string) => ParseResult }[];
  /** Post-transform hashes of every image sent, in order (opening turns, then follow-ups). */
  readonly imageHashes: readonly string[];
  readonly promptHash: string;
  /** The schema every turn of the item asks the engine to follow (the run's JSON-output setting), if any. */
  readonly jsonSchema?: Readonly<Record<string, unknown>>;
  /** Parses the opening answer (knows the case, so one protocol object can dispatch per case). */
  readonly parse: (raw: string) => ParseResult;
}

/**
 * Builds the request of an item: the protocol's turns with each image
 * reference replaced, where it stands, by the image's bytes after the
 * variant's transform. Nothing is reordered or joined. Throws when the
 * protocol or an image load fails.
 */
export async function prepareItem(
  item: PlannedItem,
  kase: BenchCase,
  question: Question,
  protocol: RunProtocol,
  loadImage: ImageLoader,
): Promise<PreparedItem> {
  const ctx = { modelId: item.modelId, variant: item.variant, sample: item.sample };
  const textOnly = item.variant === 'text-only';
  // text-only drops every image; the text is left to the protocol (it sees the variant).
  const strip = (t: ProtocolTurn): ProtocolTurn => (textOnly ? withoutImages(t) : t);
  const opening = protocol.buildRequest(kase, question, ctx).map(strip);
  const jsonSchema = protocol.jsonSchemaFor?.(kase);
  const followUps = (protocol.turns?.(kase, question, ctx) ?? []).map((f) => ({ ...f, turn: strip(f.turn) }));
  const imageHashes: string[] = [];
  const memo = new Map<string, Promise<LoadedImage>>();
  const load = async (ref: ImageRef): Promise<EngineImage> => {
    if (!ref.sha256) throw new InvalidInputError(`Image ${ref.index + 1} of case ${ref.caseId} (${ref.path}) has no stored content hash, so it cannot be loaded.`);
    let loading = memo.get(ref.sha256);
    if (!loading) {
      loading = loadImage(ref.sha256, item.variant);
      memo.set(ref.sha256, loading);
    }
    const img = await loading;
    imageHashes.push(img.sha256);
    return { bytes: img.bytes, mime: img.mime };
  };
  const resolvedOpening: ChatTurn[] = [];
  for (const turn of opening) resolvedOpening.push(await mapTurnImages(turn, load));
  const resolvedFollowUps = [];
  for (const f of followUps) {
    resolvedFollowUps.push({ id: f.id, turn: await mapTurnImages(f.turn, load), parse: f.parse ?? ((raw: string) => protocol.parse(raw, kase, question)) });
  }
  return {
    parse: (raw: string) => protocol.parse(raw, kase, question),
    opening: resolvedOpening,
    followUps: resolvedFollowUps,
    imageHashes,
    ...(jsonSchema ? { jsonSchema } : {}),
    promptHash: promptHash(opening, followUps, jsonSchema),
  };
}

/** The cache key of a prepared item on a given runtime. */
export function itemCacheKey(
  item: PlannedItem,
  prepared: PreparedItem,
  model: RunModel,
  runtime: { readonly runtime: string; readonly runtimeVersion: string },
  protocol: Pick<RunProtocol, 'id' | 'version'>,
): string {
  return cacheKey({
    modelId: model.id,
    modelFilesHash: model.filesHash,
    runtime: runtime.runtime,
    runtimeVersion: runtime.runtimeVersion,
    protocolId: protocol.id,
    protocolVersion: protocol.version,
    promptHash: prepared.promptHash,
    imageHashes: prepared.imageHashes,
    variant: item.variant,
    sampling: item.sampling,
    seed: item.sampling.seed,
  });
}

/** What generating an item produced, before it becomes a row. */
export interface ItemAnswer {
  readonly turns: readonly TurnRecord[];
  /** The item has follow-ups: the row keeps every turn. */
  readonly multiTurn: boolean;
}

/** The request of an item's first turn (a batch asks single-turn items with it). */
export function openingRequest(item: PlannedItem, prepared: PreparedItem, prefix?: PromptPrefix): GenerateRequest {
  return { messages: [...prepared.opening], sampling: item.sampling, ...(prepared.jsonSchema ? { jsonSchema: prepared.jsonSchema } : {}), ...(prefix ? { prefix } : {}) };
}

/**
 * One turn's record from the engine's result. Whatever the engine: no answer
 * is kept past its budget's bytes (`maxTokens`), and no bearer token is kept at all.
 */
function turnRecord(id: string, parse: (raw: string) => ParseResult, result: GenerateResult, latencyMs: number, maxTokens: number): TurnRecord {
  const capped = capAnswer(result.text, maxTokens);
  const truncated = capped.truncated || result.truncated === true;
  const text = redactSecrets(capped.text);
  const finishReason = truncated && result.finishReason !== 'error' && result.finishReason !== 'abort' ? 'length' : result.finishReason;
  const parsed = finishReason === 'error' || finishReason === 'abort' ? null : safeParse(parse, text);
  return {
    id,
    rawText: text,
    parsed: parsed?.ok ? parsed.value : null,
    parseError: parsed && !parsed.ok ? parsed.error : null,
    finishReason,
    usage: toUsage(result.usage),
    latencyMs,
    ...(truncated ? { truncated: true as const } : {}),
  };
}

/** The answer of a single-turn item from its one result (answered in a batch: its latency is its own time in the engine). */
export function singleTurnAnswer(item: PlannedItem, prepared: PreparedItem, result: GenerateResult): ItemAnswer {
  const latencyMs = Math.max(0, result.usage.totalMs);
  return { turns: [turnRecord('initial', prepared.parse, result, latencyMs, item.sampling.maxTokens)], multiTurn: false };
}

/**
 * Generates every turn of an item. Engine failures propagate (the runner
 * decides whether they are per-item or stop the run). `prefix` names the
 * opening parts the item shares with others of its run; every turn's
 * request starts with them.
 */
export async function generateItem(
  engine: Engine,
  item: PlannedItem,
  prepared: PreparedItem,
  protocol: RunProtocol,
  signal: AbortSignal,
  now: () => number,
  prefix?: PromptPrefix,
): Promise<ItemAnswer> {
  const messages: ChatTurn[] = [...prepared.opening];
  const steps = [{ id: 'initial', turn: null as ChatTurn | null, parse: prepared.parse }, ...prepared.followUps];
  const turns: TurnRecord[] = [];
  for (const step of steps) {
    if (step.turn) messages.push(step.turn);
    const started = now();
    const result = await engine.generate(
      { messages: [...messages], sampling: item.sampling, ...(prepared.jsonSchema ? { jsonSchema: prepared.jsonSchema } : {}), ...(prefix ? { prefix } : {}) },
      { signal },
    );
    const latencyMs = Math.max(0, now() - started);
    const turn = turnRecord(step.id, step.parse, result, latencyMs, item.sampling.maxTokens);
    turns.push(turn);
    if (turn.finishReason === 'error' || turn.finishReason === 'abort') break;
    messages.push(textTurn('assistant', turn.rawText));
  }
  return { turns, multiTurn: prepared.followUps.length > 0 };
}

/** The stored row of a generated item. */
export function answerRow(runId: string, item: PlannedItem, key: string, answer: ItemAnswer, createdAt: number): ResponseRecord {
  const last = answer.turns.at(-1);
  return {
    ...rowBase(runId, item, key, createdAt),
    rawText: last?.rawText ?? '',
    parsed: last?.parsed ?? null,
    parseError: last?.parseError ?? null,
    usage: sumUsage(answer.turns.map((t) => t.usage)),
    latencyMs: answer.turns.reduce((n, t) => n + t.latencyMs, 0),
    finishReason: last?.finishReason ?? 'error',
    ...(answer.multiTurn ? { turns: answer.turns } : {}),
    ...(answer.turns.some((t) => t.truncated) ? { truncated: true as const } : {}),
    error:
      last?.finishReason === 'error'
        ? 'The engine reported an error while generating.'
        : last?.finishReason === 'abort'
          ? 'The engine stopped generating on its own.'
          : null,
    reusedFrom: null,
  };
}

/** The stored row of an item that failed before or during generation. */
export function errorRow(runId: string, item: PlannedItem, key: string, message: string, createdAt: number): ResponseRecord {
  return {
    ...rowBase(runId, item, key, createdAt),
    rawText: '',
    parsed: null,
    parseError: null,
    usage: noUsage(),
    latencyMs: 0,
    finishReason: 'error',
    error: redactSecrets(message),
    reusedFrom: null,
  };
}

/** The stored row of an item answered from the cache: the earlier answer, re-homed in this run. */
export function reusedRow(runId: string, item: PlannedItem, key: string, cached: ResponseRecord, createdAt: number): ResponseRecord {
  return {
    ...rowBase(runId, item, key, createdAt),
    rawText: cached.rawText,
    parsed: cached.parsed,
    parseError: cached.parseError,
    usage: cached.usage,
    latencyMs: cached.latencyMs,
    finishReason: cached.finishReason,
    ...(cached.turns ? { turns: cached.turns } : {}),
    ...(cached.truncated ? { truncated: true as const } : {}),
    error: null,
    reusedFrom: cached.id,
  };
}

/** A parser that throws is a protocol bug, not a failed generation: keep the answer, record why it was not parsed. */
function safeParse(parse: (raw: string) => ParseResult, raw: string): ParseResult {
  try {
    return parse(raw);
  } catch (err) {
    return { ok: false, error: `The parser failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}

function rowBase(runId: string, item: PlannedItem, key: string, createdAt: number) {
  return {
    id: responseIdOf(runId, item.itemKey),
    runId,
    itemKey: item.itemKey,
    caseId: item.caseId,
    questionId: item.questionId,
    cacheKey: key,
    modelId: item.modelId,
    variant: item.variant,
    sample: item.sample,
    createdAt,
  };
}

function toUsage(u: EngineUsage): ResponseUsage {
  return {
    promptTokens: u.promptTokens,
    completionTokens: u.completionTokens,
    ttftMs: u.ttftMs,
    prefillTps: u.prefillTps,
    decodeTps: u.decodeTps,
    ...(u.prompt ? { prompt: u.prompt } : {}),
    ...(u.batch && u.batch > 1 ? { batch: u.batch } : {}),
  };
}

/** Totals over turns: tokens add up, time to first token is the first turn's, speeds are averaged. */
function sumUsage(all: readonly ResponseUsage[]): ResponseUsage {
  const first = all[0];
  if (!first || all.length === 1) return first ?? noUsage();
  const sum = (pick: (u: ResponseUsage) => number | null) =>
    all.some((u) => pick(u) === null) ? null : all.reduce((n, u) => n + pick(u)!, 0);
  const mean = (pick: (u: ResponseUsage) => number | null) => {
    const known = all.map(pick).filter((v): v is number => v !== null);
    return known.length > 0 ? known.reduce((a, b) => a + b, 0) / known.length : null;
  };
  return {
    promptTokens: sum((u) => u.promptTokens),
    completionTokens: sum((u) => u.completionTokens),
    ttftMs: first.ttftMs,
    prefillTps: mean((u) => u.prefillTps),
    decodeTps: mean((u) => u.decodeTps),
  };
}
