/**
 * What a worker may ask of the page's model host over a MessagePort: the one
 * place models are resident in a tab (src/lib/engines/model-host.ts serves
 * it; workers/runtime/host-engines.ts turns it back into engines). Declared
 * here, below both, so the worker side needs nothing from the page's code.
 */
import type { CallContext } from '../rpc/protocol.ts';
import type { EngineInfo, GenerateRequest, GenerateResult } from './engine.ts';
import type { EngineSpec } from './spec.ts';

/** The engine a call is for, and the session that holds it. */
export interface HostLoadInput {
  readonly spec: EngineSpec;
  readonly session: string;
}

/** How to read token vectors (see the embedder's `tokenEmbeddings`). */
export interface HostTokenEmbedOptions {
  readonly normalize?: boolean;
  readonly layer?: number;
  readonly specialTokens?: 'drop' | 'keep';
}

/** Token vectors with the layer they come from and what the encoder offers (for bert_score's layer). */
export interface HostTokenEmbeddings {
  tokens: string[];
  vectors: Float32Array[];
  special: boolean[];
  layer: number | null;
  layers: number | null;
  hiddenStates: readonly number[];
  upstream: string | null;
}

// A type, not an interface: the worker contract (`WorkerApi`) is a record of calls, which only a type literal satisfies.
export type HostApi = {
  /** Loads (or finds resident) the engine; what identifies it for provenance, not this load's timings. */
  load(input: HostLoadInput, ctx: CallContext): Promise<EngineInfo>;
  /** One answer; its tokens stream as progress. */
  generate(input: HostLoadInput & { readonly request: GenerateRequest }, ctx: CallContext): Promise<GenerateResult>;
  /** Several answers, each reported as progress when it is ready. */
  generateBatch(input: HostLoadInput & { readonly requests: readonly GenerateRequest[] }, ctx: CallContext): Promise<GenerateResult[]>;
  /** How many requests like this one the engine decodes together. */
  batchLimit(input: HostLoadInput & { readonly request: GenerateRequest }, ctx: CallContext): Promise<number>;
  unload(input: HostLoadInput): Promise<void>;
  embed(input: HostLoadInput & { readonly texts: readonly string[]; readonly pooling: 'mean' | 'cls'; readonly normalize: boolean }, ctx: CallContext): Promise<Float32Array[]>;
  tokenEmbed(input: HostLoadInput & HostTokenEmbedOptions & { readonly text: string }, ctx: CallContext): Promise<HostTokenEmbeddings>;
};
