/**
 * NIfTI-1/NIfTI-2 reader for `.nii` and `.nii.gz`. Loads one 3D volume
 * (volume 0 of a time series unless asked otherwise) and decompresses only as
 * far as that volume, so a long fMRI run does not have to fit in memory.
 */
import { InvalidInputError } from '../../errors.ts';
import { checkImageSize } from '../dimensions.ts';
import { BoundedInflater, MAX_DECOMPRESSED_BYTES } from '../inflate.ts';
import { formatBytes } from '../../text/units.ts';
import { niftiDataType, type NiftiDataType, parseNiftiHeader } from './header.ts';
import { niftiOrientation } from './orientation.ts';
import { createNiftiVolume, type NiftiTypedArray, type ParsedNifti } from './volume.ts';

export interface ParseNiftiOptions {
  /** Which volume of a 4D (or higher) file to load; 0 by default. */
  readonly volume?: number;
  /** Decompression and volume size cap in bytes (default {@link MAX_DECOMPRESSED_BYTES}). */
  readonly maxBytes?: number;
}

const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const CONSTRUCTORS: Record<NiftiDataType, { new (buffer: ArrayBuffer): NiftiTypedArray }> = {
  uint8: Uint8Array,
  int8: Int8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  float32: Float32Array,
  float64: Float64Array,
};

function where(file?: string) {
  return file ? { file } : undefined;
}

/** Copies `count` samples into a fresh, aligned typed array, swapping bytes if the file's order differs from the host's. */
function readSamples(src: Uint8Array, start: number, count: number, type: NiftiDataType, size: number, littleEndian: boolean): NiftiTypedArray {
  const copy = src.slice(start, start + count * size);
  if (size > 1 && littleEndian !== HOST_LITTLE_ENDIAN) {
    // In-place swap of each sample's bytes (a plain loop: subarray().reverse() per voxel is far slower on large volumes).
    for (let o = 0; o < copy.length; o += size) {
      for (let a = o, b = o + size - 1; a < b; a++, b--) {
        const t = copy[a]!;
        copy[a] = copy[b]!;
        copy[b] = t;
      }
    }
  }
  return new CONSTRUCTORS[type](copy.buffer);
}

/**
 * Parses a `.nii` or `.nii.gz` file (gzip is detected from the bytes).
 * Throws {@link InvalidInputError} for two-file (.hdr/.img) pairs, unsupported
 * datatypes, truncated data and volumes over the size cap.
 */
export function parseNifti(bytes: Uint8Array, file?: string, options: ParseNiftiOptions = {}): ParsedNifti {
  const maxBytes = options.maxBytes ?? MAX_DECOMPRESSED_BYTES;
  const gzipped = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  const inflater = gzipped ? new BoundedInflater(bytes, 'gzip', maxBytes, file) : undefined;
  const available = (count: number) => (inflater ? inflater.take(count) : bytes);

  const header = parseNiftiHeader(available(540), file);
  if (!header.singleFile) {
    throw new InvalidInputError(
      'This is the header (.hdr) of a two-file NIfTI image; its voxels are in a separate .img file. Convert it to a single .nii or .nii.gz file (for example with dcm2niix or fslchfiletype) and import that.',
      where(file),
    );
  }
  const type = niftiDataType(header, file);
  const ndim = header.dim[0]!;
  // Unused or zero dimensions count as 1, as every NIfTI reader does.
  const dimAt = (i: number) => (i <= ndim ? Math.max(1, header.dim[i]!) : 1);
  const dims = [dimAt(1), dimAt(2), dimAt(3)] as const;
  let volumes = 1;
  for (let i = 4; i <= ndim; i++) volumes *= dimAt(i);

  checkImageSize({ width: dims[0], height: dims[1] }, file);
  checkImageSize({ width: dims[0], height: dims[2] }, file);
  checkImageSize({ width: dims[1], height: dims[2] }, file);
  const voxels = dims[0] * dims[1] * dims[2];
  const volumeBytes = voxels * type.bytes;
  if (volumeBytes > maxBytes) {
    throw new InvalidInputError(
      `This NIfTI volume is ${dims.join(' × ')} ${type.name} voxels (${formatBytes(volumeBytes)}), more than the ${formatBytes(maxBytes)} the app can hold.`,
      where(file),
    );
  }
  const volume = options.volume ?? 0;
  if (!Number.isInteger(volume) || volume < 0 || volume >= volumes) {
    throw new InvalidInputError(`Volume ${volume} does not exist: this file has ${volumes} volume(s), numbered from 0.`, {
      ...where(file),
      field: 'volume',
    });
  }
  // The header refused an offset inside itself (header.ts).
  const voxOffset = Math.floor(header.voxOffset);
  const start = voxOffset + volume * volumeBytes;
  const end = start + volumeBytes;
  if (inflater && end > maxBytes) {
    throw new InvalidInputError(`Volume ${volume} of this file lies beyond the ${formatBytes(maxBytes)} the app can decompress.`, where(file));
  }
  const source = available(end);
  if (source.length < end) {
    throw new InvalidInputError(
      `This NIfTI file is incomplete: its header declares ${dims.join(' × ')} ${type.name} voxels (${formatBytes(volumeBytes)}) for volume ${volume} starting at byte ${start}, but the ${gzipped ? 'decompressed ' : ''}file has only ${source.length} bytes.`,
      where(file),
    );
  }
  const data = readSamples(source, start, voxels, type.name, type.bytes, header.littleEndian);

  // scl_slope 0 means "no scaling" in the NIfTI standard; the intercept is then ignored too (non-finite values were refused in header.ts).
  const scaled = header.sclSlope !== 0;
  const spacing = (i: number) => {
    const p = Math.abs(header.pixdim[i] ?? 0);
    return Number.isFinite(p) && p > 0 ? p : 1;
  };
  const hasCal = Number.isFinite(header.calMin) && Number.isFinite(header.calMax) && header.calMax > header.calMin;
  return createNiftiVolume(
    {
      dims,
      pixdim: [spacing(1), spacing(2), spacing(3)],
      datatype: type.name,
      sclSlope: scaled ? header.sclSlope : 1,
      sclInter: scaled ? header.sclInter : 0,
      ...(hasCal ? { calMin: header.calMin, calMax: header.calMax } : {}),
      orientation: niftiOrientation(header),
    },
    data,
    { version: header.version, volumes, volume, dropped: header.textFields },
  );
}
