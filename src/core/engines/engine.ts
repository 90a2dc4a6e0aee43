/**
 * The one interface every inference engine implements: transformers.js and
 * WebLLM in workers, and an on-prem OpenAI-compatible server. The runner,
 * the judge and the UI only ever see this, never which engine runs.
 */
import type { Turn } from '../chat/turn.ts';
import type { Progress } from '../rpc/protocol.ts';

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
}

export type FinishReason = 'stop' | 'length' | 'abort' | 'error';

export interface EngineUsage {
  readonly promptTokens: number | null;
  readonly completionTokens: number | null;
  /** Time to first token, ms. */
  readonly ttftMs: number | null;
  readonly prefillTokensPerS: number | null;
  readonly decodeTokensPerS: number | null;
  readonly totalMs: number;
}

export interface GenerateResult {
  readonly text: string;
  readonly finishReason: FinishReason;
  readonly usage: EngineUsage;
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

export interface Engine {
  load(options?: LoadOptions): Promise<EngineInfo>;
  generate(request: GenerateRequest, options?: GenerateOptions): Promise<GenerateResult>;
  unload(): Promise<void>;
}
