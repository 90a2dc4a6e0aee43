/**
 * Decode speed, the one tokens-per-second figure NeuroEval shows (the run
 * page while a run goes, the results page and report after it, the CLI's
 * progress): tokens generated after each turn's first token, divided by the
 * time the engine spent generating them (from the first token to the last),
 * summed over every answer before dividing. So it is the rate at which the
 * model writes, without image preparation, the vision encoder or prefill
 * (those are "time to first token"), and long answers weigh by their
 * tokens: a mean of per-answer rates would let a two-token answer count as
 * much as a two-hundred-token one.
 */
import type { ResponseUsage } from '../model/answer.ts';

/** Tokens after the first of each turn, and the seconds they took, summed. */
export interface DecodeTally {
  readonly tokens: number;
  readonly seconds: number;
}

export const NO_DECODE: DecodeTally = { tokens: 0, seconds: 0 };

type TurnUsage = Pick<ResponseUsage, 'completionTokens' | 'decodeTps'>;

/**
 * What one answer adds: each turn's tokens after its first, at the decode
 * rate the engine measured for that turn. A turn without a measured rate
 * (one token, or an engine that does not report it) adds nothing.
 */
export function decodeTally(turns: readonly TurnUsage[]): DecodeTally {
  let tokens = 0;
  let seconds = 0;
  for (const u of turns) {
    const n = (u.completionTokens ?? 0) - 1;
    if (n <= 0 || !u.decodeTps || !Number.isFinite(u.decodeTps) || u.decodeTps <= 0) continue;
    tokens += n;
    seconds += n / u.decodeTps;
  }
  return { tokens, seconds };
}

export function addTally(a: DecodeTally, b: DecodeTally): DecodeTally {
  return { tokens: a.tokens + b.tokens, seconds: a.seconds + b.seconds };
}

/** Tokens per second, or null before any turn had a measured rate. */
export function decodeSpeed(t: DecodeTally): number | null {
  return t.tokens > 0 && t.seconds > 0 ? t.tokens / t.seconds : null;
}

/** A stored answer's turns as the tally reads them: every turn's own usage where the row keeps its turns, else the row's. */
export function answerTally(r: { readonly usage?: ResponseUsage | null; readonly turns?: readonly { readonly usage: ResponseUsage }[] }): DecodeTally {
  if (r.turns?.length) return decodeTally(r.turns.map((t) => t.usage));
  return r.usage ? decodeTally([r.usage]) : NO_DECODE;
}

/** The figure as people read it, the same everywhere: "decode speed 41.2 tokens/s". */
export function decodeSpeedText(tokensPerS: number): string {
  return `decode speed ${tokensPerS.toFixed(1)} tokens/s`;
}

/** Decode speed per model and variant (the results page's arms) over answers that did not fail, in first-seen order. */
export function decodeSpeedByArm(
  answers: readonly { readonly modelId: string; readonly variant: string; readonly error?: string | null; readonly usage?: ResponseUsage | null; readonly turns?: readonly { readonly usage: ResponseUsage }[] }[],
): { readonly modelId: string; readonly variant: string; readonly tokensPerS: number | null }[] {
  const arms = new Map<string, { modelId: string; variant: string; tally: DecodeTally }>();
  for (const a of answers) {
    if (a.error) continue;
    const key = `${a.modelId}\u0000${a.variant}`;
    const arm = arms.get(key) ?? { modelId: a.modelId, variant: a.variant, tally: NO_DECODE };
    arms.set(key, { ...arm, tally: addTally(arm.tally, answerTally(a)) });
  }
  return [...arms.values()].map((a) => ({ modelId: a.modelId, variant: a.variant, tokensPerS: decodeSpeed(a.tally) }));
}
