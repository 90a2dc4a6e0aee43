/**
 * How long a run (or what is left of it) will take, from measured speeds.
 *
 * Heuristics, per item:
 * - prompt tokens ≈ ceil(characters of text / 4) + `imageTokens` per image
 *   (an image costs a fixed token budget in most VLMs; default 576, a 24×24
 *   patch grid). The text is the protocol's request when a protocol is given,
 *   else the case's question, options, notes and EHR.
 * - decode tokens ≈ maxTokens / 2 per turn: answers rarely use the whole budget.
 * - seconds = prompt tokens / prefill speed + decode tokens / decode speed.
 *   When only the decode speed is known, prefill is taken as
 *   PREFILL_SPEEDUP × decode (prompts are processed in parallel).
 * Re-reading earlier turns in multi-turn items and model load time are not counted.
 */
import { turnImages, turnText } from '../chat/turn.ts';
import type { BenchCase, Question } from '../bundle/types.ts';
import type { RunPlan, RunProtocol } from './types.ts';

export const CHARS_PER_TOKEN = 4;
export const DEFAULT_IMAGE_TOKENS = 576;
export const PREFILL_SPEEDUP = 8;

export interface ItemWorkload {
  readonly modelId: string;
  readonly textChars: number;
  readonly images: number;
  readonly turns: number;
}

export interface MeasuredSpeed {
  readonly decodeTokensPerS: number;
  readonly prefillTokensPerS?: number | null;
}

export interface ModelEstimate {
  readonly modelId: string;
  readonly items: number;
  readonly promptTokens: number;
  readonly decodeTokens: number;
  /** `null` when no speed is known for this model. */
  readonly seconds: number | null;
}

export interface RunEstimate {
  readonly items: number;
  readonly promptTokens: number;
  readonly decodeTokens: number;
  /** `null` when any model's speed is unknown. */
  readonly seconds: number | null;
  readonly perModel: readonly ModelEstimate[];
}

/** The work of each item of a plan, skipping `done` item keys (for what is left of a resumed run). */
export function planWorkloads(plan: RunPlan, options: { protocol?: RunProtocol; done?: ReadonlySet<string> } = {}): ItemWorkload[] {
  const cases = new Map(plan.cases.map((c) => [c.id, c]));
  const out: ItemWorkload[] = [];
  for (const item of plan.items) {
    if (options.done?.has(item.itemKey)) continue;
    const kase = cases.get(item.caseId);
    const question = kase?.questions.find((q) => q.id === item.questionId);
    if (!kase || !question) continue;
    const w = (options.protocol && fromProtocol(options.protocol, kase, question, item)) || fromCase(kase, question);
    out.push({ modelId: item.modelId, ...w, images: item.variant === 'text-only' ? 0 : w.images });
  }
  return out;
}

/** Tokens and seconds for a list of item workloads. */
export function estimateRun(
  workloads: readonly ItemWorkload[],
  options: { maxTokens: number; speeds: Readonly<Record<string, MeasuredSpeed | undefined>>; imageTokens?: number },
): RunEstimate {
  const imageTokens = options.imageTokens ?? DEFAULT_IMAGE_TOKENS;
  const byModel = new Map<string, { items: number; promptTokens: number; decodeTokens: number }>();
  for (const w of workloads) {
    const m = byModel.get(w.modelId) ?? { items: 0, promptTokens: 0, decodeTokens: 0 };
    m.items++;
    m.promptTokens += Math.ceil(w.textChars / CHARS_PER_TOKEN) + w.images * imageTokens;
    m.decodeTokens += w.turns * (options.maxTokens / 2);
    byModel.set(w.modelId, m);
  }
  const perModel: ModelEstimate[] = [...byModel].map(([modelId, m]) => ({
    modelId,
    ...m,
    seconds: secondsFor(m.promptTokens, m.decodeTokens, options.speeds[modelId]),
  }));
  const sum = (pick: (m: ModelEstimate) => number) => perModel.reduce((n, m) => n + pick(m), 0);
  return {
    items: workloads.length,
    promptTokens: sum((m) => m.promptTokens),
    decodeTokens: sum((m) => m.decodeTokens),
    seconds: perModel.some((m) => m.seconds === null) ? null : sum((m) => m.seconds ?? 0),
    perModel,
  };
}

/** Seconds for a token count at a measured speed; `null` without a usable speed. */
export function secondsFor(promptTokens: number, decodeTokens: number, speed: MeasuredSpeed | undefined): number | null {
  if (!speed || !(speed.decodeTokensPerS > 0)) return null;
  const prefill = speed.prefillTokensPerS && speed.prefillTokensPerS > 0 ? speed.prefillTokensPerS : speed.decodeTokensPerS * PREFILL_SPEEDUP;
  return promptTokens / prefill + decodeTokens / speed.decodeTokensPerS;
}

type Work = Omit<ItemWorkload, 'modelId'>;

function fromProtocol(protocol: RunProtocol, kase: BenchCase, question: Question, item: RunPlan['items'][number]): Work | null {
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
