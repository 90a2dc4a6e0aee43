/**
 * NIfTI-1 (348-byte) and NIfTI-2 (540-byte) header parsing. Byte order is
 * detected from sizeof_hdr, which must read as 348 or 540. Only the fields
 * needed to locate, scale and orient voxels are decoded; free-text fields
 * (descrip, aux_file, intent_name) and extensions are only checked for
 * presence so the importer can say they were dropped.
 */
import { InvalidInputError } from '../../errors.ts';

export type NiftiDataType = 'uint8' | 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'float32' | 'float64';

/** NIfTI datatype codes we can read, with their sample size in bytes. */
const NIFTI_DATATYPES: ReadonlyMap<number, { name: NiftiDataType; bytes: number }> = new Map([
  [2, { name: 'uint8', bytes: 1 }],
  [4, { name: 'int16', bytes: 2 }],
  [8, { name: 'int32', bytes: 4 }],
  [16, { name: 'float32', bytes: 4 }],
  [64, { name: 'float64', bytes: 8 }],
  [256, { name: 'int8', bytes: 1 }],
  [512, { name: 'uint16', bytes: 2 }],
  [768, { name: 'uint32', bytes: 4 }],
]);

/** Names of codes we recognise but cannot display, for a precise refusal message. */
const UNSUPPORTED_DATATYPES: ReadonlyMap<number, string> = new Map([
  [1, 'binary (1-bit)'],
  [32, 'complex64'],
  [128, 'RGB24'],
  [1024, 'int64'],
  [1280, 'uint64'],
  [1536, 'float128'],
  [1792, 'complex128'],
  [2048, 'complex256'],
  [2304, 'RGBA32'],
]);

export interface NiftiHeader {
  readonly version: 1 | 2;
  readonly littleEndian: boolean;
  /** Header size in bytes (348 or 540). */
  readonly headerSize: number;
  /** False for the two-file (.hdr + .img) variant, whose voxels are not in this file. */
  readonly singleFile: boolean;
  /** dim[0..7]: dim[0] is the number of dimensions used. */
  readonly dim: readonly number[];
  readonly datatypeCode: number;
  /** pixdim[0..7]: pixdim[0] is qfac (±1), pixdim[1..3] voxel size, pixdim[4] TR. */
  readonly pixdim: readonly number[];
  readonly voxOffset: number;
  readonly sclSlope: number;
  readonly sclInter: number;
  readonly calMin: number;
  readonly calMax: number;
  readonly qformCode: number;
  readonly sformCode: number;
  /** quatern_b, quatern_c, quatern_d. */
  readonly quatern: readonly [number, number, number];
  /** srow_x, srow_y, srow_z (4 values each). */
  readonly srow: readonly (readonly number[])[];
  /** Names of identifying-prone fields that hold something and are not kept. */
  readonly textFields: readonly string[];
}

/** A header number as a message shows it (NaN and infinities by name). */
function formatNumber(n: number): string {
  return Number.isNaN(n) ? 'NaN' : Number.isFinite(n) ? String(n) : n > 0 ? 'infinite' : 'minus infinite';
}

function where(file?: string) {
  return file ? { file } : undefined;
}

/**
 * Which NIfTI version and byte order the first bytes indicate, or `undefined`
 * when they are not a NIfTI header.
 */
function detectNifti(bytes: Uint8Array): { version: 1 | 2; littleEndian: boolean } | undefined {
  if (bytes.length < 4) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const littleEndian of [true, false]) {
    const size = view.getInt32(0, littleEndian);
    if (size === 348) return { version: 1, littleEndian };
    if (size === 540) return { version: 2, littleEndian };
  }
  return undefined;
}

function hasText(bytes: Uint8Array, offset: number, length: number): boolean {
  for (let i = offset; i < offset + length && i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0) return false;
    if (b !== 0x20) return true;
  }
  return false;
}

