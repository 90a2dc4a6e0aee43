import { createSHA256 } from 'hash-wasm';
import { throwIfAborted } from '../errors.ts';
import type { Progress } from '../model/progress.ts';

/** Bytes read per step; large enough to be fast, small enough to keep memory flat. */
const HASH_CHUNK_BYTES = 4 * 1024 * 1024;

interface HashBlobOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: Progress) => void;
  readonly chunkBytes?: number;
}

/**
 * Streams a Blob (a File from a folder import, a cached model shard) through
 * SHA-256 chunk by chunk, reporting progress and stopping on abort.
 *
 * Large files are hashed by hash-wasm's WebAssembly SHA-256, 2.4 times as fast
 * as the hand-written `Sha256` on model files (docs/decisions/sha256-streaming.md).
 * Its WebAssembly module is inlined in the JavaScript, so it needs no extra
 * file and works offline, in workers and in Node.
 */
export async function hashBlob(blob: Blob, options: HashBlobOptions = {}): Promise<string> {
  const chunk = options.chunkBytes ?? HASH_CHUNK_BYTES;
  const hasher = await createSHA256();
  const total = blob.size;
  options.onProgress?.({ phase: 'hash', done: 0, total });
  for (let offset = 0; offset < total; offset += chunk) {
    throwIfAborted(options.signal);
    const part = new Uint8Array(await blob.slice(offset, Math.min(total, offset + chunk)).arrayBuffer());
    hasher.update(part);
    options.onProgress?.({ phase: 'hash', done: Math.min(total, offset + chunk), total });
  }
  throwIfAborted(options.signal);
  return hasher.digest('hex');
}
