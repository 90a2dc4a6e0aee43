/**
 * Generator of NIfTI-1 and NIfTI-2 files for tests: both byte orders, plain or
 * gzipped, the scalar datatypes, scaling, orientation matrices and a voxel
 * pattern value = f(i, j, k, t) so slice extraction can be asserted exactly.
 */
import { gzipSync } from 'fflate';
import { ByteWriter } from './bytes.ts';

export type NiftiFixtureType = 'uint8' | 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'float32' | 'float64';

const CODES: Record<NiftiFixtureType, [code: number, bits: number]> = {
  uint8: [2, 8],
  int16: [4, 16],
  int32: [8, 32],
  float32: [16, 32],
  float64: [64, 64],
  int8: [256, 8],
  uint16: [512, 16],
  uint32: [768, 32],
};

export interface MakeNiftiOptions {
  readonly version?: 1 | 2;
  /** [nx, ny, nz] or [nx, ny, nz, nt]; default [4, 3, 2]. */
  readonly dims?: readonly number[];
  readonly datatype?: NiftiFixtureType;
  /** Override the datatype code (to test refusals, e.g. 128 for RGB24). */
  readonly datatypeCode?: number;
  readonly littleEndian?: boolean;
  readonly gzip?: boolean;
  readonly sclSlope?: number;
  readonly sclInter?: number;
  readonly pixdim?: readonly [number, number, number];
  /** Stored voxel value; {@link niftiPattern} by default. */
  readonly value?: (i: number, j: number, k: number, t: number) => number;
  /** srow_x, srow_y, srow_z (4 values each); the default is diag(pixdim) with sform_code 1, as converters write. */
  readonly sform?: readonly (readonly number[])[];
  /** Write qform_code and sform_code 0 (no orientation), as old Analyze-derived files do. */
  readonly noOrientation?: boolean;
  /** Quaternion (b, c, d) and qfac; sets qform_code 1 (and sform_code 0 unless `sform` is given). */
  readonly qform?: { readonly b: number; readonly c: number; readonly d: number; readonly qfac?: number };
  readonly descrip?: string;
  readonly calMin?: number;
  readonly calMax?: number;
  /** Write the two-file magic ("ni1"/"ni2") instead of the single-file one. */
  readonly pairMagic?: boolean;
  /** Append a NIfTI extension block (as dcm2niix does with DICOM headers). */
  readonly extension?: string;
  /** Drop this many bytes from the end (before gzip). */
  readonly truncate?: number;
}

/** The default voxel pattern: every voxel of a small volume has a distinct, predictable value. */
export function niftiPattern(i: number, j: number, k: number, t: number): number {
  return i + 10 * j + 100 * k + 1000 * t;
}

/** Builds a single-file NIfTI (`.nii`, or `.nii.gz` with `gzip`). */
export function makeNifti(o: MakeNiftiOptions = {}): Uint8Array {
  const version = o.version ?? 1;
  const le = o.littleEndian ?? true;
  const type = o.datatype ?? 'int16';
  const [code, bitpix] = CODES[type];
  const dims = o.dims ?? [4, 3, 2];
  const [nx = 1, ny = 1, nz = 1, nt = 1] = dims;
  const pixdim = o.pixdim ?? [1, 1, 1];
  const headerSize = version === 1 ? 348 : 540;

  const ext = o.extension === undefined ? undefined : (() => {
    const e = new ByteWriter(le);
    const body = Array.from(o.extension!, (c) => c.charCodeAt(0));
    const size = Math.ceil((8 + body.length) / 16) * 16;
    e.u32(size).u32(2).bytes(body).bytes(new Uint8Array(size - 8 - body.length));
    return e.toBytes();
  })();
  const voxOffset = headerSize + 4 + (ext?.length ?? 0);

  const h = new Uint8Array(headerSize);
  const v = new DataView(h.buffer);
  const text = (offset: number, s: string) => h.set(Array.from(s, (c) => c.charCodeAt(0)), offset);
  v.setInt32(0, headerSize, le);
  const dimValues = [dims.length, nx, ny, nz, nt, 1, 1, 1];
  const pix = [o.qform?.qfac ?? 1, pixdim[0], pixdim[1], pixdim[2], 2, 1, 1, 1];
  const quatern = o.qform ? [o.qform.b, o.qform.c, o.qform.d] : [0, 0, 0];
  const srow = o.sform ?? [[pixdim[0], 0, 0, 0], [0, pixdim[1], 0, 0], [0, 0, pixdim[2], 0]];
  const sformCode = o.sform ? 1 : o.qform || o.noOrientation ? 0 : 1;
  if (version === 1) {
    for (let i = 0; i < 8; i++) v.setInt16(40 + 2 * i, dimValues[i]!, le);
    v.setInt16(70, o.datatypeCode ?? code, le);
    v.setInt16(72, bitpix, le);
    for (let i = 0; i < 8; i++) v.setFloat32(76 + 4 * i, pix[i]!, le);
    v.setFloat32(108, voxOffset, le);
    v.setFloat32(112, o.sclSlope ?? 0, le);
    v.setFloat32(116, o.sclInter ?? 0, le);
    v.setFloat32(124, o.calMax ?? 0, le);
    v.setFloat32(128, o.calMin ?? 0, le);
    if (o.descrip) text(148, o.descrip);
    v.setInt16(252, o.qform ? 1 : 0, le);
    v.setInt16(254, sformCode, le);
    quatern.forEach((q, i) => v.setFloat32(256 + 4 * i, q, le));
    srow.forEach((row, r) => row.forEach((x, c) => v.setFloat32(280 + 16 * r + 4 * c, x, le)));
    text(344, o.pairMagic ? 'ni1\0' : 'n+1\0');
  } else {
    text(4, o.pairMagic ? 'ni2\0\r\n\x1a\n' : 'n+2\0\r\n\x1a\n');
    v.setInt16(12, o.datatypeCode ?? code, le);
    v.setInt16(14, bitpix, le);
    for (let i = 0; i < 8; i++) v.setBigInt64(16 + 8 * i, BigInt(dimValues[i]!), le);
    for (let i = 0; i < 8; i++) v.setFloat64(104 + 8 * i, pix[i]!, le);
    v.setBigInt64(168, BigInt(voxOffset), le);
    v.setFloat64(176, o.sclSlope ?? 0, le);
    v.setFloat64(184, o.sclInter ?? 0, le);
    v.setFloat64(192, o.calMax ?? 0, le);
    v.setFloat64(200, o.calMin ?? 0, le);
    if (o.descrip) text(240, o.descrip);
    v.setInt32(344, o.qform ? 1 : 0, le);
    v.setInt32(348, sformCode, le);
    quatern.forEach((q, i) => v.setFloat64(352 + 8 * i, q, le));
    srow.forEach((row, r) => row.forEach((x, c) => v.setFloat64(400 + 32 * r + 8 * c, x, le)));
  }

  const w = new ByteWriter(le);
  w.bytes(h);
  w.bytes(ext ? [1, 0, 0, 0] : [0, 0, 0, 0]);
  if (ext) w.bytes(ext);
  const value = o.value ?? niftiPattern;
  for (let t = 0; t < nt; t++)
    for (let k = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) w.sample(type, value(i, j, k, t));
  let bytes = w.toBytes();
  if (o.truncate) bytes = bytes.subarray(0, bytes.length - o.truncate);
  return o.gzip ? gzipSync(bytes) : bytes;
}
