/**
 * How long a run (or what is left of it) will take, from speeds measured on
 * this machine: never from a constant presented as a measurement.
 *
 * A speed record belongs to one model on one device (WASM, WebGPU, an
 * endpoint) and is built from that model's stored answers there
 * ({@link AnswerSample}). It holds:
 * - the decode rate: over single-turn answers, Σ (answer tokens − 1) ÷
 *   Σ (answer time − time to first token);
 * - per protocol (and per text-only or few-shot: they change the prompt),
 *   the mean time of an item that is not decoding (image preparation,
 *   vision encoder, prefill of every turn: latency − answer tokens ÷ decode rate),
 *   the prompt tokens, and how long the answers were and how many reached
 *   their budget;
 * - the prefill rate over all protocols (prompt tokens ÷ that non-decode
 *   time), used only for a protocol not measured yet;
 * - the runner's time between answers beyond the engine call (storing,
 *   progress), and the cost of a cold start: the time from a run's start to
 *   its first request (model load) plus how much longer than usual its first
 *   answers took (WASM compilation, runtime warm-up), from runs that loaded
 *   the model cold, and the same for runs that found it warm in the page.
 *   Those first answers are left out of the figures above.
 *
 * Per item: seconds = non-decode time + expected answer tokens ÷ decode rate
 * + between-answer time, where the expected answer tokens are the measured
 * lengths bounded by the answer budget (answers that reached an earlier
 * budget count as reaching this one). A protocol without measured answers
 * takes its prompt from the text (characters ÷ 4, plus the image tokens this
 * model's measured prompts show per image) at the measured prefill rate, and
 * answers as long as this model's answers under the protocols it was
 * measured on (bounded by the budget): a model that stops early stops early
 * under a new protocol too, one that fills its budget fills it. Pricing such
 * items at a full answer budget and a generic image size read 11 times the
 * actual duration for the demo-trained model (docs/BENCHMARKS.md, estimates).
 * A run adds each model's cold start once, or the short reload of a model
 * already warm in this page.
 * Multi-turn items are measured whole (their stored usage sums the turns).
 */
import { turnImages, turnText } from '../chat/turn.ts';
import type { BenchCase, Question } from '../bundle/types.ts';
import type { RunPlan, RunProtocol } from './types.ts';

export const CHARS_PER_TOKEN = 4;
/** Image tokens assumed for a protocol not measured yet when no measured prompt shows the model's own (a 24×24 patch grid, common in VLMs). */
export const DEFAULT_IMAGE_TOKENS = 576;

export interface ItemWorkload {
  readonly modelId: string;
  /** The protocol that asks this item, marked for the text-only variant and few-shot exemplars (see {@link protocolKey}). */
  readonly protocolKey: string;
  readonly textChars: number;
  readonly images: number;
  readonly turns: number;
}

/** The key speed records keep item times under: images and few-shot exemplars change the prompt a protocol sends. */
export function protocolKey(protocolId: string, variant: string, fewShot = false): string {
  return `${protocolId}${variant === 'text-only' ? '|text-only' : ''}${fewShot ? '|few-shot' : ''}`;
}

/** One stored answer, as a speed record reads it. */
export interface AnswerSample {
  /** The run it was stored in; a run's samples come in the order they were asked. */
  readonly run: string;
  readonly protocolKey: string;
  readonly promptTokens: number | null;
  /** Tokens generated over all turns of the item. */
  readonly answerTokens: number | null;
  /** Turns the item took (multi-turn protocols); its time to first token is the first turn's. */
  readonly turns: number;
  readonly ttftMs: number | null;
  /** The engine call(s) of the item, ms. */
  readonly latencyMs: number;
  /** The answer reached its budget (`finishReason` `length`). */
  readonly truncated: boolean;
  /** The answer budget of its run. */
  readonly budget: number;
  /** Time between the previous answer of the same run and this request, ms; null for a run's first. */
  readonly gapMs: number | null;
  /** The request's text and images (its workload, as {@link planWorkloads} counts them), where known: they tell the image tokens apart from the text's. */
  readonly request?: { readonly textChars: number; readonly images: number };
}

