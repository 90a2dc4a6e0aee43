/**
 * Finding DICOM by content, wherever it is, so that no file is stored with
 * patient data just because it was not named `.dcm` or lacked a preamble.
 *
 * What is detectable:
 * - Part 10 files: "DICM" at byte 128 (see sniff.ts).
 * - Raw datasets without preamble or file meta group (older exports, some
 *   PACS dumps), in Implicit or Explicit VR Little Endian, and Explicit VR
 *   Big Endian: the first elements are walked and must have ascending tags in
 *   a dataset's usual first groups, known VRs (explicit) and lengths that fit
 *   the file. Text, JSON, PNG, JPEG, ZIP and NEVOL1 never pass this walk.
 * - A Part 10 file hidden inside another file (a TAR, an uncompressed ZIP
 *   entry, bytes appended to a PNG): its "DICM" marker followed by the file
 *   meta group's first tag (0002,xxxx little-endian) anywhere in the bytes.
 *
 * Not detectable: a raw dataset compressed as a whole (Deflated without a
 * header), or one encrypted or split; compressed containers (ZIP, gzip) are
 * opened by the callers and their contents checked with these functions.
 */

const PREAMBLE = 128;
const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV']);
const ALL_VRS = new Set([...LONG_VRS, 'AE', 'AS', 'AT', 'CS', 'DA', 'DS', 'DT', 'FD', 'FL', 'IS', 'LO', 'LT', 'PN', 'SH', 'SL', 'SS', 'ST', 'TM', 'UI', 'UL', 'US']);
/** Groups a dataset starts with: file meta, identifying/study, patient, acquisition, relationship, image. */
const FIRST_GROUPS = new Set([0x0002, 0x0008, 0x0010, 0x0018, 0x0020, 0x0028]);
/** Elements walked before deciding: enough that random bytes practically never pass. */
const ELEMENTS_TO_CHECK = 4;

/** How DICOM content presents itself: a Part 10 file, or a raw dataset in a given encoding. */
export type DicomContent = { readonly kind: 'part10' } | { readonly kind: 'dataset'; readonly littleEndian: boolean; readonly explicitVR: boolean };

function ascii(bytes: Uint8Array, offset: number, length: number): string {
  let s = '';
  for (let i = 0; i < length && offset + i < bytes.length; i++) s += String.fromCharCode(bytes[offset + i]!);
  return s;
}

/** True when the first elements of `bytes` read as a dataset in this encoding. */
function walksAsDataset(bytes: Uint8Array, littleEndian: boolean, explicitVR: boolean): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  let previous = -1;
  let count = 0;
  while (count < ELEMENTS_TO_CHECK) {
    if (pos === bytes.length) return count >= 2;
    if (pos + 8 > bytes.length) return false;
    const group = view.getUint16(pos, littleEndian);
    const tag = group * 0x10000 + view.getUint16(pos + 2, littleEndian);
    if (tag <= previous || group === 0xfffe || (count === 0 && !FIRST_GROUPS.has(group))) return false;
    let length: number;
    let header = 8;
    if (explicitVR) {
      const vr = ascii(bytes, pos + 4, 2);
      if (!ALL_VRS.has(vr)) return false;
      if (LONG_VRS.has(vr)) {
        if (pos + 12 > bytes.length || view.getUint16(pos + 6, littleEndian) !== 0) return false;
        length = view.getUint32(pos + 8, littleEndian);
        header = 12;
      } else length = view.getUint16(pos + 6, littleEndian);
    } else length = view.getUint32(pos + 4, littleEndian);
    count++;
    // A sequence of undefined length ends only at its delimiter; what was walked so far decides.
    if (length === 0xffffffff) return count >= 2;
    if (pos + header + length > bytes.length) return false;
    pos += header + length;
    previous = tag;
  }
  return true;
}

/** What DICOM content `bytes` hold at their start, or null when they are not DICOM. */
export function detectDicom(bytes: Uint8Array): DicomContent | null {
  if (ascii(bytes, PREAMBLE, 4) === 'DICM') return { kind: 'part10' };
  for (const [littleEndian, explicitVR] of [[true, true], [true, false], [false, true]] as const) {
    if (walksAsDataset(bytes, littleEndian, explicitVR)) return { kind: 'dataset', littleEndian, explicitVR };
  }
  return null;
}

/**
 * Offset of a Part 10 file's "DICM" marker anywhere in `bytes` (followed by a
 * file meta tag), or -1. A file that is itself Part 10 matches at 128.
 */
export function findDicomMarker(bytes: Uint8Array, from = 0): number {
  for (let i = bytes.indexOf(0x44, from); i >= 0 && i + 6 <= bytes.length; i = bytes.indexOf(0x44, i + 1)) {
    if (bytes[i + 1] === 0x49 && bytes[i + 2] === 0x43 && bytes[i + 3] === 0x4d && bytes[i + 4] === 0x02 && bytes[i + 5] === 0x00) return i;
  }
  return -1;
}

/**
 * A little-endian raw dataset as a Part 10 file (empty preamble, "DICM", no
 * file meta group), which the parser reads by guessing the VR mode from the
 * first element: so a raw dataset goes through the same keep-list.
 */
export function asPart10(dataset: Uint8Array): Uint8Array {
  const out = new Uint8Array(PREAMBLE + 4 + dataset.length);
  out.set([0x44, 0x49, 0x43, 0x4d], PREAMBLE);
  out.set(dataset, PREAMBLE + 4);
  return out;
}
