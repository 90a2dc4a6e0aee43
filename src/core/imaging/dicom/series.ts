/**
 * A DICOM series as one volume: single-frame files ordered by their position
 * along the slice normal and stacked, or the frames of a multi-frame file in
 * file order. The result has the shape of a NIfTI volume (voxel axes i along
 * a row, j down the columns, k along the normal, with their patient
 * directions), so slices and reformatted planes are cut and flipped by the
 * same code as NIfTI (nifti/volume.ts), and stored in the same container.
 */
import type { Plane } from '../../model/geometry.ts';
import type { AxisSign, NiftiOrientation } from '../nifti/orientation.ts';
import type { NiftiTypedArray, NiftiVolumeInfo } from '../nifti/volume.ts';
import { presetWindow } from '../window.ts';
import { sampleType } from './serialize.ts';
import type { DicomPixelArray, ParsedDicom } from './types.ts';

/** One file of a series, with the path that names it in messages. */
export interface SeriesSlice {
  readonly path: string;
  readonly parsed: ParsedDicom;
}

/** How the slices were put in order, for the preview. */
export type SliceOrder = 'position' | 'instance-number' | 'file-order' | 'frames';

export interface SeriesVolume {
  readonly info: NiftiVolumeInfo;
  readonly data: NiftiTypedArray;
  /** The plane the slices were acquired in (from the slice normal; axial when unknown). */
  readonly acquiredPlane: Plane;
  readonly order: SliceOrder;
  /** The input file of each slice along k, in order (one file repeated for a multi-frame file). */
  readonly files: readonly string[];
}

