/**
 * Small 2-D shape helpers for the phantom. Coordinates are normalised to
 * [-1, 1] across the image, x to the right, y downwards.
 */
import { dcos, dsin, rad } from './det-math.ts';

/** A rotation given as its cosine and sine, computed once. */
export interface Rotation {
  readonly c: number;
  readonly s: number;
}

export function rotation(degrees: number): Rotation {
  return { c: dcos(rad(degrees)), s: dsin(rad(degrees)) };
}

/** (x−cx)²/rx² + (y−cy)²/ry²: below 1 inside the ellipse. */
export function ell(x: number, y: number, cx: number, cy: number, rx: number, ry: number): number {
  const dx = (x - cx) / rx;
  const dy = (y - cy) / ry;
  return dx * dx + dy * dy;
}

/**
 * Like {@link ell} for an ellipse turned by `rot`: positive angles turn the
 * ellipse's upper end (its −y end) towards +x.
 */
export function rell(x: number, y: number, cx: number, cy: number, rx: number, ry: number, rot: Rotation): number {
  const dx = x - cx;
  const dy = y - cy;
  const lx = (dx * rot.c + dy * rot.s) / rx;
  const ly = (-dx * rot.s + dy * rot.c) / ry;
  return lx * lx + ly * ly;
}

/**
 * Approximate signed distance to an axis-aligned ellipse (negative inside),
 * first order in the implicit function: accurate near the outline, which is
 * where layer thicknesses are measured.
 */
export function ellipseSd(x: number, y: number, cx: number, cy: number, a: number, b: number): number {
  const dx = x - cx;
  const dy = y - cy;
  const a2 = a * a;
  const b2 = b * b;
  const f = (dx * dx) / a2 + (dy * dy) / b2 - 1;
  const gx = dx / a2;
  const gy = dy / b2;
  const g = 2 * Math.sqrt(gx * gx + gy * gy);
  const min = a < b ? a : b;
  if (g < 1e-9) return -min;
  const d = f / g;
  return d < -min ? -min : d;
}

/** Distance from (x, y) to the segment (x0, y0)–(x1, y1). */
export function segmentDistance(x: number, y: number, x0: number, y0: number, x1: number, y1: number): number {
  const vx = x1 - x0;
  const vy = y1 - y0;
  const len2 = vx * vx + vy * vy;
  let t = len2 > 0 ? ((x - x0) * vx + (y - y0) * vy) / len2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  const dx = x - (x0 + t * vx);
  const dy = y - (y0 + t * vy);
  return Math.sqrt(dx * dx + dy * dy);
}

/** Which side of the directed line (x0, y0)→(x1, y1) the point is on: > 0 to the right (y down). */
export function sideOfLine(x: number, y: number, x0: number, y0: number, x1: number, y1: number): number {
  return (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0);
}

/** Piecewise-linear interpolation through points sorted by x; clamps at the ends. */
export function piecewise(points: readonly (readonly [number, number])[], x: number): number {
  const first = points[0]!;
  if (x <= first[0]) return first[1];
  for (let i = 1; i < points.length; i++) {
    const [x1, y1] = points[i]!;
    const [x0, y0] = points[i - 1]!;
    if (x <= x1) return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
  }
  return points[points.length - 1]![1];
}
