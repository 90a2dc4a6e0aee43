/**
 * DICOM as the importer receives it, wherever it sits in the input: raw
 * datasets are read like Part 10 files, and the burned-in annotation rule
 * is applied before anything derived from the file is kept.
 */
import { InvalidInputError } from '../errors.ts';
import { asPart10, detectDicom } from '../imaging/dicom/detect.ts';
import { parseDicom } from '../imaging/dicom/parse.ts';
import type { ParsedDicom } from '../imaging/dicom/types.ts';
import type { ImportIssue } from './importers/importer.ts';

/**
 * The bytes as a Part 10 file when they are DICOM at all (raw datasets get an
 * empty preamble so the parser and its keep-list read them), else null.
 * Raw big-endian datasets are refused: the parser would guess little-endian.
 */
export function asDicomFile(bytes: Uint8Array, path: string): Uint8Array | null {
  const found = detectDicom(bytes);
  if (!found) return null;
  if (found.kind === 'part10') return bytes;
  if (!found.littleEndian) {
    throw new InvalidInputError(
      `"${path}" is a DICOM dataset without the Part 10 header, in big-endian byte order, which cannot be de-identified here. Export it as a DICOM Part 10 file (Explicit VR Little Endian) and import it again.`,
      { file: path },
    );
  }
  return asPart10(bytes);
}

/** Parses a DICOM file and applies the burned-in annotation rule; throws a typed error naming the file. */
export function parseDicomForImport(bytes: Uint8Array, path: string, acceptBurnedIn: boolean): { parsed: ParsedDicom; warning?: ImportIssue } {
  const parsed = parseDicom(bytes, path);
  if (!parsed.burnedInAnnotation) return { parsed };
  if (!acceptBurnedIn) {
    throw new InvalidInputError(
      `"${path}" says its pixels carry burned-in annotation (BurnedInAnnotation (0028,0301) is YES): text such as the patient's name may be written into the image itself, and removing tags cannot take it out. Mask or remove the annotation and import again, or, after checking the pixels yourself, import with "accept burned-in annotation" (CLI: --accept-burned-in).`,
      { file: path, field: 'BurnedInAnnotation' },
    );
  }
  return {
    parsed,
    warning: { severity: 'warning', message: `"${path}" has burned-in annotation (BurnedInAnnotation YES); imported because you accepted burned-in annotation. Its pixels are kept as they are.`, location: { file: path, field: 'BurnedInAnnotation' } },
  };
}
