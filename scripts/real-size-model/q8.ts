/**
 * 8-bit weights as transformers.js' `q8` (`*_quantized.onnx`) exports hold
 * them after onnxruntime's dynamic quantisation: each MatMul becomes
 * `DynamicQuantizeLinear` (the activations, one uint8 scale and zero point
 * per call) → `MatMulInteger` (uint8 activations × int8 weights) → `Cast` →
 * `Mul` by activation scale × per-column weight scale. onnxruntime fuses that
 * pattern into one quantised GEMM, which its WASM build has a real kernel for
 * (unlike 4-bit `MatMulNBits`, which it dequantises to fp32 on every call).
 *
 * Weights here are random (seeded), made directly in int8.
 */
import { randomFloats, randomWords } from './q4.ts';

export interface Q8Weight {
  readonly k: number;
  readonly n: number;
  /** [K, N], row-major, symmetric (zero point 0). */
  readonly values: Int8Array;
  /** [N]: one scale per output column. */
  readonly scales: Float32Array;
}

/**
 * A random int8 weight [K, N] whose dequantised values have a spread of about
 * 1/√K: uniform values in [−127, 127] (spread ≈ 73.3) with column scales near
 * 1 / (73.3 · √K).
 */
export function randomQ8(name: string, k: number, n: number): Q8Weight {
  const words = new Uint32Array(Math.ceil((k * n) / 4));
  randomWords(`${name}/values`, words);
  const bytes = new Uint8Array(words.buffer, 0, k * n);
  const values = new Int8Array(k * n);
  for (let i = 0; i < values.length; i++) values[i] = (bytes[i]! % 255) - 127;
  const base = 1 / (73.3 * Math.sqrt(k));
  const jitter = randomFloats(`${name}/scales`, n, 0.25);
  const scales = new Float32Array(n);
  for (let i = 0; i < n; i++) scales[i] = base * (1 + jitter[i]!);
  return { k, n, values, scales };
}

/** Bytes a q8 weight occupies in the file: one byte per value, plus the fp32 column scales. */
export const q8Bytes = (k: number, n: number): number => k * n + 4 * n;
