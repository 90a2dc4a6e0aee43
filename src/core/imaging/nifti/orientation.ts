/**
 * Which voxel axis runs along which patient axis, so slices are cut and
 * flipped the way radiologists read them.
 *
 * NIfTI world space is RAS+: +x toward the patient's Right, +y Anterior,
 * +z Superior. When the file has an sform (preferred) or a qform, the voxel
 * axis closest to each world axis and its direction are taken from that
 * matrix; obliquity is ignored (no resampling). When it has neither, we assume
 * the common storage where voxel axes i, j, k already run along x, y, z
 * (i → Right, j → Anterior, k → Superior), which is also what the NIfTI
 * standard's "method 1" fallback implies.
 *
 * Getting left and right wrong on an image is a clinical error, so the matrix
 * is used whenever one exists rather than always assuming RAS storage.
 */
import type { NiftiHeader } from './header.ts';

export type AxisSign = 1 | -1;

export interface NiftiOrientation {
  /** For world x (R), y (A), z (S): the voxel axis (0 = i, 1 = j, 2 = k) that runs along it. */
  readonly axes: readonly [number, number, number];
  /** For world x, y, z: +1 if the voxel index grows toward R / A / S, -1 toward L / P / I. */
  readonly signs: readonly [AxisSign, AxisSign, AxisSign];
  /** Where the orientation came from. */
  readonly source: 'sform' | 'qform' | 'assumed';
}

/** The assumption used when the header has no orientation: i → R, j → A, k → S. */
const ASSUMED_RAS: NiftiOrientation = { axes: [0, 1, 2], signs: [1, 1, 1], source: 'assumed' };

/**
 * Assigns each world axis the voxel axis with the largest component along it
 * (greedily, biggest first), like nibabel's `io_orientation`. `m[w][v]` is the
 * world-axis-w component of voxel axis v.
 */
function fromMatrix(m: readonly (readonly number[])[], source: 'sform' | 'qform'): NiftiOrientation | undefined {
  const axes = [-1, -1, -1];
  const signs: AxisSign[] = [1, 1, 1];
  const usedVoxel = new Set<number>();
  for (let step = 0; step < 3; step++) {
    let best = 0;
    let bw = -1;
    let bv = -1;
    for (let w = 0; w < 3; w++) {
      if (axes[w] !== -1) continue;
      for (let v = 0; v < 3; v++) {
        if (usedVoxel.has(v)) continue;
        const a = Math.abs(m[w]![v]!);
        if (Number.isFinite(a) && a > best) [best, bw, bv] = [a, w, v];
      }
    }
    // A zero or non-finite column: the matrix cannot be trusted.
    if (bw < 0) return undefined;
    axes[bw] = bv;
    signs[bw] = m[bw]![bv]! > 0 ? 1 : -1;
    usedVoxel.add(bv);
  }
  return { axes: axes as [number, number, number], signs: signs as [AxisSign, AxisSign, AxisSign], source };
}

/** Rotation matrix of the qform quaternion (NIfTI-1 standard), with qfac applied to the k column. */
function quaternionMatrix(b: number, c: number, d: number, qfac: number): number[][] {
  let a = 1 - (b * b + c * c + d * d);
  if (a < 1e-7) {
    // Rounding pushed the quaternion past unit length: a 180° rotation; renormalise (b, c, d).
    const n = Math.hypot(b, c, d) || 1;
    [a, b, c, d] = [0, b / n, c / n, d / n];
  } else a = Math.sqrt(a);
  const k = qfac < 0 ? -1 : 1;
  return [
    [a * a + b * b - c * c - d * d, 2 * (b * c - a * d), k * 2 * (b * d + a * c)],
    [2 * (b * c + a * d), a * a + c * c - b * b - d * d, k * 2 * (c * d - a * b)],
    [2 * (b * d - a * c), 2 * (c * d + a * b), k * (a * a + d * d - c * c - b * b)],
  ];
}

/** The voxel-to-patient axis mapping of a header (sform, else qform, else {@link ASSUMED_RAS}). */
export function niftiOrientation(h: NiftiHeader): NiftiOrientation {
  if (h.sformCode > 0) {
    const fromS = fromMatrix(h.srow.map((row) => row.slice(0, 3)), 'sform');
    if (fromS) return fromS;
  }
  if (h.qformCode > 0) {
    const [b, c, d] = h.quatern;
    const fromQ = fromMatrix(quaternionMatrix(b, c, d, h.pixdim[0] ?? 1), 'qform');
    if (fromQ) return fromQ;
  }
  return ASSUMED_RAS;
}
