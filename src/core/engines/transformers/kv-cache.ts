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

/** Rows (batch size) of the cache; 0 for an empty record. */
export function cacheRows(cache: KvCache): number {
  for (const t of Object.values(cache)) return t.dims[0] ?? 0;
  return 0;
}

/** Bytes the cache's tensors hold. */
export function cacheBytes(cache: KvCache): number {
  let bytes = 0;
  for (const t of Object.values(cache)) bytes += t.size * (t.type === 'float16' ? 2 : 4);
  return bytes;
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
