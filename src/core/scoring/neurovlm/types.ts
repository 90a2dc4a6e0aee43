/**
 * The scorer's input: one answer of one model to one image, whichever way it
 * was produced (a local run, or a NeuroVLM-Bench harness JSONL read by
 * `scoring/io/neurovlm-jsonl.ts`).
 */
import type { NeuroVlmScoredField } from './normalise.ts';

/** What a call produced. */
export type NeuroVlmAnswerOutcome =
  /** The answer parsed; `value` should be an object (anything else is not valid JSON output). */
  | { readonly kind: 'parsed'; readonly value: unknown }
  /** The model answered but no JSON object could be parsed: scored as an abstention on every field. */
  | { readonly kind: 'parse-error'; readonly error: string }
  /** The call itself failed (engine error, timeout): left out of every metric but counted. */
  | { readonly kind: 'call-error'; readonly error: string };

interface NeuroVlmItemUsage {
  readonly promptTokens: number | null;
  readonly completionTokens: number | null;
}

export interface NeuroVlmItem {
  /** Identifies the answer in reports: an item key, an experiment id, a line. */
  readonly id: string;
  /** The model that answered; reports are per model (and variant). */
  readonly modelId: string;
  /** Image presentation variant of a local run (`none`, `degrade:…`); absent for harness files. */
  readonly variant?: string;
  /** Ground truth per field as written in the benchmark; `null` or absent = not scorable. */
  readonly gold: Readonly<Partial<Record<NeuroVlmScoredField, string | null>>>;
  readonly answer: NeuroVlmAnswerOutcome;
  /** Wall time of the call; `null` when unknown. */
  readonly latencyMs: number | null;
  readonly usage: NeuroVlmItemUsage;
}
