/**
 * Looks inside files that would be stored byte for byte (extra files of a
 * bundle, images) for medical images they would carry along unseen: a
 * DICOM or NIfTI file inside a ZIP (at any depth), inside a gzip stream,
 * or embedded in other bytes (a TAR, an image with a DICOM file appended).
 * Such content cannot be de-identified in place, so the caller refuses it.
 */
import { InvalidInputError } from '../errors.ts';
import { detectDicom, findDicomMarker } from '../imaging/dicom/detect.ts';
import { BoundedInflater } from '../imaging/inflate.ts';
import { sniffImageType } from '../imaging/sniff.ts';
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

/**
 * Why `bytes` (named `name`) cannot be stored as they are, or null when they
 * hold no medical image. The reason names the inner file where there is one.
 */
export function hiddenMedicalContent(bytes: Uint8Array, name: string, depth = 0): string | null {
  if (isZip(bytes)) {
    if (depth >= MAX_DEPTH) return `is an archive nested more than ${MAX_DEPTH} deep, which cannot be checked for patient data`;
    let entries: Map<string, Uint8Array>;
    try {
      entries = readZip(bytes, name);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      return `is an archive that cannot be opened to check it for patient data (${error.message})`;
    }
    for (const [inner, data] of entries) {
      const kind = medicalKind(data);
      if (kind) return `is an archive holding a ${kind} file ("${inner}")`;
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