/** What the answers of one protocol measured. */
export interface ProtocolSpeed {
  readonly answers: number;
  /** Mean seconds of an item not spent decoding. */
  readonly nonDecodeS: number;
  /** Mean prompt tokens per item, when the engine reports them. */
  readonly promptTokens: number | null;
  /** Mean tokens per turn of the answers that stopped on their own; null when every one reached its budget. */
  readonly stoppedTokens: number | null;
  /** Share of the answers that reached their budget. */
  readonly truncatedShare: number;
  /** Of those, the mean share of the budget they used (1 unless a turn stopped before it). */
  readonly truncatedBudgetShare: number;
}

/** A model's speeds on one device, measured on its answers there. */
export interface SpeedRecord {
  readonly answers: number;
  readonly decodeTps: number;
  /** Prompt tokens per second of non-decode time; null when the engine reports no prompt tokens. */
  readonly prefillTps: number | null;
  /** Median seconds between answers beyond the engine call. */
  readonly betweenS: number;
  /** Median seconds a cold start adds (load, then slow first answers); null when no run loaded the model cold. */
  readonly loadS: number | null;
  /** Median seconds a warm start adds (runs that found the model warm in the same page: a reload); null when none did. */
  readonly warmLoadS: number | null;
  readonly protocols: Readonly<Record<string, ProtocolSpeed>>;
  /** The answers of every protocol together: how long this model answers, for a protocol not measured yet. */
  readonly overall: ProtocolSpeed;
  /** Prompt tokens per image the model's measured prompts show beyond their text; null where none tells. */
  readonly imageTokens: number | null;
}

/** Answers after a load whose extra time counts as warm-up. */
export const WARMUP_ANSWERS = 10;
/**
 * A run whose first request waited less than this found its model loaded
 * (a warm run's setup takes well under a second): it says nothing of a cold start.
 */
export const COLD_WAIT_MS = 2000;

/**
 * A speed record from a model's answers on one device; `waitsMs` is, per run
 * that began with this model, the time from its start to its first request.
 * Null without a usable answer.
 */
