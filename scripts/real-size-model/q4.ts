/**
 * 4-bit block quantisation as onnxruntime's `com.microsoft` `MatMulNBits`
 * stores it (what transformers.js' q4 files hold): for a weight W [K, N]
 * (input K → output N), `B` uint8 [N, ceil(K / block), block / 2] with two
 * 4-bit values per byte (low nibble first, along K), `scales` float
 * [N · ceil(K / block)], and no zero points (symmetric: the zero point is 8).
 * W[k, n] = (nibble(n, k) − 8) · scale(n, ⌊k / block⌋).
 *
 * Weights here are random (seeded), so they are made directly in this packed
 * form, not quantised from floats.
 */

/** Block length along K: transformers.js' q4 exports use 32. */
export const Q4_BLOCK = 32;

export interface Q4Weight {
  readonly k: number;
  readonly n: number;
  readonly block: number;
  /** [n, blocks, block / 2] */
  readonly packed: Uint8Array;
  /** [n · blocks] */
  readonly scales: Float32Array;
}

export const q4Blocks = (k: number, block = Q4_BLOCK): number => Math.ceil(k / block);

/** FNV-1a of a string: the seed of one tensor's random stream. */
function seedOf(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0 || 1;
}

/**
 * Fills `out` with seeded random 32-bit words (xorshift32): fast enough for
 * billions of weights, and the same bytes on every run and machine.
 */
export function randomWords(name: string, out: Uint32Array): void {
  let x = seedOf(name);
  for (let i = 0; i < out.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x >>> 0;
  }
}

/** Seeded uniform floats in [−scale, scale). */
export function randomFloats(name: string, count: number, scale: number): Float32Array {
  const words = new Uint32Array(count);
  randomWords(name, words);
  const out = new Float32Array(count);
  const f = (2 * scale) / 4294967296;
  for (let i = 0; i < count; i++) out[i] = words[i]! * f - scale;
  return out;
}

/**
 * A random q4 weight [K, N] whose dequantised values have a spread of about
 * 1/√K (so activations keep their size through the layers): uniform nibbles,
 * block scales near 1 / (4.6 · √K) (4.6 ≈ the spread of a uniform nibble − 8).
 */
export function randomQ4(name: string, k: number, n: number, block = Q4_BLOCK): Q4Weight {
  const blocks = q4Blocks(k, block);
  const packed = new Uint8Array(n * blocks * (block / 2));
  const words = new Uint32Array(packed.buffer, 0, packed.length >>> 2);
  randomWords(`${name}/packed`, words);
  for (let i = words.length * 4; i < packed.length; i++) packed[i] = (i * 37) & 0xff;
  if (k % block !== 0) {
    // Padding past K in each row's last block is zero, as the quantiser writes it.
    const rowBytes = blocks * (block / 2);
    for (let row = 0; row < n; row++) {
      for (let kk = k; kk < blocks * block; kk++) {
        const at = row * rowBytes + (kk >> 1);
        packed[at] = kk & 1 ? packed[at]! & 0x0f : packed[at]! & 0xf0;
      }
    }
  }
  const base = 1 / (4.6 * Math.sqrt(k));
  const jitter = randomFloats(`${name}/scales`, n * blocks, 0.25);
  const scales = new Float32Array(n * blocks);
  for (let i = 0; i < scales.length; i++) scales[i] = base * (1 + jitter[i]!);
  return { k, n, block, packed, scales };
}

/** The weight as floats, row-major [K, N]: what `MatMulNBits` multiplies by. */
export function dequantiseQ4(w: Q4Weight): Float32Array {
  const blocks = q4Blocks(w.k, w.block);
  const half = w.block / 2;
  const out = new Float32Array(w.k * w.n);
  for (let n = 0; n < w.n; n++) {
    for (let k = 0; k < w.k; k++) {
      const b = Math.floor(k / w.block);
      const byte = w.packed[(n * blocks + b) * half + ((k % w.block) >> 1)]!;
      const nibble = k % 2 === 0 ? byte & 0x0f : byte >> 4;
      out[k * w.n + n] = (nibble - 8) * w.scales[n * blocks + b]!;
    }
  }
  return out;
}

/** Bytes a q4 weight occupies in the file (packed nibbles + fp32 scales). */
export const q4Bytes = (k: number, n: number, block = Q4_BLOCK): number => n * q4Blocks(k, block) * (block / 2 + 4);
