/**
 * What a DICOM file's read-only attributes (imaging/dicom/attributes.ts)
 * become on a case: pseudonymous keys and checked technical tags, under the
 * `dicom.*` meta keys the results side reads. Identity values (patient ID,
 * study and series UIDs) are only ever hashed with a salt made for the
 * benchmark at import: the salt is stored with the benchmark and never
 * exported, so the keys group slices of one patient inside NeuroEval but
 * cannot be recomputed from a hospital's records elsewhere.
 */
import { sha256Hex } from '../hash/sha256.ts';
import type { DicomAttributes } from '../imaging/dicom/attributes.ts';
import type { ImportIssue } from './importers/importer.ts';

/** The case meta keys written from DICOM attributes. Other code groups and clusters by these names. */
const DICOM_META = {
  manufacturer: 'dicom.manufacturer',
  model: 'dicom.model',
  fieldStrength: 'dicom.fieldStrength',
  sliceThickness: 'dicom.sliceThickness',
  sequence: 'dicom.sequence',
  protocol: 'dicom.protocol',
  contrast: 'dicom.contrast',
  patientKey: 'dicom.patientKey',
  studyKey: 'dicom.studyKey',
  seriesKey: 'dicom.seriesKey',
} as const;

/** Technical tags whose (checked) values are kept: not reported as dropped. */
export const KEPT_AS_META: ReadonlySet<string> = new Set(['Manufacturer', 'ManufacturerModelName', 'MagneticFieldStrength', 'SequenceName', 'ProtocolName', 'ContrastBolusAgent']);

/**
 * Fields whose refusal the user can lift with "accept burned-in annotation"
 * (dicom-input.ts refuses with them; the app offers the tick box for them).
 */
export const BURNED_IN_FIELDS: ReadonlySet<string> = new Set(['BurnedInAnnotation', 'SOPClassUID', 'ConversionType', 'ImageType', 'Modality']);

const SALT_BYTES = 16;

/** A new random salt for one benchmark's keys (hex). */
export function newKeySalt(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** 16 hex digits of SHA-256 over salt, kind and value: enough to never collide within a benchmark, short enough to read. */
function saltedKey(salt: string, kind: string, value: string): string {
  return sha256Hex(`${salt}\u0000${kind}\u0000${value}`).slice(0, 16);
}

export interface PseudonymousKeys {
  readonly patientKey?: string;
  readonly studyKey?: string;
  readonly seriesKey?: string;
}

/**
 * Salted keys from the identity tags. The patient is PatientID (with its
 * issuer, as two hospitals may reuse numbers), else name and birth date;
 * a file with none of them has no patient key rather than a guessed one.
 */
export function pseudonymousKeys(a: DicomAttributes, salt: string): PseudonymousKeys {
  const patient = a.PatientID ? `id:${a.IssuerOfPatientID ?? ''}:${a.PatientID}` : a.PatientName ? `name:${a.PatientName}:${a.PatientBirthDate ?? ''}` : undefined;
  return {
    ...(patient ? { patientKey: saltedKey(salt, 'patient', patient) } : {}),
    ...(a.StudyInstanceUID ? { studyKey: saltedKey(salt, 'study', a.StudyInstanceUID) } : {}),
    ...(a.SeriesInstanceUID ? { seriesKey: saltedKey(salt, 'series', `${a.StudyInstanceUID ?? ''}:${a.SeriesInstanceUID}`) } : {}),
  };
}

/** Printable text only, one space between words, at most 64 characters (the longest LO value). */
function clean(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const s = value.replace(/[^\x20-\x7e]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 64);
  return s === '' ? undefined : s;
}

/** A DS value as written (trimmed), when it is one finite number. */
function decimal(value: string | undefined): string | undefined {
  const s = value?.split('\\')[0]?.trim();
  return s && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) && Number.isFinite(Number(s)) ? s : undefined;
}

/**
 * The patient's own words that free text must not carry: name parts and
 * IDs of three characters or more, upper-cased. Used only for the check
 * below; never stored.
 */
function identifyingWords(a: DicomAttributes): string[] {
  const words = [a.PatientID, ...(a.PatientName ?? '').split(/[\^=\s,]+/)].filter((w): w is string => !!w && w.length >= 3);
  return words.map((w) => w.toUpperCase());
}

/**
 * The technical meta of a file. Sequence and protocol names are free text a
 * technologist typed, sometimes with the patient's name in it: a value that
 * contains the patient's name or ID is left out with a warning.
 */
function technicalMeta(a: DicomAttributes, file: string): { meta: Record<string, string>; issues: ImportIssue[] } {
  const meta: Record<string, string> = {};
  const issues: ImportIssue[] = [];
  const forbidden = identifyingWords(a);
  const put = (key: string, field: string, value: string | undefined) => {
    if (value === undefined) return;
    if (forbidden.some((w) => value.toUpperCase().includes(w))) {
      issues.push({ severity: 'warning', message: `"${file}": ${field} contains the patient's name or ID, so it is not kept.`, location: { file, field } });
      return;
    }
    meta[key] = value;
  };
  put(DICOM_META.manufacturer, 'Manufacturer', clean(a.Manufacturer));
  put(DICOM_META.model, 'ManufacturerModelName', clean(a.ManufacturerModelName));
  const tesla = decimal(a.MagneticFieldStrength);
  // Older GE scanners wrote gauss (15000 for 1.5 T); no clinical magnet is above 100 T.
  put(DICOM_META.fieldStrength, 'MagneticFieldStrength', tesla !== undefined && Number(tesla) > 100 ? String(Number(tesla) / 10000) : tesla);
  put(DICOM_META.sliceThickness, 'SliceThickness', decimal(a.SliceThickness));
  put(DICOM_META.sequence, 'SequenceName', clean(a.SequenceName));
  put(DICOM_META.protocol, 'ProtocolName', clean(a.ProtocolName));
  if (a.ContrastBolusAgent !== undefined) {
    // Type 2 in the Contrast/Bolus module: present but empty means no agent was given.
    const agent = clean(a.ContrastBolusAgent);
    put(DICOM_META.contrast, 'ContrastBolusAgent', agent === undefined || /^(NO|NONE|N)$/i.test(agent) ? 'no' : /^(YES|Y)$/i.test(agent) ? 'yes' : agent);
  }
  return { meta, issues };
}

/** The case meta of a file: technical tags plus its pseudonymous keys. */
export function dicomCaseMeta(a: DicomAttributes, salt: string, file: string): { meta: Record<string, string>; issues: ImportIssue[] } {
  const { meta, issues } = technicalMeta(a, file);
  const keys = pseudonymousKeys(a, salt);
  if (keys.patientKey) meta[DICOM_META.patientKey] = keys.patientKey;
  if (keys.studyKey) meta[DICOM_META.studyKey] = keys.studyKey;
  if (keys.seriesKey) meta[DICOM_META.seriesKey] = keys.seriesKey;
  return { meta, issues };
}
