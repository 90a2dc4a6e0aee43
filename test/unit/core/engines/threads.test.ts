import { describe, expect, it } from 'vitest';
import { MAX_WASM_THREADS, wasmThreadsFor } from '../../../../src/core/engines/transformers/threads.ts';

describe('WASM threads from the machine', () => {
  it('uses every core up to four, all but one above, at most sixteen; one without cross-origin isolation', () => {
    expect([1, 2, 3, 4].map((c) => wasmThreadsFor(c, true))).toEqual([1, 2, 3, 4]);
    expect([5, 8, 12, 17, 64].map((c) => wasmThreadsFor(c, true))).toEqual([4, 7, 11, 16, MAX_WASM_THREADS]);
    expect(wasmThreadsFor(8, false)).toBe(1);
    expect(wasmThreadsFor(undefined, true)).toBe(1);
    expect(wasmThreadsFor(0, true)).toBe(1);
  });
});
