/**
 * The de-identified source container ("NEVOL1") stored next to a rendered
 * PNG so the image can be re-windowed later without keeping the original
 * DICOM or NIfTI file (which may carry identifying data).
 *
 * Layout, all little-endian:
 *
 *     0   "NEVOL1"            6-byte magic
 *     6   0x00 0x00           reserved
 *     8   uint32              JSON header length n (padded with spaces so samples start 8-byte aligned)
 *     12  JSON (UTF-8)        { kind, dtype, length, header }
 *     12+n samples            `length` raw samples of `dtype`
 *
 * The JSON header is rebuilt field by field from a fixed list of technical
 * fields, so whatever object is passed in, nothing else (and no dropped tag)
 * can reach the stored bytes.
 */
import { InvalidInputError } from '../../errors.ts';
import type { NiftiDataType } from '../nifti/header.ts';
import type { AxisSign, NiftiOrientation } from '../nifti/orientation.ts';
import type { NiftiTypedArray, NiftiVolumeInfo, ParsedNifti } from '../nifti/volume.ts';
import type { DicomImageHeader, DicomPixelArray, ParsedDicom, PhotometricInterpretation } from './types.ts';

export const VOLUME_MAGIC = 'NEVOL1';
const PREFIX = 12;

/** A de-identified image source: kept header fields plus raw samples (DICOM: all frames; NIfTI: one volume). */
export type StoredVolume =
  | { readonly kind: 'dicom'; readonly header: DicomImageHeader; readonly data: DicomPixelArray }
  | { readonly kind: 'nifti'; readonly header: NiftiVolumeInfo; readonly data: NiftiTypedArray };

type SampleType = NiftiDataType;
const SAMPLE_TYPES: Record<SampleType, { bytes: number; make: (buffer: ArrayBuffer) => DicomPixelArray | NiftiTypedArray }> = {
  uint8: { bytes: 1, make: (b) => new Uint8Array(b) },
  int8: { bytes: 1, make: (b) => new Int8Array(b) },
  uint16: { bytes: 2, make: (b) => new Uint16Array(b) },
  int16: { bytes: 2, make: (b) => new Int16Array(b) },
  uint32: { bytes: 4, make: (b) => new Uint32Array(b) },
  int32: { bytes: 4, make: (b) => new Int32Array(b) },
  float32: { bytes: 4, make: (b) => new Float32Array(b) },
  float64: { bytes: 8, make: (b) => new Float64Array(b) },
};

const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The sample type of a pixel array, as the container and a NIfTI header name it. */
export function sampleType(data: DicomPixelArray | NiftiTypedArray): SampleType {
  if (data instanceof Uint8Array) return 'uint8';
  if (data instanceof Int8Array) return 'int8';
  if (data instanceof Uint16Array) return 'uint16';
  if (data instanceof Int16Array) return 'int16';
  if (data instanceof Uint32Array) return 'uint32';
  if (data instanceof Int32Array) return 'int32';
  if (data instanceof Float32Array) return 'float32';
  return 'float64';
}

/** The stored form of a parsed DICOM image (all frames). */
export function volumeFromDicom(parsed: ParsedDicom): StoredVolume {
  return { kind: 'dicom', header: parsed.kept, data: parsed.pixel };
}

/** The stored form of a parsed NIfTI file (the loaded volume). */
export function volumeFromNifti(parsed: ParsedNifti): StoredVolume {
  const { dims, pixdim, datatype, sclSlope, sclInter, calMin, calMax, orientation } = parsed;
  const header: NiftiVolumeInfo = { dims, pixdim, datatype, sclSlope, sclInter, orientation, ...(calMin === undefined || calMax === undefined ? {} : { calMin, calMax }) };
  return { kind: 'nifti', header, data: parsed.data };
}

// ---- whitelisting: every field is copied by name and type-checked, in both directions ----

type Json = Record<string, unknown>;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const nums = (v: unknown, n: number): number[] | undefined =>
  Array.isArray(v) && v.length === n && v.every((x) => num(x) !== undefined) ? (v as number[]).slice() : undefined;
const oneOf = <T>(v: unknown, allowed: readonly T[]): T | undefined => (allowed.includes(v as T) ? (v as T) : undefined);

