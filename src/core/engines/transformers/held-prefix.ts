/**
 * A second decoder session that holds a kept prefix's keys and values in
 * its own memory (decoder-graph.ts, `BakedPrefix`): decode steps on it feed
 * only the positions after the prefix. Made from the decoder file as
 * published (model-file-edits.ts keeps it for loads whose attention was
 * split), with the same onnxruntime as the model's own session, so both run
 * in one WASM instance with the thread count the runtime was given.
 */
import { exposeNewKv, type BakedPrefix } from './decoder-graph.ts';
import type { KvCache } from './kv-cache.ts';

/** What the engine runs of a decoder session (onnxruntime-web's InferenceSession). */
export interface DecoderRun {
  readonly inputNames: readonly string[];
  readonly outputNames?: readonly string[];
  run?(feeds: Record<string, unknown>, fetches: readonly string[]): Promise<Record<string, unknown>>;
  release?(): Promise<void>;
}

/**
 * Largest holding session made, weights and prefix together: onnxruntime-web
 * reads the whole file into its WASM heap (4 GiB at most, shared with the
 * model's own session) before it builds the session, and a heap that runs
 * out aborts every session in it, not only this one.
 */
export const MAX_HOLDING_BYTES = 1024 * 1024 * 1024;

/** Makes a session holding `prefix`, or null where the file cannot hold one (decoder-graph.ts says when) or it would pass {@link MAX_HOLDING_BYTES}. */
export type HoldPrefix = (prefix: BakedPrefix) => Promise<DecoderRun | null>;

/**
 * The maker for a model whose decoder file as published is `original` and
 * whose session is `session`; null without either, or where the session's
 * class has no `create` (it is then not onnxruntime's).
 */
export function prefixHolder(original: Uint8Array | null, session: object | null): HoldPrefix | null {
  if (!original || !session) return null;
  const Session = session.constructor as { create?: (bytes: Uint8Array, options: object) => Promise<DecoderRun> };
  // A plain object's constructor is Object, whose `create` is not a session's.
  if ((Session as unknown) === Object || typeof Session.create !== 'function') return null;
  return async (prefix) => {
    let bytes = original.length;
    for (const t of prefix.tensors.values()) bytes += t.data.byteLength;
    if (bytes > MAX_HOLDING_BYTES) return null;
    const edit = exposeNewKv(original, { prefix });
    if (!edit) return null;
    // The model's own sessions run on WASM here (only WASM loads are edited: model-file-edits.ts).
    return Session.create!(edit.bytes, { executionProviders: ['wasm'] });
  };
}

/** The kept cache of one row as the file would hold it, or null for a cache on the GPU, of several rows, or of other element types. */
export function bakedPrefix(cache: KvCache, length: number): BakedPrefix | null {
  const tensors = new Map<string, { dims: readonly number[]; data: Float32Array | Uint16Array }>();
  for (const [name, t] of Object.entries(cache)) {
    const data = t.location === 'cpu' ? t.data : null;
    if (!(data instanceof Float32Array || (data instanceof Uint16Array && t.type === 'float16')) || t.dims[0] !== 1 || t.dims[2] !== length) return null;
    tensors.set(name, { dims: t.dims, data });
  }
  return tensors.size > 0 ? { length, tensors } : null;
}