export function speedRecord(samples: readonly AnswerSample[], waitsMs: Readonly<Record<string, number>> = {}): SpeedRecord | null {
  const usable = samples.filter((s) => s.answerTokens !== null);
  // The first answers after a load run several times slower (WASM compilation, runtime warm-up): they are
  // priced once per load (below), so the steady figures leave them out where other answers remain.
  const warmup = new Set<AnswerSample>();
  for (const run of Object.keys(waitsMs)) for (const s of usable.filter((x) => x.run === run).slice(0, WARMUP_ANSWERS)) warmup.add(s);
  const steadyAll = usable.filter((s) => !warmup.has(s));
  const steady = steadyAll.length ? steadyAll : usable;
  // Only single-turn answers time decoding: a later turn's prefill falls between the first token and the end.
  const timed = steady.filter((s) => s.turns === 1 && s.ttftMs !== null && s.answerTokens! > 1 && s.latencyMs > s.ttftMs);
  const decodeTokens = timed.reduce((n, s) => n + s.answerTokens! - 1, 0);
  const decodeMs = timed.reduce((n, s) => n + s.latencyMs - s.ttftMs!, 0);
  if (!(decodeTokens > 0 && decodeMs > 0)) return null;
  // Sums over answers, not medians: a run's time is a sum, and answer times are skewed.
  const decodeTps = (decodeTokens / decodeMs) * 1000;
  // Each turn's first token is counted in its prefill, as the meter does.
  const nonDecodeS = (s: AnswerSample) => Math.max(0, s.latencyMs / 1000 - Math.max(0, (s.answerTokens ?? 0) - s.turns) / decodeTps);
  const prompted = steady.filter((s) => s.promptTokens !== null && s.promptTokens > 0);
  const prefillS = prompted.reduce((n, s) => n + nonDecodeS(s), 0);
  const byProtocol = new Map<string, AnswerSample[]>();
  for (const s of usable) byProtocol.set(s.protocolKey, [...(byProtocol.get(s.protocolKey) ?? []), s]);
  const protocolSpeed = (all: readonly AnswerSample[]): ProtocolSpeed => {
    const list = all.some((s) => !warmup.has(s)) ? all.filter((s) => !warmup.has(s)) : all;
    const stopped = list.filter((s) => !s.truncated);
    const withPrompt = list.filter((s) => s.promptTokens !== null);
    const truncated = list.filter((s) => s.truncated);
    return {
      answers: list.length,
      nonDecodeS: mean(list.map(nonDecodeS)),
      promptTokens: withPrompt.length ? mean(withPrompt.map((s) => s.promptTokens!)) : null,
      stoppedTokens: stopped.length ? mean(stopped.map((s) => s.answerTokens! / s.turns)) : null,
      truncatedShare: truncated.length / list.length,
      truncatedBudgetShare: truncated.length ? Math.min(1, mean(truncated.map((s) => (s.budget > 0 ? s.answerTokens! / (s.turns * s.budget) : 1)))) : 1,
    };
  };
  const protocols: Record<string, ProtocolSpeed> = {};
  for (const [key, all] of byProtocol) protocols[key] = protocolSpeed(all);
  // What a prompt's images cost in tokens: its tokens beyond its text's, per image.
  const imaged = usable.filter((s) => s.request && s.request.images > 0 && s.promptTokens !== null && s.turns === 1);
  const imageTokens = imaged.length ? mean(imaged.map((s) => Math.max(0, s.promptTokens! - s.request!.textChars / CHARS_PER_TOKEN) / s.request!.images)) : null;
  // The median: a pause or a model switch makes a few gaps very long.
  const gaps = steady.flatMap((s) => (s.gapMs === null ? [] : [Math.max(0, s.gapMs) / 1000]));
  // A start: the wait for the load, then what the first answers took beyond their protocol's usual time.
  const cold: number[] = [];
  const warm: number[] = [];
  for (const [run, waitMs] of Object.entries(waitsMs)) {
    const first = usable.filter((s) => s.run === run).slice(0, WARMUP_ANSWERS);
    const cost = Math.max(0, waitMs) / 1000 + first.reduce((n, s) => n + Math.max(0, nonDecodeS(s) - protocols[s.protocolKey]!.nonDecodeS), 0);
    (waitMs < COLD_WAIT_MS ? warm : cold).push(cost);
  }
  return {
    answers: usable.length,
    decodeTps,
    prefillTps: prefillS > 0 ? prompted.reduce((n, s) => n + s.promptTokens!, 0) / prefillS : null,
    betweenS: gaps.length ? median(gaps) : 0,
    loadS: cold.length ? median(cold) : null,
    warmLoadS: warm.length ? median(warm) : null,
    protocols,
    overall: protocolSpeed(usable),
    imageTokens,
  };
}

/** How one item's seconds were reached. */
export interface ItemSeconds {
  readonly seconds: number;
  /** False when the protocol had no measured answers: prompt from the text, answers as long as under the model's other protocols. */
  readonly measuredProtocol: boolean;
}

/** Seconds for one item at a model's measured speeds; null when the record cannot price it (no prefill rate for an unmeasured protocol). */
export function itemSeconds(record: SpeedRecord, w: Omit<ItemWorkload, 'modelId'>, budget: number, imageTokens = DEFAULT_IMAGE_TOKENS): ItemSeconds | null {
  // Answers that reached an earlier budget would reach this one too (using as much of it); those that stopped are capped by it.
  const answerTokens = (p: ProtocolSpeed) => w.turns * (p.truncatedShare * p.truncatedBudgetShare * budget + (1 - p.truncatedShare) * Math.min(p.stoppedTokens ?? budget, budget));
  const p = record.protocols[w.protocolKey];
  if (p) return { seconds: p.nonDecodeS + answerTokens(p) / record.decodeTps + record.betweenS, measuredProtocol: true };
  if (!record.prefillTps) return null;
  const prompt = Math.ceil(w.textChars / CHARS_PER_TOKEN) + w.images * (record.imageTokens ?? imageTokens);
  return { seconds: prompt / record.prefillTps + answerTokens(record.overall) / record.decodeTps + record.betweenS, measuredProtocol: false };
}

