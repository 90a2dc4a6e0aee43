/**
 * An answer and the words every layer uses about it: which planned item it
 * is, why generation stopped, what the prompt and the decoding cost. The
 * engines produce these, the runner stores them, scoring and results read
 * them; this file imports nothing, so any of them can.
 *
 * Timestamps are milliseconds since the Unix epoch (`Date.now()`), which
 * index and sort cheaply and survive structured cloning unchanged.
 */

/** Milliseconds since the Unix epoch. */
export type Timestamp = number;

/** Which planned item an answer (or its scores, or a progress report) is about: the typed fields, never parsed from the key. */
export interface ItemIdentity {
  readonly itemKey: string;
  readonly caseId: string;
  readonly questionId: string;
  readonly modelId: string;
  readonly variant: string;
  readonly sample: number;
}

/** What a prompt was made of, where the engine can tell. */
export interface PromptSize {
  /** Tokens of text (the chat template's markup and special tokens included). */
  readonly textTokens: number;
  /** Tokens standing for images, all images together. */
  readonly imageTokens: number;
  /** Per image, in order: the tiles the processor cut it into (null where it does not say) and its tokens. */
  readonly images: readonly { readonly tiles: number | null; readonly tokens: number }[];
  /** Leading tokens taken from a kept shared prefix instead of computed for this request. */
  readonly reusedTokens: number;
}

/**
 * Why generation stopped: the values the engines report. A stored answer may
 * hold another runtime's word (an imported run), hence {@link StoredFinishReason}.
 */
export type FinishReason = 'stop' | 'length' | 'abort' | 'error';

/** A finish reason as stored: the engines' own, or whatever an imported answer said. */
export type StoredFinishReason = FinishReason | (string & {});

/** Token and speed figures a runtime reports; `null` when it does not report one. */
export interface ResponseUsage {
  promptTokens: number | null;
  completionTokens: number | null;
  /** Time to first token, ms. */
  ttftMs: number | null;
  /** Prompt tokens per second (prefill). */
  prefillTps: number | null;
  /** Answer tokens per second after the first (decode). */
  decodeTps: number | null;
  /** What the prompt was made of (text and image tokens, tiles per image, tokens reused from a shared prefix), where the engine said. */
  prompt?: PromptSize;
  /** Answers decoded together with this one, when more than one. */
  batch?: number;
}

/** The usage of an answer no runtime measured (a reader's answer, a failed call): every figure unknown. A fresh object each time, as stored records are written. */
export function noUsage(): ResponseUsage {
  return { promptTokens: null, completionTokens: null, ttftMs: null, prefillTps: null, decodeTps: null };
}

/**
 * An answer as a run stores it (the responses table, run exports): one item
 * of the plan answered by one model, with its usage, and for a multi-turn
 * item each turn's answer. Scoring, results and the reader study read this
 * same shape (scoring takes the fields it needs: `ScorableResponse`).
 */
export interface ResponseRecord {
  /** Deterministic key derived from the run and the item, so a resumed run overwrites rather than duplicates. */
  id: string;
  runId: string;
  /**
   * Identifies the planned item (case × question × model × variant × sample)
   * within the run; built by `itemKeyOf` (runner/plan.ts) and only ever
   * compared whole, never read apart: use `caseId` and `questionId`.
   */
  itemKey: string;
  /** The case answered (schema v3). */
  caseId: string;
  /** The question of that case answered (schema v3). */
  questionId: string;
  /** Hash over model + prompt + sampling settings, for reusing answers across runs. */
  cacheKey: string;
  modelId: string;
  variant: string;
  sample: number;
  rawText: string;
  parsed: unknown;
  parseError: string | null;
  usage: ResponseUsage;
  latencyMs: number;
  finishReason: StoredFinishReason;
  createdAt: Timestamp;
  /** The answer of each turn of a multi-turn item, in order (absent for a single turn). */
  turns?: readonly TurnRecord[];
  /** Why the item failed, for a failed item. */
  error?: string | null;
  /** The stored answer this one was copied from (an identical request in an earlier run). */
  reusedFrom?: string | null;
  /** A turn's answer ran past the bytes its token budget allows and was cut there (finishReason `length`). */
  truncated?: true;
}

/** One generated turn of a multi-turn item. */
export interface TurnRecord {
  /** `'initial'` for the first answer, then the follow-up ids. */
  readonly id: string;
  readonly rawText: string;
  readonly parsed: unknown;
  readonly parseError: string | null;
  readonly finishReason: StoredFinishReason;
  readonly usage: ResponseUsage;
  readonly latencyMs: number;
  /** The answer ran past the bytes its token budget allows and was cut there (finishReason `length`). */
  readonly truncated?: true;
}

export type RunStatus = 'planned' | 'running' | 'paused' | 'done' | 'failed' | 'cancelled';
