/**
 * Looks inside files that would be stored byte for byte (extra files of a
 * bundle, images) for what they would carry along unseen: a DICOM or NIfTI
 * file inside a ZIP, a TAR or a gzip stream (at any depth) or embedded in
 * other bytes (an image with a DICOM file appended); a compressed or archive
 * format NeuroEval does not open (bzip2, xz, Zstandard, 7-Zip, RAR…,
 * unread-formats.ts), which no byte search can see into; and an image inside
 * an archive that carries metadata (text chunks, EXIF), which cannot be
 * removed there. Such content cannot be de-identified in place, so the
 * caller refuses it.
 */
import { InvalidInputError } from '../errors.ts';
import { detectDicom, findDicomMarker } from '../imaging/dicom/detect.ts';
import { BoundedInflater } from '../imaging/inflate.ts';
import { isRasterImageType, sniffImageType } from '../imaging/sniff.ts';
import { stripImageMetadata } from '../imaging/strip-metadata.ts';
import { unreadFormat, unreadFormatPhrase } from './unread-formats.ts';
import { readZip } from './zip-read.ts';

/** Archives inside archives deeper than this are refused rather than checked forever. */
const MAX_DEPTH = 4;
/** Most bytes a gzip stream found among stored files is inflated to for checking. */
const MAX_INFLATED = 1024 ** 3;

/** "DICOM" or "NIfTI" when the bytes themselves are such a file (raw DICOM datasets included). */
function medicalKind(bytes: Uint8Array): 'DICOM' | 'NIfTI' | null {
  if (detectDicom(bytes)) return 'DICOM';
  const type = sniffImageType(bytes);
  return type === 'nifti1' || type === 'nifti2' ? 'NIfTI' : null;
}

function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6));
}

function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** A POSIX or GNU TAR archive: "ustar" in its first header. */
function isTar(bytes: Uint8Array): boolean {
  return bytes.length >= 512 && String.fromCharCode(...bytes.subarray(257, 262)) === 'ustar';
}

/** A TAR header's octal (or GNU base-256) number field. */
function tarNumber(field: Uint8Array): number {
  if (field[0]! & 0x80) {
    let n = 0;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i]!;
    return n;
  }
  const s = String.fromCharCode(...field).replace(/[\0 ]+/g, ' ').trim();
  return /^[0-7]+$/.test(s) ? parseInt(s, 8) : s === '' ? 0 : Number.NaN;
}

/**
 * The members of a TAR archive (names and bytes; pax and long-name records
 * are members too: they are text that is checked like any other).
 * @throws InvalidInputError when a header is damaged or a member runs past the end.
 */
function readTar(bytes: Uint8Array, name: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  let pos = 0;
  while (pos + 512 <= bytes.length) {
    const header = bytes.subarray(pos, pos + 512);
    if (header.every((b) => b === 0)) break;
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
    if (tarNumber(header.subarray(148, 156)) !== sum) throw new InvalidInputError(`the header at byte ${pos} is damaged (its checksum does not match)`, { file: name });
    const size = tarNumber(header.subarray(124, 136));
    if (!Number.isFinite(size) || pos + 512 + size > bytes.length) throw new InvalidInputError(`a member at byte ${pos} runs past the end of the archive`, { file: name });
    const member = String.fromCharCode(...header.subarray(0, 100)).replace(/\0.*$/s, '') || `member at byte ${pos}`;
    out.set(out.has(member) ? `${member} (at byte ${pos})` : member, bytes.subarray(pos + 512, pos + 512 + size));
    pos += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

/** What an image inside an archive carries that cannot be removed there, or null. */
function imageProblem(data: Uint8Array, name: string): string | null {
  const type = sniffImageType(data);
  if (!isRasterImageType(type) || type === 'bmp') return null;
  try {
    const { removed } = stripImageMetadata(data, type, name);
    return removed.length ? `an image that carries metadata (${removed.join(', ')}), which cannot be removed inside the archive` : null;
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return `an image that cannot be read (${error.message})`;
  }
}

/**
 * Why `bytes` (named `name`) cannot be stored as they are, or null when they
 * hold nothing that could carry patient data unseen. The reason names the
 * inner file where there is one.
 */
export function hiddenMedicalContent(bytes: Uint8Array, name: string, depth = 0): string | null {
  const unread = unreadFormat(bytes);
  if (unread) return `is ${unreadFormatPhrase(unread)}, a format NeuroEval does not open to check for patient data`;
  const zip = isZip(bytes);
  if (zip || isTar(bytes)) {
    if (depth >= MAX_DEPTH) return `is an archive nested more than ${MAX_DEPTH} deep, which cannot be checked for patient data`;
    let entries: Map<string, Uint8Array>;
    try {
      entries = zip ? readZip(bytes, name) : readTar(bytes, name);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      return `is an archive that cannot be opened to check it for patient data (${error.message})`;
    }
    for (const [inner, data] of entries) {
      const kind = medicalKind(data);
      if (kind) return `is an archive holding a ${kind} file ("${inner}")`;
      const image = imageProblem(data, `${name}/${inner}`);
      if (image) return `is an archive holding ${image} ("${inner}")`;
      const deeper = hiddenMedicalContent(data, `${name}/${inner}`, depth + 1);
      if (deeper) return `is an archive whose "${inner}" ${deeper}`;
    }
    return null;
  }
  if (isGzip(bytes)) {
    if (depth >= MAX_DEPTH) return `is compressed more than ${MAX_DEPTH} levels deep, which cannot be checked for patient data`;
    let inflated: Uint8Array;
    try {
      inflated = new BoundedInflater(bytes, 'gzip', MAX_INFLATED, name).takeAll();
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      return `is a gzip stream that cannot be opened to check it for patient data (${error.message})`;
    }
    const kind = medicalKind(inflated);
    if (kind) return `is a gzip-compressed ${kind} file`;
    const deeper = hiddenMedicalContent(inflated, name, depth + 1);
    return deeper ? `is gzip-compressed and ${deeper.replace(/^is /, '')}` : null;
  }
  const at = findDicomMarker(bytes);
  return at >= 0 ? `holds a DICOM file inside it (a "DICM" marker at byte ${at})` : null;
}
