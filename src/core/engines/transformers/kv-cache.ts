/**
 * Key/value caches of a decoder as the engine holds them between forward
 * passes: one tensor per `past_key_values.<layer>.<key|value>` input, each
 * [batch, kv heads, positions, head dim], on the CPU (WASM) or in GPU buffers
 * (WebGPU, where transformers.js asks onnxruntime to keep `present.*` outputs
 * on the GPU).
 *
 * transformers.js' own `DynamicCache.update` disposes a GPU tensor when it
 * is replaced, and `generate` keeps nothing between calls; a prefix shared by
 * many requests must outlive every one of them. So the engine keeps its
 * caches here, as plain records, disposes what it replaces itself, and never
 * disposes a tensor it was told to keep ({@link disposeCache}'s `keep`).
 */
import type { Tensor } from '@huggingface/transformers';
import type { TransformersLib } from './runtime.ts';

/** Cache tensors by the decoder's input name (`past_key_values.3.value`). */
export type KvCache = Readonly<Record<string, Tensor>>;

const PAST = 'past_key_values.';

/** The cache a forward pass returned: its `present.*` outputs under the input names of the next pass. */
export function cacheFromOutputs(outputs: Readonly<Record<string, Tensor>>): KvCache {
  const cache: Record<string, Tensor> = {};
  for (const [name, tensor] of Object.entries(outputs)) {
    if (name.startsWith('present.')) cache[PAST + name.slice('present.'.length)] = tensor;
  }
  return cache;
}

/** Positions the cache holds (its third dimension); 0 for an empty record. */
export function cacheLength(cache: KvCache): number {
  for (const [name, t] of Object.entries(cache)) if (name.startsWith(PAST)) return t.dims[2] ?? 0;
  return 0;
}

/** Frees the GPU buffers of `cache` except those in `keep` (CPU tensors are left to the garbage collector). */
export function disposeCache(cache: KvCache | null, keep: ReadonlySet<Tensor> = new Set()): void {
  if (!cache) return;
  for (const t of Object.values(cache)) if (t.location === 'gpu-buffer' && !keep.has(t)) t.dispose();
}

/** Whether the architecture keeps anything besides attention keys and values between steps (Mamba, LFM2, …): such caches are not handled here. */
export function plainKvNames(names: readonly string[]): boolean {
  const past = names.filter((n) => n.startsWith('past_'));
  return past.length > 0 && past.every((n) => /^past_key_values\.\d+\.(key|value)$/.test(n));
}

type Typed = Float32Array | Uint16Array | Int32Array | BigInt64Array | Uint8Array | Int8Array;

/** The tensor's elements on the CPU (downloaded when it lives on the GPU). */
async function cpuData(t: Tensor): Promise<Typed> {
  if (t.location === 'gpu-buffer') return (await (t.ort_tensor as unknown as { getData(): Promise<Typed> }).getData()) as Typed;
  return t.data as Typed;
}

/**
 * One cache of `rows.length` rows from single-row caches of different
 * lengths: row r holds its own positions first and zeros up to the longest
 * (the caller masks those slots out with `attention_mask`). Every new step
 * then appends a slot after the longest row, which each row sees after its
 * own positions; its position id comes from its own mask (transformers.js
 * numbers positions by the cumulative mask), so a row decodes as it would
 * alone. The result lives on the CPU; onnxruntime uploads it where the
 * session runs.
 */
export async function stackRows(lib: TransformersLib, rows: readonly KvCache[]): Promise<KvCache> {
  const first = rows[0];
  if (!first) throw new RangeError('stackRows needs at least one row');
  const longest = Math.max(...rows.map(cacheLength));
  const out: Record<string, Tensor> = {};
  for (const name of Object.keys(first)) {
    const [, heads, , dim] = first[name]!.dims as [number, number, number, number];
    const sample = await cpuData(first[name]!);
    const Ctor = sample.constructor as new (n: number) => Typed;
    const data = new Ctor(rows.length * heads * longest * dim);
    for (let r = 0; r < rows.length; r++) {
      const t = rows[r]![name]!;
      const len = t.dims[2]!;
      const src = await cpuData(t);
      for (let h = 0; h < heads; h++) {
        const from = h * len * dim;
        const to = ((r * heads + h) * longest) * dim;
        (data as Float32Array).set((src as Float32Array).subarray(from, from + len * dim), to);
      }
    }
    out[name] = new lib.Tensor(first[name]!.type, data as never, [rows.length, heads, longest, dim]);
  }
  return out;
}