function damaged(detail: string, file?: string): InvalidInputError {
  return new InvalidInputError(`This stored image source is damaged (${detail}). Import the original image again.`, file ? { file } : undefined);
}

/** Copies only the technical DICOM fields; throws if a required one is missing or malformed. */
function cleanDicomHeader(h: Json, file?: string): DicomImageHeader {
  const need = (name: string): number => {
    const v = num(h[name]);
    if (v === undefined) throw damaged(`missing ${name}`, file);
    return v;
  };
  const photometric = oneOf<PhotometricInterpretation>(h.photometricInterpretation, ['MONOCHROME1', 'MONOCHROME2', 'RGB']);
  const samples = oneOf<1 | 3>(h.samplesPerPixel, [1, 3]);
  const bits = oneOf<8 | 16 | 32>(h.bitsAllocated, [8, 16, 32]);
  if (!photometric || !samples || !bits) throw damaged('invalid pixel format', file);
  const out: { -readonly [K in keyof DicomImageHeader]: DicomImageHeader[K] } = {
    // Coded strings are re-checked against their syntax so free text can never ride along.
    transferSyntaxUID: typeof h.transferSyntaxUID === 'string' && /^[0-9.]{1,64}$/.test(h.transferSyntaxUID) ? h.transferSyntaxUID : '',
    rows: need('rows'),
    columns: need('columns'),
    samplesPerPixel: samples,
    photometricInterpretation: photometric,
    planarConfiguration: 0, // stored samples are always interleaved
    bitsAllocated: bits,
    bitsStored: need('bitsStored'),
    highBit: need('highBit'),
    pixelRepresentation: h.pixelRepresentation === 1 ? 1 : 0,
    numberOfFrames: need('numberOfFrames'),
    rescaleSlope: need('rescaleSlope'),
    rescaleIntercept: need('rescaleIntercept'),
  };
  if (typeof h.modality === 'string' && /^[A-Z0-9_ ]{1,16}$/.test(h.modality)) out.modality = h.modality;
  const wc = num(h.windowCenter);
  const ww = num(h.windowWidth);
  if (wc !== undefined && ww !== undefined && ww >= 1) [out.windowCenter, out.windowWidth] = [wc, ww];
  const spacing = nums(h.pixelSpacing, 2);
  if (spacing) out.pixelSpacing = [spacing[0]!, spacing[1]!];
  const optional = ['sliceThickness', 'spacingBetweenSlices', 'instanceNumber'] as const;
  for (const key of optional) {
    const v = num(h[key]);
    if (v !== undefined) out[key] = v;
  }
  const orientation = nums(h.imageOrientationPatient, 6);
  if (orientation) out.imageOrientationPatient = orientation;
  const position = nums(h.imagePositionPatient, 3);
  if (position) out.imagePositionPatient = position;
  return out;
}

function cleanNiftiHeader(h: Json, file?: string): NiftiVolumeInfo {
  const dims = nums(h.dims, 3);
  const pixdim = nums(h.pixdim, 3);
  const datatype = oneOf<NiftiDataType>(h.datatype, Object.keys(SAMPLE_TYPES) as NiftiDataType[]);
  const slope = num(h.sclSlope);
  const inter = num(h.sclInter);
  const o = (h.orientation ?? {}) as Json;
  const axes = nums(o.axes, 3);
  const signs = nums(o.signs, 3);
  const source = oneOf<NiftiOrientation['source']>(o.source, ['sform', 'qform', 'assumed']);
  if (!dims || !pixdim || !datatype || slope === undefined || inter === undefined || !axes || !signs || !source) {
    throw damaged('invalid volume header', file);
  }
  if ([...axes].sort().join() !== '0,1,2' || !signs.every((s) => s === 1 || s === -1)) throw damaged('invalid orientation', file);
  const out: NiftiVolumeInfo = {
    dims: [dims[0]!, dims[1]!, dims[2]!],
    pixdim: [pixdim[0]!, pixdim[1]!, pixdim[2]!],
    datatype,
    sclSlope: slope,
    sclInter: inter,
    orientation: { axes: [axes[0]!, axes[1]!, axes[2]!], signs: signs as [AxisSign, AxisSign, AxisSign], source },
  };
  const calMin = num(h.calMin);
  const calMax = num(h.calMax);
  return calMin !== undefined && calMax !== undefined ? { ...out, calMin, calMax } : out;
}

