/**
 * Counts the bytes that bulk writes put into the database and tells the app,
 * once, when the amount becomes large. The app answers by asking the browser
 * for persistent storage (the Storage API's `persist()`), so imported
 * benchmarks and run results are not evicted under storage pressure. That call
 * lives in browser code; this module stays pure so it also runs in Node.
 */

/** Bytes written through one repository set after which {@link StorageHooks.onLargeWrite} fires: 1 MiB. */
export const LARGE_WRITE_BYTES = 1024 * 1024;

export interface StorageHooks {
  /**
   * Called once per repository set, after the write that brings the bytes
   * written by bulk operations to at least {@link LARGE_WRITE_BYTES}.
   * `approxBytes` is the running total. Errors thrown here are ignored: a
   * failed persistence request must never fail the write that triggered it.
   */
  onLargeWrite?(approxBytes: number): void;
}

/**
 * Running byte total for one repository set. Cumulative rather than per call,
 * because runs store many small response batches that add up to a lot.
 */
export class WriteMeter {
  private total = 0;
  private fired = false;
  private readonly hooks: StorageHooks;

  constructor(hooks: StorageHooks = {}) {
    this.hooks = hooks;
  }

  /** Bytes counted so far (counting stops once the hook has fired: nothing needs the total after that). */
  get bytesWritten(): number {
    return this.total;
  }

  /**
   * Adds the size of what a committed write stored. Sizing walks every
   * field of every row, a cost on each answer batch a run writes, so once
   * the hook has fired nothing is sized any more.
   */
  recordWrite(...values: unknown[]): void {
    if (this.fired) return;
    this.record(values.reduce<number>((n, v) => n + approxBytes(v), 0));
  }

  /** Adds the size of a committed write and fires the hook the first time the total crosses the threshold. */
  record(bytes: number): void {
    this.total += Math.max(0, bytes);
    if (this.fired || this.total < LARGE_WRITE_BYTES) return;
    this.fired = true;
    try {
      this.hooks.onLargeWrite?.(this.total);
    } catch {
      // Deliberately ignored; see StorageHooks.onLargeWrite.
    }
  }
}

/**
 * Rough size of a value as stored: blobs and buffers by their byte length,
 * strings by character count, other values by a small constant. Cheaper and
 * more honest about binary data than `JSON.stringify(value).length`, which
 * counts a Blob as `{}`.
 */
export function approxBytes(value: unknown): number {
  return sizeOf(value, new WeakSet<object>(), 0);
}

function sizeOf(value: unknown, seen: WeakSet<object>, depth: number): number {
  switch (typeof value) {
    case 'string':
      return value.length;
    case 'number':
    case 'bigint':
      return 8;
    case 'boolean':
      return 4;
    case 'object':
      break;
    default:
      return 0;
  }
  if (value === null) return 4;
  if (typeof Blob !== 'undefined' && value instanceof Blob) return value.size;
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  // Cycles cannot be stored anyway (structured clone keeps them, but we only need an estimate).
  if (seen.has(value) || depth > 64) return 0;
  seen.add(value);
  if (value instanceof Date) return 8;
  if (Array.isArray(value)) return value.reduce<number>((n, v) => n + sizeOf(v, seen, depth + 1), 0);
  if (value instanceof Map) {
    let n = 0;
    for (const [k, v] of value) n += sizeOf(k, seen, depth + 1) + sizeOf(v, seen, depth + 1);
    return n;
  }
  let n = 0;
  for (const [k, v] of Object.entries(value)) n += k.length + sizeOf(v, seen, depth + 1);
  return n;
}
