/**
 * Content hashing off the main thread: model-file integrity checks and
 * benchmark content hashes stream gigabytes through SHA-256.
 */
import { InvalidInputError } from '../src/core/errors.ts';
import { hashBlob } from '../src/core/hash/hash-blob.ts';
import type { CallContext } from '../src/core/rpc/protocol.ts';
import { exposeApi } from './runtime/expose.ts';

const hashApi = {
  /** SHA-256 (hex) of one Blob or File. */
  async sha256(input: { blob: Blob }, ctx: CallContext): Promise<string> {
    if (!(input?.blob instanceof Blob)) throw new InvalidInputError('Expected a file or Blob to hash.', { field: 'blob' });
    return hashBlob(input.blob, { signal: ctx.signal, onProgress: (p) => ctx.progress(p) });
  },

  /** SHA-256 of several files in order; progress counts bytes across all of them. */
  async sha256Many(input: { blobs: readonly Blob[] }, ctx: CallContext): Promise<string[]> {
    const total = input.blobs.reduce((n, b) => n + b.size, 0);
    let before = 0;
    const out: string[] = [];
    for (const blob of input.blobs) {
      out.push(
        await hashBlob(blob, {
          signal: ctx.signal,
          onProgress: (p) => ctx.progress({ phase: 'hash', done: before + p.done, total }),
        }),
      );
      before += blob.size;
    }
    return out;
  },
};

export type HashApi = typeof hashApi;

exposeApi(hashApi);