function sampleCount(v: StoredVolume): number {
  if (v.kind === 'dicom') return v.header.rows * v.header.columns * v.header.samplesPerPixel * v.header.numberOfFrames;
  return v.header.dims[0] * v.header.dims[1] * v.header.dims[2];
}

/** Serialises a de-identified volume into the NEVOL1 container. */
export function encodeVolume(volume: StoredVolume): Uint8Array {
  const clean: StoredVolume =
    volume.kind === 'dicom'
      ? { kind: 'dicom', header: cleanDicomHeader(volume.header as unknown as Json), data: volume.data }
      : { kind: 'nifti', header: cleanNiftiHeader(volume.header as unknown as Json), data: volume.data };
  const length = sampleCount(clean);
  if (volume.data.length < length) throw new RangeError(`encodeVolume: ${volume.data.length} samples, the header needs ${length}`);
  const dtype = sampleType(volume.data);
  const json = new TextEncoder().encode(JSON.stringify({ kind: clean.kind, dtype, length, header: clean.header }));
  const padded = Math.ceil((PREFIX + json.length) / 8) * 8 - PREFIX;
  const size = SAMPLE_TYPES[dtype].bytes;
  const out = new Uint8Array(PREFIX + padded + length * size);
  for (let i = 0; i < VOLUME_MAGIC.length; i++) out[i] = VOLUME_MAGIC.charCodeAt(i);
  new DataView(out.buffer).setUint32(8, padded, true);
  out.fill(0x20, PREFIX, PREFIX + padded);
  out.set(json, PREFIX);
  out.set(new Uint8Array(volume.data.buffer, volume.data.byteOffset, length * size), PREFIX + padded);
  // Samples are stored little-endian whatever the host (every current browser host is little-endian anyway).
  if (!HOST_LITTLE_ENDIAN && size > 1) for (let o = PREFIX + padded; o < out.length; o += size) out.subarray(o, o + size).reverse();
  return out;
}

/** Reads a NEVOL1 container back. Throws {@link InvalidInputError} if it is damaged. */
export function decodeVolume(bytes: Uint8Array, file?: string): StoredVolume {
  if (bytes.length < PREFIX || String.fromCharCode(...bytes.subarray(0, 6)) !== VOLUME_MAGIC) throw damaged('not an NEVOL1 container', file);
  const jsonLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
  if (PREFIX + jsonLength > bytes.length) throw damaged('header runs past the end', file);
  let meta: Json;
  try {
    meta = JSON.parse(new TextDecoder().decode(bytes.subarray(PREFIX, PREFIX + jsonLength))) as Json;
  } catch {
    throw damaged('unreadable header', file);
  }
  const kind = oneOf<'dicom' | 'nifti'>(meta.kind, ['dicom', 'nifti']);
  const dtype = oneOf<SampleType>(meta.dtype, Object.keys(SAMPLE_TYPES) as SampleType[]);
  const length = num(meta.length);
  if (!kind || !dtype || length === undefined || !Number.isInteger(length) || length < 0 || typeof meta.header !== 'object' || meta.header === null) {
    throw damaged('invalid header', file);
  }
  const size = SAMPLE_TYPES[dtype].bytes;
  const start = PREFIX + jsonLength;
  if (bytes.length - start < length * size) throw damaged('samples are missing', file);
  const copy = bytes.slice(start, start + length * size);
  if (!HOST_LITTLE_ENDIAN && size > 1) for (let o = 0; o < copy.length; o += size) copy.subarray(o, o + size).reverse();
  const data = SAMPLE_TYPES[dtype].make(copy.buffer);
  const volume: StoredVolume =
    kind === 'dicom'
      ? { kind, header: cleanDicomHeader(meta.header as Json, file), data: data as DicomPixelArray }
      : { kind, header: cleanNiftiHeader(meta.header as Json, file), data };
  if (sampleCount(volume) !== length) throw damaged('sample count does not match the image size', file);
  if (volume.kind === 'dicom' && (data instanceof Float32Array || data instanceof Float64Array)) throw damaged('invalid DICOM sample type', file);
  return volume;
}
