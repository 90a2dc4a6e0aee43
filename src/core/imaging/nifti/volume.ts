/**
 * A 3D NIfTI volume in memory and the extraction of axial, coronal and
 * sagittal slices in radiological display convention:
 *
 * - axial: anterior at the top, patient's right on the image's left
 *   (viewed from the feet);
 * - coronal: superior at the top, patient's right on the image's left;
 * - sagittal: superior at the top, anterior on the image's left.
 *
 * Slice indices count voxels along the stored axis (as ITK-SNAP and FSLeyes
 * voxel coordinates do), so "slice 40" means the same thing in those tools.
 * Voxels are not resampled: with anisotropic voxels (thick slices), coronal
 * and sagittal images come out squashed; `pixelSpacing` says by how much.
 */
import type { Plane } from '../../model/geometry.ts';
import { InvalidInputError } from '../../errors.ts';
import type { NiftiDataType } from './header.ts';
import type { NiftiOrientation } from './orientation.ts';

/** Voxel samples of one volume, i fastest then j then k, in native byte order. */
export type NiftiTypedArray = Uint8Array | Int8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array;

/** What is needed to interpret a volume's samples: everything here is technical and non-identifying. */
export interface NiftiVolumeInfo {
  /** Voxel counts along i, j, k. */
  readonly dims: readonly [number, number, number];
  /** Voxel size along i, j, k (usually mm). */
  readonly pixdim: readonly [number, number, number];
  readonly datatype: NiftiDataType;
  /** Value = stored × sclSlope + sclInter; 1 and 0 when the file does not scale. */
  readonly sclSlope: number;
  readonly sclInter: number;
  /** Display range suggested by the file (cal_min/cal_max), when it gives a non-empty one. */
  readonly calMin?: number;
  readonly calMax?: number;
  readonly orientation: NiftiOrientation;
}

export interface NiftiSlice {
  readonly width: number;
  readonly height: number;
  /** Scaled voxel values, row-major, top-left first. */
  readonly data: Float32Array;
  /** Physical size of one pixel: [along a row (x), along a column (y)]. */
  readonly pixelSpacing: readonly [number, number];
}

export interface ParsedNifti extends NiftiVolumeInfo {
  readonly version?: 1 | 2;
  /** Number of volumes in the file (dim[4] × … for time series); only one is loaded. */
  readonly volumes: number;
  /** Which volume was loaded (0 unless asked). */
  readonly volume: number;
  /** Stored samples of the loaded volume. */
  readonly data: NiftiTypedArray;
  /** Header fields and extensions that held something and were not kept (names only). */
  readonly dropped: readonly string[];
  /** Number of slices available in a plane. */
  sliceCount(plane: Plane): number;
  /** One slice, oriented for display (see the module comment). */
  getSlice(plane: Plane, index: number): NiftiSlice;
}

interface SliceAxes {
  /** Voxel axis held fixed. */
  readonly fixed: number;
  /** Voxel axis along image columns, and whether image x runs against the voxel index. */
  readonly col: number;
  readonly colReversed: boolean;
  readonly row: number;
  readonly rowReversed: boolean;
}

/**
 * Image x must run toward patient Left (axial, coronal) or Posterior (sagittal);
 * image y toward Posterior (axial) or Inferior (coronal, sagittal). A voxel axis
 * whose index grows toward R, A or S therefore has to be read backwards.
 */
function sliceAxes(plane: Plane, o: NiftiOrientation): SliceAxes {
  const [x, y, z] = o.axes;
  const [sx, sy, sz] = o.signs;
  switch (plane) {
    case 'axial':
      return { fixed: z, col: x, colReversed: sx === 1, row: y, rowReversed: sy === 1 };
    case 'coronal':
      return { fixed: y, col: x, colReversed: sx === 1, row: z, rowReversed: sz === 1 };
    case 'sagittal':
      return { fixed: x, col: y, colReversed: sy === 1, row: z, rowReversed: sz === 1 };
  }
}

/** Wraps volume samples with slice access. Also used to rebuild a volume from the stored container. */
export function createNiftiVolume(
  info: NiftiVolumeInfo,
  data: NiftiTypedArray,
  extra: { version?: 1 | 2; volumes?: number; volume?: number; dropped?: readonly string[] } = {},
): ParsedNifti {
  const [nx, ny, nz] = info.dims;
  if (data.length < nx * ny * nz) {
    throw new InvalidInputError(`The stored volume has ${data.length} voxels, fewer than its ${nx} × ${ny} × ${nz} size needs.`);
  }
  const n = info.dims;
  const strides = [1, nx, nx * ny];
  const { sclSlope: slope, sclInter: inter } = info;
  const sliceCount = (plane: Plane) => n[sliceAxes(plane, info.orientation).fixed]!;
  return {
    ...info,
    ...(extra.version === undefined ? {} : { version: extra.version }),
    volumes: extra.volumes ?? 1,
    volume: extra.volume ?? 0,
    data,
    dropped: extra.dropped ?? [],
    sliceCount,
    getSlice(plane: Plane, index: number): NiftiSlice {
      const a = sliceAxes(plane, info.orientation);
      const count = n[a.fixed]!;
      if (!Number.isInteger(index) || index < 0 || index >= count) {
        throw new InvalidInputError(`Slice ${index} does not exist: this volume has ${count} ${plane} slices, numbered from 0.`, {
          field: 'slice',
        });
      }
      const width = n[a.col]!;
      const height = n[a.row]!;
      const out = new Float32Array(width * height);
      const base = index * strides[a.fixed]!;
      const cs = strides[a.col]!;
      const rs = strides[a.row]!;
      for (let r = 0; r < height; r++) {
        const rv = a.rowReversed ? height - 1 - r : r;
        const rowBase = base + rv * rs;
        for (let c = 0; c < width; c++) {
          const cv = a.colReversed ? width - 1 - c : c;
          out[r * width + c] = data[rowBase + cv * cs]! * slope + inter;
        }
      }
      return { width, height, data: out, pixelSpacing: [info.pixdim[a.col]!, info.pixdim[a.row]!] };
    },
  };
}