export interface ModelEstimate {
  readonly modelId: string;
  readonly items: number;
  /** Items' seconds plus the model's load; `null` when no speed is measured for this model. */
  readonly seconds: number | null;
  /** Mean seconds per item; `null` as above. */
  readonly perItemS: number | null;
  /** The load counted (0 when not measured or not asked for). */
  readonly loadS: number;
  /** The model is warm in this page (only its reload was counted). */
  readonly warm: boolean;
  /** Answers the record comes from (0 without one). */
  readonly answers: number;
  /** Items whose protocol had no measured answers (priced from the model's answers under its other protocols). */
  readonly unmeasuredItems: number;
}

export interface RunEstimate {
  readonly items: number;
  /** `null` when any model's speed is unknown. */
  readonly seconds: number | null;
  readonly perModel: readonly ModelEstimate[];
}

/**
 * Seconds for a list of item workloads at each model's measured speeds.
 * `withLoad: false` leaves the load out (a live run whose model is loaded).
 */
export function estimateRun(
  workloads: readonly ItemWorkload[],
  options: {
    budget: number;
    records: Readonly<Record<string, SpeedRecord | null | undefined>>;
    imageTokens?: number;
    withLoad?: boolean;
    /**
     * The model resident in this page (the last one a run asked): its runtime
     * is loaded, so a run that starts with it reloads it in about a second.
     * Only the run's first model can find it so: the pool keeps one model at
     * a time, so every later model of a run loads after another one.
     */
    warm?: ReadonlySet<string>;
  },
): RunEstimate {
  const byModel = new Map<string, ItemWorkload[]>();
  for (const w of workloads) byModel.set(w.modelId, [...(byModel.get(w.modelId) ?? []), w]);
  const first = workloads[0]?.modelId;
  const isWarm = (modelId: string) => modelId === first && options.warm?.has(modelId) === true;
  const perModel = [...byModel].map(([modelId, list]): ModelEstimate => {
    const record = options.records[modelId];
    const priced = record ? list.map((w) => itemSeconds(record, w, options.budget, options.imageTokens)) : [];
    if (!record || priced.some((p) => p === null)) return { modelId, items: list.length, seconds: null, perItemS: null, loadS: 0, warm: false, answers: record?.answers ?? 0, unmeasuredItems: list.length };
    const itemsS = priced.reduce((n, p) => n + p!.seconds, 0);
    const loadS = options.withLoad === false ? 0 : isWarm(modelId) ? (record.warmLoadS ?? 0) : (record.loadS ?? record.warmLoadS ?? 0);
    return {
      modelId,
      items: list.length,
      seconds: itemsS + loadS,
      perItemS: list.length ? itemsS / list.length : null,
      loadS,
      warm: isWarm(modelId),
      answers: record.answers,
      unmeasuredItems: priced.filter((p) => !p!.measuredProtocol).length,
    };
  });
  return {
    items: workloads.length,
    seconds: perModel.some((m) => m.seconds === null) ? null : perModel.reduce((n, m) => n + m.seconds!, 0),
    perModel,
  };
}

/**
 * Answers of the live run after which its own rate counts as much as the
 * measured record. The first answers of a run are noisy (warm-up, caches)
 * but the live rate knows what the record cannot: how busy the machine is
 * now. Blending by count (weight n ÷ (n + LIVE_HALF_WEIGHT)) moves smoothly
 * from the record to the live rate instead of jumping on the first answers.
 */
export const LIVE_HALF_WEIGHT = 5;

/** What a live run has shown so far: answers stored since its first answer of this session, and the time they took. */
export interface LiveRate {
  /** Answers after the first one of this session (the first includes the load). */
  readonly answers: number;
  readonly seconds: number;
}

export interface Remaining {
  readonly seconds: number;
  /** Where the figure comes from. */
  readonly basis: 'record' | 'live' | 'blend';
}