/** The cache restricted to some rows of its batch, in the given order (on the CPU). */
export async function selectRows(lib: TransformersLib, cache: KvCache, keep: readonly number[]): Promise<KvCache> {
  const out: Record<string, Tensor> = {};
  for (const [name, t] of Object.entries(cache)) {
    const [, heads, len, dim] = t.dims as [number, number, number, number];
    const src = await cpuData(t);
    const Ctor = src.constructor as new (n: number) => Typed;
    const row = heads * len * dim;
    const data = new Ctor(keep.length * row);
    keep.forEach((r, i) => (data as Float32Array).set((src as Float32Array).subarray(r * row, (r + 1) * row), i * row));
    out[name] = new lib.Tensor(t.type, data as never, [keep.length, heads, len, dim]);
  }
  return out;
}

/**
 * A cache in arrays of the engine's own that grow in place: each forward
 * pass appends its new positions (the decoder's `neuroeval.new.*` outputs,
 * decoder-graph.ts says why), instead of the runtime returning the whole
 * cache in fresh memory every step. Its {@link view} is what the next pass
 * reads; a view is valid until the next {@link append}.
 *
 * Layout is the decoder's, [rows, heads, positions, head dim], contiguous at
 * the current length, in an array with room for more positions: appending T
 * positions moves each (row, head) block up by T positions, last block
 * first, and writes the new ones after it.
 */
export class GrowingCache {
  readonly #lib: TransformersLib;
  readonly #pool: ArrayPool | null;
  readonly #entries = new Map<string, { type: Tensor['type']; data: Typed; rows: number; heads: number; dim: number }>();
  #length = 0;
  #capacity = 0;
  /** A kept prefix: requests read it and never append to it (they append to a copy). */
  frozen = false;

  private constructor(lib: TransformersLib, pool: ArrayPool | null) {
    this.#lib = lib;
    this.#pool = pool;
  }

  /** A copy of `cache` (CPU tensors), with room for `capacity` positions; its arrays from `pool` where it has them. */
  static copyOf(lib: TransformersLib, cache: KvCache, capacity: number, pool: ArrayPool | null = null): GrowingCache {
    return GrowingCache.after(lib, cache, 0, Math.max(0, capacity - cacheLength(cache)), pool);
  }

