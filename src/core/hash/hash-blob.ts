import { throwIfAborted } from '../errors.ts';
import type { Progress } from '../rpc/protocol.ts';
import { Sha256 } from './sha256.ts';

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
 */
export async function hashBlob(blob: Blob, options: HashBlobOptions = {}): Promise<string> {
  const chunk = options.chunkBytes ?? HASH_CHUNK_BYTES;
  const hasher = new Sha256();
  const total = blob.size;
  options.onProgress?.({ phase: 'hash', done: 0, total });
  for (let offset = 0; offset < total; offset += chunk) {
    throwIfAborted(options.signal);
    const part = new Uint8Array(await blob.slice(offset, Math.min(total, offset + chunk)).arrayBuffer());
    hasher.update(part);
    options.onProgress?.({ phase: 'hash', done: Math.min(total, offset + chunk), total });
  }
  throwIfAborted(options.signal);
  return hasher.digestHex();
}
