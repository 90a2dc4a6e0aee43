/**
 * Tags read beside the rendering keep-list, to decide and to group, never
 * stored as read: the import turns the identity tags into salted hashes
 * (patient, study, series keys), the type tags into a refusal when the
 * pixels are likely to carry burned-in text, and the technical tags into a
 * few checked strings kept on the case for analysis, and the descriptive
 * free text into nothing unless an import asks to keep it cleaned (see
 * core/bundle/dicom-meta.ts). Nothing here reaches the stored image source:
 * the NEVOL container is built from the rendering header only.
 */
import { tagOf } from './dictionary.ts';

/** Keyword → tag of every attribute read; values stay in memory for one import. */
const ATTRIBUTE_TAGS = {
  // Identity: hashed with the benchmark's salt, the values themselves are dropped.
  PatientID: tagOf(0x0010, 0x0020),
  IssuerOfPatientID: tagOf(0x0010, 0x0021),
  PatientName: tagOf(0x0010, 0x0010),
  PatientBirthDate: tagOf(0x0010, 0x0030),
  StudyInstanceUID: tagOf(0x0020, 0x000d),
  SeriesInstanceUID: tagOf(0x0020, 0x000e),
  // Type: secondary captures and screenshots are refused by default (text drawn into the pixels).
  SOPClassUID: tagOf(0x0008, 0x0016),
  ImageType: tagOf(0x0008, 0x0008),
  ConversionType: tagOf(0x0008, 0x0064),
  Modality: tagOf(0x0008, 0x0060),
  // How text values are encoded (ISO_IR 100, ISO_IR 192…): read to decode the text below and the name compared with it.
  SpecificCharacterSet: tagOf(0x0008, 0x0005),
  // Technical: kept on the case (dicom.* meta) once checked.
  Manufacturer: tagOf(0x0008, 0x0070),
  ManufacturerModelName: tagOf(0x0008, 0x1090),
  MagneticFieldStrength: tagOf(0x0018, 0x0087),
  SliceThickness: tagOf(0x0018, 0x0050),
  SequenceName: tagOf(0x0018, 0x0024),
  ProtocolName: tagOf(0x0018, 0x1030),
  ContrastBolusAgent: tagOf(0x0018, 0x0010),
  // Descriptive free text: dropped unless an import opts in, then cleaned (PS3.15 Annex E, Clean Descriptors).
  SeriesDescription: tagOf(0x0008, 0x103e),
  StudyDescription: tagOf(0x0008, 0x1030),
  PerformedProcedureStepDescription: tagOf(0x0040, 0x0254),
} as const;

export type AttributeKeyword = keyof typeof ATTRIBUTE_TAGS;

/** Top-level values of the attributes a file has, as trimmed text; present-but-empty is the empty string. */
export type DicomAttributes = Readonly<Partial<Record<AttributeKeyword, string>>>;

const KEYWORD_BY_TAG: ReadonlyMap<number, AttributeKeyword> = new Map(
  (Object.entries(ATTRIBUTE_TAGS) as [AttributeKeyword, number][]).map(([k, t]) => [t, k]),
);

/** The attribute a tag is, if it is one. */
export function attributeKeyword(tag: number): AttributeKeyword | undefined {
  return KEYWORD_BY_TAG.get(tag);
}

/**
 * Text of an attribute's value: all the VRs read here are character strings
 * (or DS numbers written as text). Latin-1 keeps every byte one character,
 * so a value in another character set is compared and hashed consistently.
 */
export function attributeText(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return s.replace(/[\0 ]+$/, '').trim();
}
