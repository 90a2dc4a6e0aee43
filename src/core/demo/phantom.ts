/**
 * Procedural brain slices for the synthetic demo benchmark. A slice is first
 * drawn as a map of tissue classes (normal anatomy, then lesions painted
 * over it), then turned into an 8-bit grayscale picture for one sequence:
 * tissue intensities, texture, coil shading, partial-volume blur and noise.
 *
 * This is a drawing for demonstrating the app, not a simulator: shapes and
 * intensities are chosen so that a person recognises the sequence and the
 * lesion, nothing more. Everything is deterministic (see prng.ts).
 */
import { type AnatomyOptions, type AxialLevel, anatomyContext, anatomyFor } from './anatomy.ts';
import type { Plane } from '../model/geometry.ts';
import { compilePaint, type Pathology } from './lesions.ts';
import { fbm, valueNoise } from './noise.ts';
import { Prng, hash3, hashString } from './prng.ts';
import { type DemoSequence, INTENSITY, Tissue, isLesion } from './tissues.ts';

export type { AnatomyOptions, AxialLevel } from './anatomy.ts';
export type { DemoSequence } from './tissues.ts';

/** Width and height of every demo image. */
export const DEMO_IMAGE_SIZE = 256;

/** Geometry of one slice; several sequences of a case share it. */
export interface SliceSpec {
  readonly plane: Plane;
  /** Axial slices only: which level. */
  readonly level?: AxialLevel;
  /** Seed for texture and noise (the anatomy's fine detail varies with it). */
  readonly seed: number;
  readonly anatomy?: AnatomyOptions;
  readonly pathology?: Pathology;
}

/** The tissue class ({@link Tissue}) of every pixel, row-major. */
export function renderTissueMap(spec: SliceSpec, size: number = DEMO_IMAGE_SIZE): Uint8Array {
  const anatomy = anatomyFor(spec.plane, spec.level);
  const ctx = anatomyContext(spec.seed, spec.anatomy);
  const paints = (spec.pathology?.paints ?? []).map(compilePaint);
  const masses = spec.pathology?.masses ?? [];
  const out = new Uint8Array(size * size);
  const half = size / 2;
  for (let j = 0; j < size; j++) {
    const y = (j + 0.5) / half - 1;
    for (let i = 0; i < size; i++) {
      const x = (i + 0.5) / half - 1;
      // Mass effect: sample the anatomy closer to each mass, which pushes structures away from it.
      let wx = x;
      let wy = y;
      for (const m of masses) {
        const dx = x - m.cx;
        const dy = y - m.cy;
        const r2 = m.r * m.r;
        const f = (m.strength * r2) / (dx * dx + dy * dy + r2);
        wx -= dx * f;
        wy -= dy * f;
      }
      let t: number = anatomy(x, y, wx, wy, ctx);
      for (const p of paints) {
        const b = p.box;
        if (x < b[0] || x > b[2] || y < b[1] || y > b[3]) continue;
        if (p.on && !p.on.has(t)) continue;
        if (p.contains(x, y)) t = p.tissue;
      }
      out[j * size + i] = t;
    }
  }
  return out;
}

/** Separable [1 2 1]/4 blur, edges clamped. */
function blur(src: Float64Array, size: number): Float64Array {
  const tmp = new Float64Array(src.length);
  const dst = new Float64Array(src.length);
  for (let j = 0; j < size; j++) {
    const row = j * size;
    for (let i = 0; i < size; i++) {
      const l = src[row + (i > 0 ? i - 1 : i)]!;
      const r = src[row + (i < size - 1 ? i + 1 : i)]!;
      tmp[row + i] = (l + 2 * src[row + i]! + r) * 0.25;
    }
  }
  for (let j = 0; j < size; j++) {
    const up = (j > 0 ? j - 1 : j) * size;
    const down = (j < size - 1 ? j + 1 : j) * size;
    const row = j * size;
    for (let i = 0; i < size; i++) dst[row + i] = (tmp[up + i]! + 2 * tmp[row + i]! + tmp[down + i]!) * 0.25;
  }
  return dst;
}

/** Per-sequence look: blur passes (DWI is low resolution) and noise level. */
const LOOK: Readonly<Record<DemoSequence, { blur: number; noise: number; texture: number; shading: number }>> = {
  T1: { blur: 1, noise: 2.5, texture: 0.07, shading: 0.16 },
  'T1C+': { blur: 1, noise: 2.5, texture: 0.07, shading: 0.16 },
  T2: { blur: 1, noise: 3, texture: 0.08, shading: 0.16 },
  FLAIR: { blur: 1, noise: 3.5, texture: 0.08, shading: 0.2 },
  DWI: { blur: 3, noise: 5, texture: 0.1, shading: 0.2 },
  ADC: { blur: 3, noise: 5, texture: 0.1, shading: 0.1 },
  CT: { blur: 1, noise: 2.5, texture: 0.03, shading: 0 },
};

/** 8-bit grayscale pixels of a tissue map in one sequence. */
export function renderImage(tissues: Uint8Array, size: number, sequence: DemoSequence, seed: number): Uint8Array {
  const table = INTENSITY[sequence];
  const look = LOOK[sequence];
  const rng = new Prng(hash3(seed, hashString(sequence), 0x1ae));
  const gain = 0.95 + 0.1 * rng.next();
  const half = size / 2;
  let img: Float64Array = new Float64Array(size * size);
  for (let j = 0; j < size; j++) {
    const y = (j + 0.5) / half - 1;
    for (let i = 0; i < size; i++) {
      const x = (i + 0.5) / half - 1;
      const k = j * size + i;
      const t = tissues[k]!;
      let v = table[t] ?? 0;
      if (t !== Tissue.Air) {
        v *= 1 + 2 * look.texture * fbm(x * 7 + 3, y * 7 + 1, seed + 31, 2);
        if (isLesion(t)) v *= 1 + 0.5 * fbm(x * 12 + 5, y * 12 + 9, seed + 32, 2);
        if (look.shading > 0) v *= 1 - look.shading / 2 + look.shading * valueNoise(x * 1.1 + 3, y * 1.1 + 5, seed + 33);
      }
      img[k] = v * gain;
    }
  }
  for (let b = 0; b < look.blur; b++) img = blur(img, size);
  const out = new Uint8Array(size * size);
  for (let k = 0; k < out.length; k++) {
    let v = img[k]!;
    // Exported scans are usually windowed so that the air outside the head is nearly black: keep its noise faint.
    const sigma = v < 6 ? 0.7 : look.noise;
    if (sequence === 'CT') v += sigma * rng.gauss();
    else {
      // Magnitude images have Rician noise: never negative.
      const a = v + sigma * rng.gauss();
      const b = sigma * rng.gauss();
      v = Math.sqrt(a * a + b * b);
    }
    out[k] = v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
  }
  return out;
}

/** Renders one slice in one sequence (tissue map and picture in one go). */
export function renderSlice(spec: SliceSpec, sequence: DemoSequence, size: number = DEMO_IMAGE_SIZE): Uint8Array {
  return renderImage(renderTissueMap(spec, size), size, sequence, spec.seed);
}