/** Parses a NIfTI-1 or NIfTI-2 header. Throws {@link InvalidInputError} if it is not one or is truncated. */
export function parseNiftiHeader(bytes: Uint8Array, file?: string): NiftiHeader {
  const kind = detectNifti(bytes);
  if (!kind) throw new InvalidInputError('This is not a NIfTI file (the header size field is neither 348 nor 540).', where(file));
  const { version, littleEndian } = kind;
  const headerSize = version === 1 ? 348 : 540;
  if (bytes.length < headerSize) {
    throw new InvalidInputError(`This NIfTI file is incomplete: its header needs ${headerSize} bytes but the file has ${bytes.length}.`, where(file));
  }
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const le = littleEndian;
  const magicAt = version === 1 ? 344 : 4;
  const magic = String.fromCharCode(...bytes.subarray(magicAt, magicAt + 3));
  const expected = version === 1 ? ['n+1', 'ni1'] : ['n+2', 'ni2'];
  if (!expected.includes(magic) || bytes[magicAt + 3] !== 0) {
    throw new InvalidInputError(`This NIfTI-${version} file has an invalid magic string; it may be an Analyze 7.5 file or damaged.`, where(file));
  }
  const int64 = (o: number) => Number(v.getBigInt64(o, le));
  const f32s = (o: number, n: number) => Array.from({ length: n }, (_, i) => v.getFloat32(o + 4 * i, le));
  const f64s = (o: number, n: number) => Array.from({ length: n }, (_, i) => v.getFloat64(o + 8 * i, le));

  const textFields: string[] = [];
  const text = version === 1 ? { descrip: [148, 80], aux_file: [228, 24], intent_name: [328, 16] } : { descrip: [240, 80], aux_file: [320, 24], intent_name: [508, 16] };
  for (const [name, [offset, length]] of Object.entries(text)) if (hasText(bytes, offset!, length!)) textFields.push(name);

  let header: NiftiHeader;
  if (version === 1) {
    header = {
      version,
      littleEndian,
      headerSize,
      singleFile: magic === 'n+1',
      dim: Array.from({ length: 8 }, (_, i) => v.getInt16(40 + 2 * i, le)),
      datatypeCode: v.getInt16(70, le),
      pixdim: f32s(76, 8),
      voxOffset: v.getFloat32(108, le),
      sclSlope: v.getFloat32(112, le),
      sclInter: v.getFloat32(116, le),
      calMax: v.getFloat32(124, le),
      calMin: v.getFloat32(128, le),
      qformCode: v.getInt16(252, le),
      sformCode: v.getInt16(254, le),
      quatern: [v.getFloat32(256, le), v.getFloat32(260, le), v.getFloat32(264, le)],
      srow: [f32s(280, 4), f32s(296, 4), f32s(312, 4)],
      textFields,
    };
  } else {
    header = {
      version,
      littleEndian,
      headerSize,
      singleFile: magic === 'n+2',
      dim: Array.from({ length: 8 }, (_, i) => int64(16 + 8 * i)),
      datatypeCode: v.getInt16(12, le),
      pixdim: f64s(104, 8),
      voxOffset: int64(168),
      sclSlope: v.getFloat64(176, le),
      sclInter: v.getFloat64(184, le),
      calMax: v.getFloat64(192, le),
      calMin: v.getFloat64(200, le),
      qformCode: v.getInt32(344, le),
      sformCode: v.getInt32(348, le),
      quatern: [v.getFloat64(352, le), v.getFloat64(360, le), v.getFloat64(368, le)],
      srow: [f64s(400, 4), f64s(432, 4), f64s(464, 4)],
      textFields,
    };
  }
  // Extensions (which can carry a full DICOM header) start 4 bytes after the header when extension[0] is non-zero.
  if (header.singleFile && bytes.length > headerSize && bytes[headerSize] !== 0 && header.voxOffset > headerSize + 4) {
    textFields.push('extensions');
  }
  if (header.singleFile) {
    // A .nii file's voxels follow its header and the 4-byte extension flag: an offset inside them would read the header as voxels.
    const first = headerSize + 4;
    if (!Number.isFinite(header.voxOffset) || header.voxOffset < first) {
      throw new InvalidInputError(
        `This NIfTI file's header is damaged: vox_offset is ${formatNumber(header.voxOffset)}, inside the ${first} bytes of header and extension flag (the voxels of a .nii file start at byte ${first} or later).`,
        { ...where(file), field: 'vox_offset' },
      );
    }
  }
  // Every voxel is stored × scl_slope + scl_inter: a scaling that is not a number makes every value NaN or infinite.
  for (const [field, value] of [['scl_slope', header.sclSlope], ['scl_inter', header.sclInter]] as const) {
    if (!Number.isFinite(value)) {
      throw new InvalidInputError(`This NIfTI file's header is damaged: ${field} is ${formatNumber(value)}; the scaling of its voxels must be a finite number (scl_slope 0 means no scaling).`, { ...where(file), field });
    }
  }
  const ndim = header.dim[0]!;
  if (ndim < 1 || ndim > 7) throw new InvalidInputError(`This NIfTI file's header is damaged: it declares ${ndim} dimensions (1 to 7 are valid).`, where(file));
  // A negative size has no meaning; readers that clamp it to 1 turn a damaged header into a one-voxel image nobody asked for.
  for (let i = 1; i <= ndim; i++) {
    const size = header.dim[i]!;
    if (size < 0) throw new InvalidInputError(`This NIfTI file's header is damaged: dimension ${i} (dim[${i}]) is ${size}; sizes cannot be negative.`, { ...where(file), field: `dim[${i}]` });
  }
  return header;
}

/** Sample type and size of the header's datatype, or an {@link InvalidInputError} naming the unsupported type. */
export function niftiDataType(header: NiftiHeader, file?: string): { name: NiftiDataType; bytes: number } {
  const known = NIFTI_DATATYPES.get(header.datatypeCode);
  if (known) return known;
  const name = UNSUPPORTED_DATATYPES.get(header.datatypeCode);
  throw new InvalidInputError(
    name
      ? `This NIfTI file stores ${name} voxels, which are not supported yet. Convert it to a scalar type (for example float32 or int16).`
      : `This NIfTI file declares an unknown datatype code ${header.datatypeCode}; the header may be damaged.`,
    where(file),
  );
}