/**
 * Seconds left in a live run: the measured per-item time (`priorPerItemS`,
 * null without a record) blended with the live rate, times the items left.
 * Null before either is known (no record and fewer than 2 live answers).
 */
export function remainingSeconds(itemsLeft: number, priorPerItemS: number | null, live: LiveRate | null): Remaining | null {
  if (itemsLeft <= 0) return { seconds: 0, basis: live && live.answers > 0 ? 'live' : 'record' };
  const livePerItem = live && live.answers >= (priorPerItemS === null ? 2 : 1) && live.seconds > 0 ? live.seconds / live.answers : null;
  if (livePerItem === null) return priorPerItemS === null ? null : { seconds: itemsLeft * priorPerItemS, basis: 'record' };
  if (priorPerItemS === null) return { seconds: itemsLeft * livePerItem, basis: 'live' };
  const w = live!.answers / (live!.answers + LIVE_HALF_WEIGHT);
  return { seconds: itemsLeft * (w * livePerItem + (1 - w) * priorPerItemS), basis: 'blend' };
}

/** The work of each item of a plan, skipping `done` item keys (for what is left of a resumed run). */
export function planWorkloads(
  plan: RunPlan,
  options: { protocol?: RunProtocol; done?: ReadonlySet<string>; protocolIdOf?: (kase: BenchCase) => string; fewShot?: boolean } = {},
): ItemWorkload[] {
  const cases = new Map(plan.cases.map((c) => [c.id, c]));
  const out: ItemWorkload[] = [];
  for (const item of plan.items) {
    if (options.done?.has(item.itemKey)) continue;
    const kase = cases.get(item.caseId);
    const question = kase?.questions.find((q) => q.id === item.questionId);
    if (!kase || !question) continue;
    const protocolId = options.protocolIdOf?.(kase) ?? options.protocol?.id ?? '';
    out.push({ modelId: item.modelId, protocolKey: protocolKey(protocolId, item.variant, options.fewShot), ...itemWorkload(kase, question, item, options.protocol) });
  }
  return out;
}

/** The text, images and turns of one item's request: the protocol's where it builds one, else the case's own text. */
export function itemWorkload(kase: BenchCase, question: Question, item: Pick<RunPlan['items'][number], 'modelId' | 'variant' | 'sample'>, protocol?: RunProtocol): Work {
  const w = (protocol && fromProtocol(protocol, kase, question, item)) || fromCase(kase, question);
  return { ...w, images: item.variant === 'text-only' ? 0 : w.images };
}

type Work = Omit<ItemWorkload, 'modelId' | 'protocolKey'>;

function fromProtocol(protocol: RunProtocol, kase: BenchCase, question: Question, item: Pick<RunPlan['items'][number], 'modelId' | 'variant' | 'sample'>): Work | null {
  try {
    const ctx = { modelId: item.modelId, variant: item.variant, sample: item.sample };
    const turns = [...protocol.buildRequest(kase, question, ctx)];
    const followUps = protocol.turns?.(kase, question, ctx) ?? [];
    turns.push(...followUps.map((f) => f.turn));
    return {
      textChars: turns.reduce((n, t) => n + turnText(t).length, 0),
      images: turns.reduce((n, t) => n + turnImages(t).length, 0),
      turns: 1 + followUps.length,
    };
  } catch {
    return null; // fall back to the case text
  }
}

function fromCase(kase: BenchCase, question: Question): Work {
  const parts = [question.text, kase.notes ?? '', ...(question.options ?? []).map((o) => `${o.key}. ${o.text}`)];
  if (kase.ehr) parts.push(JSON.stringify(kase.ehr));
  const followUps = question.followUps ?? [];
  parts.push(...followUps.map((f) => f.text));
  const followUpImages = followUps.reduce((n, f) => n + (f.images?.length ?? 0), 0);
  return {
    textChars: parts.reduce((n, p) => n + p.length, 0),
    images: kase.images.length + followUpImages,
    turns: 1 + followUps.length,
  };
}

function mean(xs: readonly number[]): number {
  return xs.reduce((n, x) => n + x, 0) / xs.length;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
