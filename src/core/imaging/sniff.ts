/**
 * File-type detection from magic bytes. File names and browser-reported MIME
 * types are unreliable for medical exports (DICOM files often have no
 * extension at all, `.nii.gz` arrives as `application/gzip`), so every
 * importer asks the bytes instead.
 */

/** Every kind of file the imaging core recognises. */
export type ImageType = 'png' | 'jpeg' | 'webp' | 'gif' | 'bmp' | 'dicom' | 'nifti1' | 'nifti2' | 'gzip';

/** Ordinary picture formats a browser can display and a model can receive as-is. */
export type RasterImageType = 'png' | 'jpeg' | 'webp' | 'gif' | 'bmp';

const RASTER: ReadonlySet<ImageType> = new Set<ImageType>(['png', 'jpeg', 'webp', 'gif', 'bmp']);

/** True for PNG/JPEG/WebP/GIF/BMP, which need no rendering before use. */
export function isRasterImageType(type: ImageType | null): type is RasterImageType {
  return type !== null && RASTER.has(type);
}

function ascii(bytes: Uint8Array, offset: number, text: string): boolean {
  if (bytes.length < offset + text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[offset + i] !== text.charCodeAt(i)) return false;
  return true;
}

function int32At(bytes: Uint8Array, offset: number, littleEndian: boolean): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(offset, littleEndian);
}

/** NIfTI headers start with their own size; either byte order is valid, so both are tried. */
function headerSizeIs(bytes: Uint8Array, size: number): boolean {
  return bytes.length >= 4 && (int32At(bytes, 0, true) === size || int32At(bytes, 0, false) === size);
}

// BMP starts with only two magic letters ("BM"), which plain text can too; the
// DIB header size (one of a handful of fixed values) makes the match reliable.
const BMP_DIB_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

/**
 * Detects the file type from its first bytes, or `null` when unknown.
 *
 * DICOM is only recognised with its Part 10 preamble ("DICM" at offset 128):
 * raw datasets without it cannot be told apart from random bytes reliably.
 * A gzip stream is reported as `gzip`; the caller decides whether it is a
 * `.nii.gz` (see `parseNifti`, which accepts gzip directly).
 */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  if (bytes.length >= 8 && bytes[0] === 0x89 && ascii(bytes, 1, 'PNG\r\n\x1a\n')) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WEBP')) return 'webp';
  if (ascii(bytes, 0, 'GIF87a') || ascii(bytes, 0, 'GIF89a')) return 'gif';
  if (ascii(bytes, 128, 'DICM')) return 'dicom';
  if (headerSizeIs(bytes, 348) && (ascii(bytes, 344, 'n+1\0') || ascii(bytes, 344, 'ni1\0'))) return 'nifti1';
  if (headerSizeIs(bytes, 540) && (ascii(bytes, 4, 'n+2\0\r\n\x1a\n') || ascii(bytes, 4, 'ni2\0\r\n\x1a\n'))) return 'nifti2';
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) return 'gzip';
  if (ascii(bytes, 0, 'BM') && bytes.length >= 18 && BMP_DIB_SIZES.has(int32At(bytes, 14, true))) return 'bmp';
  return null;
}

const MIME: Record<ImageType, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  bmp: 'image/bmp',
  dicom: 'application/dicom',
  // NIfTI has no registered media type; this is the one most tools use.
  nifti1: 'application/x-nifti',
  nifti2: 'application/x-nifti',
  gzip: 'application/gzip',
};

/** The MIME type to store with a file of this type. */
export function mimeFor(type: ImageType): string {
  return MIME[type];
}
