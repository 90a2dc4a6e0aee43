/**
 * Image bytes inside benchmark files: base64 and data-URI decoding, and the
 * type check every importer runs on the decoded bytes (the label a file or a
 * data URI carries is not trusted: Neural-MedBench labels PNG data image/jpeg).
 */
import { detectDicom } from '../imaging/dicom/detect.ts';
import { mimeFor, sniffImageType, type ImageType } from '../imaging/sniff.ts';

/** Types a model receives as-is (the same set finalize.ts accepts). */
const MODEL_TYPES: ReadonlySet<ImageType> = new Set<ImageType>(['png', 'jpeg', 'webp', 'gif']);
/** Medical formats the import pipeline renders to PNG (medical-images.ts) before a model sees them. */
const MEDICAL_TYPES: ReadonlySet<ImageType> = new Set<ImageType>(['dicom', 'nifti1', 'nifti2', 'gzip']);
const EXTENSION: Partial<Record<ImageType, string>> = { png: 'png', jpeg: 'jpg', webp: 'webp', gif: 'gif', dicom: 'dcm', nifti1: 'nii', nifti2: 'nii', gzip: 'nii.gz' };

const B64 = (() => {
  const t = new Int8Array(256).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i++) t[alphabet.charCodeAt(i)] = i;
  t['-'.charCodeAt(0)] = 62; // URL-safe alphabet
  t['_'.charCodeAt(0)] = 63;
  return t;
})();

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Decodes base64 (standard or URL-safe, whitespace and padding tolerated); null when it is not base64. */
export function decodeBase64(text: string): Uint8Array | null {
  let end = text.length;
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
  let pad = 0;
  while (end > 0 && text.charCodeAt(end - 1) === 0x3d && pad < 2) {
    end--;
    pad++;
  }
  let count = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 256 && B64[c]! >= 0) count++;
    else if (!isSpace(c)) return null;
  }
  if (count === 0 || count % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((count * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    const v = B64[text.charCodeAt(i)]!;
    if (v < 0) continue;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

type DataUriResult = { readonly mime: string; readonly bytes: Uint8Array } | { readonly error: string };

/** Decodes a `data:` URI. The declared MIME type is returned as written (lower-cased), not trusted. */
export function parseDataUri(uri: string): DataUriResult {
  if (!/^data:/i.test(uri)) return { error: 'is not a data URI (it should start with "data:")' };
  const comma = uri.indexOf(',');
  if (comma < 0) return { error: 'is a data URI without a "," before its data' };
  const params = uri.slice(5, comma).split(';').map((p) => p.trim().toLowerCase());
  const mime = params[0] ?? '';
  const payload = uri.slice(comma + 1);
  if (!params.includes('base64')) {
    try {
      return { mime, bytes: new TextEncoder().encode(decodeURIComponent(payload)) };
    } catch {
      return { error: 'has percent-encoded data that does not decode' };
    }
  }
  const bytes = decodeBase64(payload);
  return bytes ? { mime, bytes } : { error: 'holds data that is not valid base64' };
}

interface ImageKind {
  readonly type: ImageType;
  readonly mime: string;
  /** Extension for bundle paths (`jpg` for JPEG). */
  readonly ext: string;
}

/**
 * What the bytes really are, when a model can take them as-is or after
 * rendering (DICOM, NIfTI); otherwise a sentence for an error message.
 */
export function identifyImage(bytes: Uint8Array): ImageKind | { readonly error: string } {
  const type = sniffImageType(bytes);
  if (type && (MODEL_TYPES.has(type) || MEDICAL_TYPES.has(type))) return { type, mime: mimeFor(type), ext: EXTENSION[type] ?? type };
  if (type) return { error: `is a ${type} file, which cannot be given to a model as is (convert it to PNG or JPEG)` };
  // A raw DICOM dataset (no preamble) is still DICOM: it is rendered and de-identified like any other.
  if (detectDicom(bytes)) return { type: 'dicom', mime: mimeFor('dicom'), ext: EXTENSION.dicom ?? 'dcm' };
  return { error: 'is not an image (the bytes are not PNG, JPEG, WebP, GIF, DICOM or NIfTI)' };
}

/** Normalises a declared MIME label for comparison (`image/jpg` → `image/jpeg`). */
export function normaliseMime(mime: string): string {
  const m = mime.trim().toLowerCase();
  return m === 'image/jpg' || m === 'image/pjpeg' ? 'image/jpeg' : m;
}

/** Normalises a file extension for comparison with the sniffed type (`jpeg` → `jpg`). */
export function normaliseExtension(ext: string): string {
  const e = ext.toLowerCase();
  return e === 'jpeg' || e === 'jpe' ? 'jpg' : e;
}

/** A data URI decoded and checked: the bytes, their real type and the MIME label it declared. */
export function dataUriImage(uri: string): { readonly bytes: Uint8Array; readonly kind: ImageKind; readonly declared: string } | { readonly error: string } {
  const decoded = parseDataUri(uri);
  if ('error' in decoded) return decoded;
  const kind = identifyImage(decoded.bytes);
  if ('error' in kind) return kind;
  return { bytes: decoded.bytes, kind, declared: decoded.mime };
}
