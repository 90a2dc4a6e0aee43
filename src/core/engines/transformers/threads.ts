/**
 * How many threads onnxruntime-web's WASM backend runs with, chosen from the
 * machine instead of left to its default (min(4, ⌈cores / 2⌉): one thread on
 * a two-core laptop).
 *
 * - Without cross-origin isolation there is no SharedArrayBuffer: 1.
 * - Up to 4 logical cores: all of them. A run's model lives in a worker and
 *   the page's main thread only draws progress, so it takes little of the
 *   cores' time; measured on 2 cores (docs/BENCHMARKS.md) the q8 decoder of
 *   SmolVLM-256M decodes about 1.3× faster with 2 threads than with 1, and
 *   holding one core back would cost half (2 cores) to a quarter (4 cores)
 *   of the arithmetic.
 * - From 5 to 17 cores: all but one, at most 16. onnxruntime splits each
 *   matrix product across its pool and waits for the slowest thread, so a
 *   pool thread descheduled for the page, the compositor or the garbage
 *   collector stalls the whole step; one core kept free costs at most a
 *   fifth of the arithmetic. Past 8 threads a small model's decode step is
 *   bound by memory bandwidth rather than arithmetic, so more threads add
 *   little (reasoned, not measured here: this machine has 2 cores).
 */

/** Most threads asked for: onnxruntime-web's pool gains little beyond this, and each thread reserves its own stack. */
export const MAX_WASM_THREADS = 16;

export function wasmThreadsFor(logicalCores: number | undefined, crossOriginIsolated: boolean): number {
  if (!crossOriginIsolated) return 1;
  const cores = Number.isFinite(logicalCores) && logicalCores! >= 1 ? Math.floor(logicalCores!) : 1;
  if (cores <= 4) return cores;
  return Math.min(MAX_WASM_THREADS, cores - 1);
}
