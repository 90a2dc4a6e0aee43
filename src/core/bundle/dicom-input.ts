/**
 * DICOM as the importer receives it, wherever it sits in the input: raw
 * datasets are read like Part 10 files, and the burned-in annotation rule
 * is applied before anything derived from the file is kept.
 */
import { InvalidInputError } from '../errors.ts';
import { asPart10, detectDicom } from '../imaging/dicom/detect.ts';
import { parseDicom } from '../imaging/dicom/parse.ts';
import type { ParsedDicom } from '../imaging/dicom/types.ts';
import type { ImportIssue } from './importer.ts';

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

/**
 * Secondary captures are pictures of something else (a screen, a film, a
 * report): they are where names, dates and record numbers get drawn into the
 * pixels, whatever BurnedInAnnotation says. Known by SOP class, by the SC
 * module's ConversionType, by ImageType naming a screenshot, or by the
 * Modality some writers give them.
 */
const SECONDARY_CAPTURE_CLASSES: ReadonlyMap<string, string> = new Map([
  ['1.2.840.10008.5.1.4.1.1.7', 'Secondary Capture Image Storage'],
  ['1.2.840.10008.5.1.4.1.1.7.1', 'Multi-frame Single Bit Secondary Capture Image Storage'],
  ['1.2.840.10008.5.1.4.1.1.7.2', 'Multi-frame Grayscale Byte Secondary Capture Image Storage'],
  ['1.2.840.10008.5.1.4.1.1.7.3', 'Multi-frame Grayscale Word Secondary Capture Image Storage'],
  ['1.2.840.10008.5.1.4.1.1.7.4', 'Multi-frame True Color Secondary Capture Image Storage'],
]);

/** Why this file's pixels are likely to carry text, naming the tag, or null. */
function burnedInText(parsed: ParsedDicom): { field: string; reason: string } | null {
  if (parsed.burnedInAnnotation) return { field: 'BurnedInAnnotation', reason: "says its pixels carry burned-in annotation (BurnedInAnnotation (0028,0301) is YES): text such as the patient's name may be written into the image itself" };
  const a = parsed.attributes ?? {};
  const sop = a.SOPClassUID ? SECONDARY_CAPTURE_CLASSES.get(a.SOPClassUID) : undefined;
  const capture = "a secondary capture, a picture of a screen, film or document, where the patient's name and dates are often drawn into the pixels";
  if (sop) return { field: 'SOPClassUID', reason: `is ${capture} (SOP class ${sop})` };
  if (a.ConversionType) return { field: 'ConversionType', reason: `is ${capture} (ConversionType (0008,0064) is ${a.ConversionType.replace(/[^A-Z]/g, '') || 'set'})` };
  if (a.ImageType && /SCREEN ?SHOT|SCREEN CAPTURE/i.test(a.ImageType)) return { field: 'ImageType', reason: "is a screenshot (ImageType (0008,0008) says so): text such as the patient's name is usually part of the picture" };
  if (a.Modality === 'SC' || parsed.kept.modality === 'SC') return { field: 'Modality', reason: `is ${capture} (Modality (0008,0060) is SC)` };
  return null;
}

/**
 * Parses a DICOM file and applies the burned-in text rule (BurnedInAnnotation
 * YES, or a secondary capture or screenshot); throws a typed error naming the
 * file and the tag.
 */
export function parseDicomForImport(bytes: Uint8Array, path: string, acceptBurnedIn: boolean): { parsed: ParsedDicom; warning?: ImportIssue } {
  const parsed = parseDicom(bytes, path);
  const found = burnedInText(parsed);
  if (!found) return { parsed };
  if (!acceptBurnedIn) {
    throw new InvalidInputError(
      `"${path}" ${found.reason}, and removing tags cannot take it out. Mask or remove the text and import again, or, after checking the pixels yourself, import with "accept burned-in annotation" (CLI: --accept-burned-in).`,
      { file: path, field: found.field },
    );
  }
  const what = found.field === 'BurnedInAnnotation' ? 'has burned-in annotation (BurnedInAnnotation YES)' : `may have text in its pixels (${found.field})`;
  return {
    parsed,
    warning: { severity: 'warning', message: `"${path}" ${what}; imported because you accepted burned-in annotation. Its pixels are kept as they are.`, location: { file: path, field: found.field } },
  };
}
