/** What a transformers.js generation is asked for and reports per token, shared by the VLM, the text model and their decode loops. */

/** `cpu`: onnxruntime-node's CPU provider, only with the native Node backend (runtime.ts `nativeNode`, the CLI). */
export type VlmDevice = 'wasm' | 'webgpu' | 'cpu';

/** Sampling settings of one generation. */
export interface VlmSampling {
  /** Upper bound on generated tokens (≥ 1). */
  readonly maxTokens: number;
  /** 0 = greedy (the seed is then irrelevant). */
  readonly temperature: number;
  /** Nucleus sampling mass in (0, 1]; 1 = off. Only used when temperature > 0. */
  readonly topP: number;
  /** Seeds transformers.js' sampler (a per-realm global). */
  readonly seed: number;
  readonly signal?: AbortSignal;
}

/** One generated token, as the decode loop reports it. */
export interface TokenEvent {
  /** 0 for the first generated token. */
  readonly index: number;
  readonly tokenId: number;
  /**
   * Text this token completed: the decoded output grew by exactly this much.
   * Often '' (special tokens, half of a multi-byte character). The pieces add
   * up to the final text, except possibly an incomplete last character.
   */
  readonly text: string;
  /** ms since generate was called. */
  readonly elapsedMs: number;
}
