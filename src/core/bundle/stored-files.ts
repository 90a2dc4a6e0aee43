/**
 * Every file kept beside the cases (a bundle's `sources/`, `prompts/`, any
 * extra file) is stored and exported byte for byte, so each is sniffed by
 * content before that can happen:
 *
 * - DICOM (Part 10 or a raw dataset) and NIfTI go through the same
 *   de-identification as case images: only the NEVOL1 container (pixels and
 *   rendering tags) is kept, under a name made from its hash.
 * - An NEVOL1 container is kept only if it is exactly what NeuroEval writes
 *   (re-encoding it gives the same bytes), so nothing can ride along in it.
 * - DICOM or NIfTI hidden in an archive, a gzip stream or other bytes cannot
 *   be de-identified in place and is refused, naming the file; so is any
 *   compressed or archive format NeuroEval does not open (bzip2, xz, 7-Zip…),
 *   and an image inside an archive that carries metadata.
 * - A picture (PNG, JPEG, WebP, GIF) is stored as pixels only: its text
 *   chunks, EXIF, comments and profiles are removed (imaging/strip-metadata.ts)
 *   and counted for the preview.
 * - Files under `sources/` get neutral names (`sources/<sha256>.<ext>`): a
 *   user's file name there often is the patient's name or record number.
 *
 * Images left as they are (raster images) are checked for an embedded DICOM
 * file too. Problems become import issues; nothing is thrown.
 */
import { InvalidInputError } from '../errors.ts';
import { sha256Hex } from '../hash/sha256.ts';
import { findDicomMarker } from '../imaging/dicom/detect.ts';
import { decodeVolume, encodeVolume, VOLUME_MAGIC, volumeFromDicom, volumeFromNifti } from '../imaging/dicom/serialize.ts';
import { BoundedInflater } from '../imaging/inflate.ts';
import { parseNifti } from '../imaging/nifti/parse.ts';
import { isRasterImageType, sniffImageType } from '../imaging/sniff.ts';
import { stripImageMetadata } from '../imaging/strip-metadata.ts';
import { asDicomFile, parseDicomForImport } from './dicom-input.ts';
import { hiddenMedicalContent } from './hidden-medical.ts';
import type { ImportIssue } from './importer.ts';

interface CheckContext {
  readonly issues: ImportIssue[];
  /** Records a dropped DICOM tag or NIfTI field for the preview's list. */
  readonly note: (tag: string, keyword: string) => void;
  readonly acceptBurnedIn: boolean;
  /** Records a kind of image metadata removed from a picture kept beside the cases. */
  readonly removed: (kind: string) => void;
}

/** The header a gzip-compressed NIfTI starts with, when the stream is one. */
function gzippedNifti(bytes: Uint8Array, path: string): boolean {
  if (sniffImageType(bytes) !== 'gzip') return false;
  try {
    const head = new BoundedInflater(bytes, 'gzip', 1024 ** 3, path).take(552);
    const inner = sniffImageType(head);
    return inner === 'nifti1' || inner === 'nifti2';
  } catch {
    // A damaged stream is left to the hidden-content check, which says so.
    return false;
  }
}

