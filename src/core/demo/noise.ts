/**
 * Smooth value noise on an integer lattice, hashed with integer arithmetic so
 * that it is identical in every engine. Used for tissue texture, bias fields,
 * irregular lesion borders and the gyral pattern.
 */
import { hash3 } from './prng.ts';

function lattice(ix: number, iy: number, seed: number): number {
  return hash3(ix, iy, seed) / 4294967296;
}

/** Value noise in [0, 1) at (x, y): smooth, one feature per unit. */
export function valueNoise(x: number, y: number, seed: number): number {
  const x0 = Math.floor(x);
  const y0 = Math.floor(y);
  const fx = x - x0;
  const fy = y - y0;
  const sx = fx * fx * (3 - 2 * fx);
  const sy = fy * fy * (3 - 2 * fy);
  const a = lattice(x0, y0, seed);
  const b = lattice(x0 + 1, y0, seed);
  const c = lattice(x0, y0 + 1, seed);
  const d = lattice(x0 + 1, y0 + 1, seed);
  const top = a + (b - a) * sx;
  const bottom = c + (d - c) * sx;
  return top + (bottom - top) * sy;
}

/** Fractal sum of `octaves` value-noise layers, centred on 0 (about −0.5…0.5). */
export function fbm(x: number, y: number, seed: number, octaves = 3): number {
  let sum = 0;
  let amp = 0.5;
  let norm = 0;
  let f = 1;
  for (let o = 0; o < octaves; o++) {
    sum += amp * (valueNoise(x * f, y * f, seed + o * 1013) - 0.5);
    norm += amp;
    amp *= 0.5;
    f *= 2;
  }
  return sum / norm;
}
