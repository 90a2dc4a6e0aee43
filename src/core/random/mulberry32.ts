/**
 * mulberry32: a small, fast, well-distributed 32-bit PRNG returning floats in
 * [0, 1), each a multiple of 2^-32, so a seed gives the same stream in every
 * JavaScript engine. Used wherever results must be reproducible (bootstrap
 * resampling, image-degradation noise).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