function isContainer(bytes: Uint8Array): boolean {
  return bytes.length >= VOLUME_MAGIC.length && String.fromCharCode(...bytes.subarray(0, VOLUME_MAGIC.length)) === VOLUME_MAGIC;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The extension of a neutral name, from the content. */
function extensionFor(bytes: Uint8Array): string {
  if (isContainer(bytes)) return 'nevol';
  const type = sniffImageType(bytes);
  return type === 'jpeg' ? 'jpg' : (type ?? 'bin');
}

function error(path: string, message: string, field?: string): ImportIssue {
  return { severity: 'error', message, location: { file: path, ...(field ? { field } : {}) } };
}

/** The de-identified container for a medical side file, or null when it is not one. Throws typed errors. */
function deidentify(path: string, bytes: Uint8Array, ctx: CheckContext): { container: Uint8Array; kind: string; dropped: number } | null {
  const dicom = asDicomFile(bytes, path);
  if (dicom) {
    const { parsed, warning } = parseDicomForImport(dicom, path, ctx.acceptBurnedIn);
    if (warning) ctx.issues.push(warning);
    parsed.dropped.forEach((t) => ctx.note(t.tag, t.name));
    return { container: encodeVolume(volumeFromDicom(parsed)), kind: 'DICOM', dropped: parsed.dropped.reduce((n, t) => n + t.count, 0) };
  }
  const type = sniffImageType(bytes);
  if (type === 'nifti1' || type === 'nifti2' || gzippedNifti(bytes, path)) {
    const parsed = parseNifti(bytes, path);
    parsed.dropped.forEach((name) => ctx.note(`nifti:${name}`, name));
    return { container: encodeVolume(volumeFromNifti(parsed)), kind: 'NIfTI', dropped: parsed.dropped.length };
  }
  return null;
}

/** Checks and, where needed, replaces the side files in place (the map is the draft's copy). */
export function checkStoredFiles(files: Map<string, Uint8Array>, images: ReadonlyMap<string, Uint8Array>, ctx: CheckContext): void {
  for (const [path, bytes] of [...files]) {
    if (isContainer(bytes)) {
      let same = false;
      try {
        same = sameBytes(encodeVolume(decodeVolume(bytes, path)), bytes);
      } catch (e) {
        if (!(e instanceof InvalidInputError)) throw e;
      }
      if (!same) {
        files.delete(path);
        ctx.issues.push(error(path, `"${path}" is an image source container that NeuroEval did not write as is (it is damaged or holds more than pixels and rendering fields), so it could carry patient data. Remove it, or export the benchmark again from NeuroEval.`));
        continue;
      }
    } else {
      let converted: ReturnType<typeof deidentify>;
      try {
        converted = deidentify(path, bytes, ctx);
      } catch (e) {
        if (!(e instanceof InvalidInputError)) throw e;
        files.delete(path);
        ctx.issues.push(error(path, `A medical image kept beside the cases is stored only de-identified, and "${path}" cannot be: ${e.message}`, e.location?.field));
        continue;
      }
      if (converted) {
        files.delete(path);
        const asset = sha256Hex(converted.container);
        files.set(`sources/${asset}.nevol`, converted.container);
        ctx.issues.push({
          severity: 'warning',
          message: `"${path}" is a ${converted.kind} file: only a de-identified copy of its pixels and rendering fields is kept (sources/${asset.slice(0, 12)}….nevol); the file itself and its ${converted.dropped} other ${converted.kind === 'DICOM' ? 'tags' : 'header fields'} are not stored.`,
          location: { file: path },
        });
        continue;
      }
      const hidden = hiddenMedicalContent(bytes, path);
      if (hidden) {
        files.delete(path);
        ctx.issues.push(error(path, `"${path}" ${hidden}. Files beside the cases are stored as they are, so it cannot be de-identified: unpack it and refer to its images from cases (they are then de-identified), or remove it.`));
        continue;
      }
    }
    let stored = bytes;
    const type = sniffImageType(bytes);
    if (isRasterImageType(type)) {
      try {
        const stripped = stripImageMetadata(bytes, type, path);
        stripped.removed.forEach(ctx.removed);
        stored = stripped.bytes;
      } catch (e) {
        if (!(e instanceof InvalidInputError)) throw e;
        files.delete(path);
        ctx.issues.push(error(path, `"${path}" is stored as pixels only, and its metadata cannot be removed: ${e.message}`));
        continue;
      }
    }
    if (path.startsWith('sources/')) {
      files.delete(path);
      files.set(`sources/${sha256Hex(stored)}.${extensionFor(stored)}`, stored);
    } else if (stored !== bytes) files.set(path, stored);
  }
  for (const [path, bytes] of images) {
    const at = findDicomMarker(bytes);
    if (at >= 0) {
      ctx.issues.push(error(path, `"${path}" holds a DICOM file inside it (a "DICM" marker at byte ${at}). Images are stored byte for byte, so it cannot be de-identified: export the image again without it.`));
    }
  }
}
