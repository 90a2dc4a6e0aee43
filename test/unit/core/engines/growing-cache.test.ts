/**
 * The cache the engine grows in place (kv-cache.ts `GrowingCache`): appends
 * keep the decoder's [rows, heads, positions, dim] layout at every length,
 * growing past its room keeps what it held, a kept prefix is never appended
 * to, and a finished cache's arrays are handed to the next one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@huggingface/transformers';
import { ArrayPool, GrowingCache, cacheLength, type KvCache } from '../../../../src/core/engines/transformers/kv-cache.ts';
import type { TransformersLib } from '../../../../src/core/engines/transformers/runtime.ts';
import { loadNodeTransformers } from '../../../support/transformers-node.ts';

let lib: TransformersLib;
beforeAll(async () => {
  lib = (await loadNodeTransformers()).lib;
});

/** A [rows, heads, n, dim] tensor whose element at (r, h, p, d) is r·1000 + h·100 + (from + p)·10 + d. */
function block(rows: number, heads: number, from: number, n: number, dim: number): Tensor {
  const data = new Float32Array(rows * heads * n * dim);
  let i = 0;
  for (let r = 0; r < rows; r++) for (let h = 0; h < heads; h++) for (let p = 0; p < n; p++) for (let d = 0; d < dim; d++) data[i++] = r * 1000 + h * 100 + (from + p) * 10 + d;
  return new lib.Tensor('float32', data, [rows, heads, n, dim]);
}
const cacheOf = (rows: number, heads: number, from: number, n: number, dim: number): KvCache => ({ 'past_key_values.0.key': block(rows, heads, from, n, dim), 'past_key_values.0.value': block(rows, heads, from, n, dim) });
const values = (c: KvCache) => Array.from(c['past_key_values.0.key']!.data as Float32Array);

describe('a cache grown in place', () => {
  it('appends positions after each (row, head) block, as the whole cache of that length would hold them', () => {
    const g = GrowingCache.copyOf(lib, cacheOf(2, 3, 0, 4, 2), 5);
    g.append(cacheOf(2, 3, 4, 1, 2));
    expect(g.length).toBe(5);
    expect(values(g.view())).toEqual(values(cacheOf(2, 3, 0, 5, 2)));
    // Past its room (5): grown, nothing lost; several positions at once.
    g.append(cacheOf(2, 3, 5, 3, 2));
    expect(cacheLength(g.view())).toBe(8);
    expect(g.view()['past_key_values.0.value']!.dims).toEqual([2, 3, 8, 2]);
    expect(values(g.view())).toEqual(values(cacheOf(2, 3, 0, 8, 2)));
  });

  it("copies each row's positions after a held prefix, and grows them in place", () => {
    const g = GrowingCache.after(lib, cacheOf(2, 3, 0, 6, 2), 4, 3);
    expect(g.length).toBe(2);
    expect(values(g.view())).toEqual(values(cacheOf(2, 3, 4, 2, 2)));
    g.append(cacheOf(2, 3, 6, 1, 2));
    expect(values(g.view())).toEqual(values(cacheOf(2, 3, 4, 3, 2)));
    // From the cache's end: no positions yet, and positions past its end are refused.
    expect(GrowingCache.after(lib, cacheOf(1, 3, 0, 6, 2), 6, 1).length).toBe(0);
    expect(() => GrowingCache.after(lib, cacheOf(1, 3, 0, 6, 2), 7, 1)).toThrow(/positions from 7 of a cache of 6/);
  });

  it('refuses new positions of another shape, and never appends to a kept prefix', () => {
    const g = GrowingCache.copyOf(lib, cacheOf(1, 3, 0, 4, 2), 8);
    expect(() => g.append(cacheOf(1, 2, 4, 1, 2))).toThrow(/not \[1, 3, T, 2\]/);
    g.frozen = true;
    expect(() => g.append(cacheOf(1, 3, 4, 1, 2))).toThrow(/kept prefix/);
  });

  it('hands a finished cache its arrays to the next one, which holds only its own values', () => {
    const pool = new ArrayPool();
    const first = GrowingCache.copyOf(lib, cacheOf(1, 3, 0, 6, 2), 10, pool);
    const arrays = new Set(Object.values(first.view()).map((t) => (t.data as Float32Array).buffer));
    first.release();
    expect(pool.size).toBe(2);
    const next = GrowingCache.copyOf(lib, cacheOf(1, 3, 0, 2, 2), 4, pool);
    expect(Object.values(next.view()).every((t) => arrays.has((t.data as Float32Array).buffer))).toBe(true);
    next.append(cacheOf(1, 3, 2, 1, 2));
    expect(values(next.view())).toEqual(values(cacheOf(1, 3, 0, 3, 2)));
    // A kept prefix keeps its arrays.
    next.frozen = true;
    next.release();
    expect(pool.size).toBe(0);
  });
});
