/**
 * The one interface every inference engine implements: transformers.js and
 * WebLLM in workers, and an on-prem OpenAI-compatible server. The runner,
 * the judge and the UI only ever see this, never which engine runs.
 */
import type { PromptPrefix } from '../chat/prefix.ts';
import type { Turn } from '../chat/turn.ts';
import type { FinishReason, ResponseUsage } from '../model/answer.ts';
import type { Progress } from '../model/progress.ts';

/** An image given to the model, in the order of the request. */
export interface EngineImage {
  /** Encoded image bytes (PNG/JPEG/WebP). */
  readonly bytes: Uint8Array;
  readonly mime: string;
}

/**
 * A chat turn as an engine receives it: text and image parts in the order the
 * protocol wrote them (src/core/chat/turn.ts). Each engine maps the parts onto
 * its runtime's message format without reordering them.
 */
export type ChatTurn = Turn<EngineImage>;

/** Sampling parameters, always set explicitly so runs are reproducible. */
export interface SamplingParams {
  readonly temperature: number;
  readonly topP: number;
  readonly seed: number;
  readonly maxTokens: number;
}

export interface GenerateRequest {
  readonly messages: readonly ChatTurn[];
  readonly sampling: SamplingParams;
  /** A JSON Schema the answer must follow, where the engine can enforce one. */
  readonly jsonSchema?: Readonly<Record<string, unknown>>;
  /**
   * The leading parts this request shares with others of its run (system
   * prompt, few-shot exemplars): an engine that can keeps their computed
   * state and starts later requests from it. Answers are the same with or
   * without it.
   */
  readonly prefix?: PromptPrefix;
}

/** An answer's usage as the engine measured it: the stored usage's figures, and the call's total time. */
export interface EngineUsage extends Readonly<ResponseUsage> {
  readonly totalMs: number;
}

export interface GenerateResult {
  readonly text: string;
  readonly finishReason: FinishReason;
  readonly usage: EngineUsage;
  /**
   * The answer ran past the bytes its token budget allows and was cut there
   * ({@link capAnswer}); `finishReason` is then `length`.
   */
  readonly truncated?: boolean;
}

/**
 * UTF-8 bytes an answer may take per token of its budget. Tokens of every
 * vocabulary in use average 3–5 bytes and the longest (runs of spaces or
 * dashes) stay far below this; a server that sends more than the budget can
 * hold is broken or hostile, and its answer would otherwise grow without
 * limit (one sent 52 MB for a 480-token budget).
 */
const ANSWER_BYTES_PER_TOKEN = 32;
/** Slack on top, so a tiny budget still holds a short answer whole. */
const ANSWER_BYTES_SLACK = 1024;

/** Most UTF-8 bytes an answer with this token budget may hold. */
export function answerByteCap(maxTokens: number): number {
  return Math.max(1, Math.floor(maxTokens)) * ANSWER_BYTES_PER_TOKEN + ANSWER_BYTES_SLACK;
}

const utf8 = new TextEncoder();

/** The answer cut at its byte cap (at a character boundary), and whether it had to be. */
export function capAnswer(text: string, maxTokens: number): { text: string; truncated: boolean } {
  const cap = answerByteCap(maxTokens);
  // A UTF-16 unit is at most 3 UTF-8 bytes: shorter text cannot be over the cap.
  if (text.length * 3 <= cap) return { text, truncated: false };
  const bytes = utf8.encode(text);
  if (bytes.length <= cap) return { text, truncated: false };
  let end = cap;
  // Back off continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: new TextDecoder().decode(bytes.subarray(0, end)), truncated: true };
}

export interface LoadOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: Progress) => void;
}

export interface GenerateOptions {
  readonly signal?: AbortSignal;
  /** Called with each new piece of text as it is produced. */
  readonly onToken?: (text: string) => void;
}

/** What a loaded engine says about itself, for provenance. */
export interface EngineInfo {
  readonly runtime: 'transformers' | 'webllm' | 'openai-compatible';
  readonly runtimeVersion: string;
  readonly modelId: string;
  /** `webgpu`, `wasm`, or the endpoint's host. */
  readonly device: string;
}

export interface BatchOptions {
  readonly signal?: AbortSignal;
  /** Called with each request's result as soon as it is ready (in any order). */
  readonly onResult?: (index: number, result: GenerateResult) => void;
}

export interface Engine {
  load(options?: LoadOptions): Promise<EngineInfo>;
  generate(request: GenerateRequest, options?: GenerateOptions): Promise<GenerateResult>;
  unload(): Promise<void>;
  /**
   * How many requests like this one the engine would decode together (1: it
   * does not batch them). Absent: the engine never batches.
   */
  batchLimit?(request: GenerateRequest): Promise<number>;
  /**
   * Answers several requests, decoding together those it can (padded
   * batches), with the same greedy answers as one by one. Results come back
   * in request order; each is also passed to `onResult` as soon as it is
   * ready. An abort returns what each request had so far with
   * `finishReason: 'abort'`.
   */
  generateBatch?(requests: readonly GenerateRequest[], options?: BatchOptions): Promise<GenerateResult[]>;
}

/** A batched generation's finished answers in a progress report (`detail.kind === 'results'`), as the engine workers send them. */
export function batchResultsOf(p: Progress): readonly { readonly index: number; readonly result: GenerateResult }[] {
  return p.detail?.kind === 'results' ? (p.detail.results as readonly { index: number; result: GenerateResult }[]) : [];
}