  /**
   * A copy of the positions of `cache` from `from` on (each row's, each
   * head's), with room for `room` more, its arrays from `pool` where it has
   * them: from 0 the whole cache ({@link copyOf}), further on a row's own
   * positions after a kept prefix that a decoder session holds itself
   * (held-prefix.ts).
   */
  static after(lib: TransformersLib, cache: KvCache, from: number, room: number, pool: ArrayPool | null = null): GrowingCache {
    const g = new GrowingCache(lib, pool);
    const total = cacheLength(cache);
    if (from < 0 || from > total) throw new RangeError(`positions from ${from} of a cache of ${total}`);
    g.#length = total - from;
    g.#capacity = g.#length + room;
    for (const [name, t] of Object.entries(cache)) {
      const [rows, heads, , dim] = t.dims as [number, number, number, number];
      const src = t.data as Float32Array;
      const data = g.#array(t.data as Typed, rows * heads * g.#capacity * dim) as Float32Array;
      for (let b = 0; b < rows * heads; b++) data.set(src.subarray((b * total + from) * dim, (b + 1) * total * dim), b * g.#length * dim);
      g.#entries.set(name, { type: t.type, data, rows, heads, dim });
    }
    return g;
  }

  get length(): number {
    return this.#length;
  }

  /** Tensors over the current positions (no copy). */
  view(): KvCache {
    const out: Record<string, Tensor> = {};
    for (const [name, e] of this.#entries) {
      const size = e.rows * e.heads * this.#length * e.dim;
      out[name] = new this.#lib.Tensor(e.type, e.data.subarray(0, size) as never, [e.rows, e.heads, this.#length, e.dim]);
    }
    return out;
  }

  /** Appends the positions of `added` (by cache input name, [rows, heads, T, head dim] each). */
  append(added: KvCache): void {
    if (this.frozen) throw new Error('a kept prefix is never appended to');
    let t = -1;
    for (const [name, e] of this.#entries) {
      const a = added[name];
      const [rows, heads, n, dim] = (a?.dims ?? []) as number[];
      if (!a || rows !== e.rows || heads !== e.heads || dim !== e.dim || (t >= 0 && n !== t)) {
        throw new RangeError(`new positions for ${name} have dims [${a?.dims.join(', ') ?? ''}], not [${e.rows}, ${e.heads}, T, ${e.dim}]`);
      }
      t = n!;
    }
    if (t <= 0) return;
    const length = this.#length;
    const grown = length + t;
    if (grown > this.#capacity) this.#resize(Math.max(grown, Math.ceil(this.#capacity * 1.5)));
    for (const [name, e] of this.#entries) {
      const src = added[name]!.data as Typed;
      const d = e.dim;
      for (let b = e.rows * e.heads - 1; b >= 0; b--) {
        if (b > 0) e.data.copyWithin(b * grown * d, b * length * d, (b + 1) * length * d);
        (e.data as Float32Array).set((src as Float32Array).subarray(b * t * d, (b + 1) * t * d), b * grown * d + length * d);
      }
    }
    this.#length = grown;
  }

  #resize(capacity: number): void {
    for (const e of this.#entries.values()) {
      const data = this.#array(e.data, e.rows * e.heads * capacity * e.dim);
      (data as Float32Array).set((e.data as Float32Array).subarray(0, e.rows * e.heads * this.#length * e.dim), 0);
      this.#pool?.give(e.data);
      e.data = data;
    }
    this.#capacity = capacity;
  }

  /** An array of `like`'s type with room for `length` elements (its contents are overwritten by the caller up to what it uses). */
  #array(like: Typed, length: number): Typed {
    return this.#pool?.take(like.constructor as new (n: number) => Typed, length) ?? new (like.constructor as new (n: number) => Typed)(length);
  }

  /** Gives the arrays to the pool; the cache and its views must not be used after. */
  release(): void {
    if (!this.#pool || this.frozen) return;
    for (const e of this.#entries.values()) this.#pool.give(e.data);
    this.#entries.clear();
    this.#length = 0;
  }
}

/**
 * Arrays of finished caches, handed to the next ones: fresh memory costs a
 * page fault per 4 KiB page on first touch, about 0.7 s for one SmolVLM-256M
 * cache at a 3,778-token prompt on this project's machines, once per request
 * without reuse. Holds at most `limit` arrays (the oldest are let go).
 */
export class ArrayPool {
  readonly #free: Typed[] = [];
  readonly #limit: number;

  constructor(limit = 512) {
    this.#limit = limit;
  }

  /** The smallest pooled array of this type with at least `length` elements, or a new one. */
  take(Ctor: new (n: number) => Typed, length: number): Typed {
    let best = -1;
    for (let i = 0; i < this.#free.length; i++) {
      const a = this.#free[i]!;
      if (a.constructor === Ctor && a.length >= length && (best < 0 || a.length < this.#free[best]!.length)) best = i;
    }
    if (best < 0) return new Ctor(length);
    return this.#free.splice(best, 1)[0]!;
  }

  give(array: Typed): void {
    this.#free.push(array);
    if (this.#free.length > this.#limit) this.#free.shift();
  }

  /** Arrays held. */
  get size(): number {
    return this.#free.length;
  }

  clear(): void {
    this.#free.length = 0;
  }
}