const cross = (a: readonly number[], b: readonly number[]): number[] => [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
const dot = (a: readonly number[], b: readonly number[]): number => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;

/**
 * What must match for two single-frame images to be slices of one volume:
 * the pixel format, the size, and (rounded) the orientation. Localisers in
 * the same series differ here and become volumes of their own.
 */
export function stackSignature(p: ParsedDicom): string {
  const k = p.kept;
  const iop = k.imageOrientationPatient?.map((v) => v.toFixed(3)).join(',') ?? '-';
  return [k.rows, k.columns, k.samplesPerPixel, k.photometricInterpretation, k.bitsAllocated, k.pixelRepresentation, iop].join('|');
}

/** Whether an image can become a volume: one grayscale sample per pixel (colour is rendered file by file). */
export function isStackable(p: ParsedDicom): boolean {
  return p.kept.samplesPerPixel === 1;
}

/**
 * Orders slices: by ImagePositionPatient projected on the normal of
 * ImageOrientationPatient when every slice has both and no two share a
 * position; else by InstanceNumber when every slice has a distinct one; else
 * in the order given (file names).
 */
function orderSlices(slices: readonly SeriesSlice[]): { sorted: SeriesSlice[]; order: SliceOrder; positions?: number[] } {
  const iop = slices[0]?.parsed.kept.imageOrientationPatient;
  if (iop && slices.every((s) => s.parsed.kept.imagePositionPatient && s.parsed.kept.imageOrientationPatient)) {
    const normal = cross(iop.slice(0, 3), iop.slice(3, 6));
    const at = slices.map((s) => ({ s, d: dot(s.parsed.kept.imagePositionPatient!, normal) }));
    at.sort((a, b) => a.d - b.d);
    if (at.every((x, i) => i === 0 || x.d - at[i - 1]!.d > 1e-4)) return { sorted: at.map((x) => x.s), order: 'position', positions: at.map((x) => x.d) };
  }
  const numbers = slices.map((s) => s.parsed.kept.instanceNumber);
  if (numbers.every((n) => n !== undefined) && new Set(numbers).size === numbers.length) {
    return { sorted: [...slices].sort((a, b) => a.parsed.kept.instanceNumber! - b.parsed.kept.instanceNumber!), order: 'instance-number' };
  }
  return { sorted: [...slices], order: 'file-order' };
}

/** Voxel axes' patient directions (RAS, from LPS direction cosines), mapped greedily as for a NIfTI affine. */
function orientationOf(row: readonly number[], column: readonly number[], normal: readonly number[]): NiftiOrientation {
  // DICOM patient space is LPS; NIfTI world space is RAS: x and y change sign.
  const toRas = (v: readonly number[]) => [-v[0]!, -v[1]!, v[2]!];
  const voxel = [toRas(row), toRas(column), toRas(normal)];
  const axes = [-1, -1, -1];
  const signs: AxisSign[] = [1, 1, 1];
  const used = new Set<number>();
  for (let step = 0; step < 3; step++) {
    let best = -1;
    let bw = 0;
    let bv = 0;
    for (let w = 0; w < 3; w++) {
      if (axes[w] !== -1) continue;
      for (let v = 0; v < 3; v++) {
        if (used.has(v)) continue;
        const a = Math.abs(voxel[v]![w]!);
        if (a > best) [best, bw, bv] = [a, w, v];
      }
    }
    axes[bw] = bv;
    signs[bw] = voxel[bv]![bw]! >= 0 ? 1 : -1;
    used.add(bv);
  }
  return { axes: axes as [number, number, number], signs: signs as [AxisSign, AxisSign, AxisSign], source: 'sform' };
}

/** The plane whose normal is the slice normal's largest patient component. */
function planeOf(normal: readonly number[]): Plane {
  const [x, y, z] = normal.map(Math.abs) as [number, number, number];
  if (z >= x && z >= y) return 'axial';
  return y >= x ? 'coronal' : 'sagittal';
}

/**
 * The display range the DICOM path would use by default, as the volume's
 * cal_min/cal_max: the file's own window, else the brain window for CT;
 * none (auto window per slice) otherwise.
 */
function displayRange(p: ParsedDicom): { calMin: number; calMax: number } | undefined {
  const k = p.kept;
  const w = k.windowCenter !== undefined && k.windowWidth !== undefined ? { center: k.windowCenter, width: k.windowWidth } : k.modality === 'CT' ? presetWindow('brain') : undefined;
  return w ? { calMin: w.center - w.width / 2, calMax: w.center + w.width / 2 } : undefined;
}

/** Median gap between consecutive positions; the header's spacing when positions are unknown. */
function sliceSpacing(positions: readonly number[] | undefined, p: ParsedDicom): number {
  if (positions && positions.length > 1) {
    const gaps = positions.slice(1).map((d, i) => d - positions[i]!).sort((a, b) => a - b);
    return gaps[Math.floor(gaps.length / 2)]!;
  }
  const k = p.kept;
  return k.spacingBetweenSlices ?? k.sliceThickness ?? 1;
}

/**
 * Stacks slices that share {@link stackSignature} (grayscale), or the frames
 * of one multi-frame file, into a volume. Stored values are stacked as they
 * are when every slice shares the rescale; else modality values are stored as
 * 32-bit floats so each slice keeps its own rescale.
 */
export function buildSeriesVolume(slices: readonly SeriesSlice[]): SeriesVolume {
  const multiFrame = slices.length === 1 && slices[0]!.parsed.frames > 1;
  const { sorted, order, positions } = multiFrame ? { sorted: [...slices], order: 'frames' as const, positions: undefined } : orderSlices(slices);
  const first = sorted[0]!.parsed;
  const k = first.kept;
  const perFrame = k.rows * k.columns;
  const depth = multiFrame ? first.frames : sorted.length;
  const uniform = sorted.every((s) => s.parsed.kept.rescaleSlope === k.rescaleSlope && s.parsed.kept.rescaleIntercept === k.rescaleIntercept && s.parsed.pixel.constructor === first.pixel.constructor);
  let data: NiftiTypedArray;
  if (multiFrame) data = first.pixel.slice(0, perFrame * depth);
  else if (uniform) {
    data = new (first.pixel.constructor as new (n: number) => DicomPixelArray)(perFrame * depth);
    sorted.forEach((s, z) => data.set(s.parsed.pixel.subarray(0, perFrame), z * perFrame));
  } else {
    data = new Float32Array(perFrame * depth);
    sorted.forEach((s, z) => data.set(s.parsed.getFrame(0), z * perFrame));
  }
  const iop = k.imageOrientationPatient ?? [1, 0, 0, 0, 1, 0];
  const row = iop.slice(0, 3);
  const column = iop.slice(3, 6);
  const normal = cross(row, column);
  const [rowSpacing, columnSpacing] = k.pixelSpacing ?? [1, 1];
  const dz = Math.abs(sliceSpacing(positions, first)) || 1;
  const range = displayRange(first);
  const info: NiftiVolumeInfo = {
    dims: [k.columns, k.rows, depth],
    // PixelSpacing is row spacing (between rows, along j) then column spacing (along i).
    pixdim: [columnSpacing, rowSpacing, dz],
    datatype: sampleType(data),
    sclSlope: data instanceof Float32Array ? 1 : k.rescaleSlope,
    sclInter: data instanceof Float32Array ? 0 : k.rescaleIntercept,
    orientation: orientationOf(row, column, normal),
    ...(range ?? {}),
  };
  const files = multiFrame ? Array.from({ length: depth }, () => sorted[0]!.path) : sorted.map((s) => s.path);
  return { info, data, acquiredPlane: k.imageOrientationPatient ? planeOf(normal) : 'axial', order, files };
}
