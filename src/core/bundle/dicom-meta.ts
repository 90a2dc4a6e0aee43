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
import type { ImportIssue } from './importer.ts';

/** The case meta keys written from DICOM attributes. Other code groups and clusters by these names. */
const DICOM_META = {
  manufacturer: 'dicom.manufacturer',
  model: 'dicom.model',
  fieldStrength: 'dicom.fieldStrength',
  sliceThickness: 'dicom.sliceThickness',
  sequence: 'dicom.sequence',
  protocol: 'dicom.protocol',
  seriesDescription: 'dicom.seriesDescription',
  studyDescription: 'dicom.studyDescription',
  procedureDescription: 'dicom.procedureDescription',
  contrast: 'dicom.contrast',
  patientKey: 'dicom.patientKey',
  studyKey: 'dicom.studyKey',
  seriesKey: 'dicom.seriesKey',
} as const;

/** Import options of the DICOM meta (from the preview's tick box or `--keep-dicom-descriptions`). */
export interface DicomMetaOptions {
  /**
   * Keep the descriptive free text (protocol and sequence names, series,
   * study and procedure descriptions, the contrast agent's name), cleaned by
   * PS3.15 Annex E's Clean Descriptors rule. Off by default: only coded
   * technical tags are kept.
   */
  readonly keepDescriptions?: boolean;
}

/** The import option that turns {@link DicomMetaOptions.keepDescriptions} on. */
export const KEEP_DESCRIPTIONS_OPTION = 'keepDicomDescriptions';

/** The meta options of an import's options object. */
export function dicomMetaOptions(options: Readonly<Record<string, unknown>> | undefined): DicomMetaOptions {
  return { keepDescriptions: options?.[KEEP_DESCRIPTIONS_OPTION] === true };
}

/** Technical tags kept by default (checked); ContrastBolusAgent only as yes or no. */
const TECHNICAL_KEPT = ['Manufacturer', 'ManufacturerModelName', 'MagneticFieldStrength', 'ContrastBolusAgent'];
/** Descriptive free text (PS3.15 Table E.1-1 marks each X/C: removed, or cleaned under Clean Descriptors). */
const DESCRIPTIVE = ['SequenceName', 'ProtocolName', 'SeriesDescription', 'StudyDescription', 'PerformedProcedureStepDescription'];

/** Tags whose (checked) values are kept as meta: not reported as dropped. */
export function keptAsMeta(options: DicomMetaOptions = {}): ReadonlySet<string> {
  return new Set(options.keepDescriptions ? [...TECHNICAL_KEPT, ...DESCRIPTIVE] : TECHNICAL_KEPT);
}

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

/** DICOM character set terms (0008,0005) and the WHATWG encoding of each. */
const CHARSETS: Readonly<Record<string, string>> = {
  'ISO_IR 6': 'windows-1252', 'ISO 2022 IR 6': 'windows-1252',
  'ISO_IR 100': 'windows-1252', 'ISO 2022 IR 100': 'windows-1252',
  'ISO_IR 101': 'iso-8859-2', 'ISO 2022 IR 101': 'iso-8859-2',
  'ISO_IR 109': 'iso-8859-3', 'ISO 2022 IR 109': 'iso-8859-3',
  'ISO_IR 110': 'iso-8859-4', 'ISO 2022 IR 110': 'iso-8859-4',
  'ISO_IR 144': 'iso-8859-5', 'ISO 2022 IR 144': 'iso-8859-5',
  'ISO_IR 127': 'iso-8859-6', 'ISO 2022 IR 127': 'iso-8859-6',
  'ISO_IR 126': 'iso-8859-7', 'ISO 2022 IR 126': 'iso-8859-7',
  'ISO_IR 138': 'iso-8859-8', 'ISO 2022 IR 138': 'iso-8859-8',
  'ISO_IR 148': 'iso-8859-9', 'ISO 2022 IR 148': 'iso-8859-9',
  'ISO_IR 203': 'iso-8859-15', 'ISO 2022 IR 203': 'iso-8859-15',
  'ISO_IR 166': 'windows-874', 'ISO 2022 IR 166': 'windows-874',
  'ISO_IR 13': 'shift_jis', 'ISO 2022 IR 13': 'shift_jis',
  'ISO 2022 IR 87': 'iso-2022-jp', 'ISO 2022 IR 159': 'iso-2022-jp',
  'ISO 2022 IR 149': 'euc-kr',
  'ISO 2022 IR 58': 'gbk',
  'ISO_IR 192': 'utf-8',
  GB18030: 'gb18030',
  GBK: 'gbk',
};

/**
 * An attribute's text in the file's character set. attributes.ts reads every
 * byte as one Latin-1 character; this turns those bytes back into the
 * letters they are, so `MÜLLER` in UTF-8 and in ISO_IR 100 both read MÜLLER.
 * Without a declared set (the default repertoire is ASCII), bytes that are
 * valid UTF-8 are read so, others as Windows-1252.
 */
function decodeAttribute(value: string | undefined, charset: string | undefined): string | undefined {
  if (value === undefined || ![...value].some((c) => c.charCodeAt(0) > 0x7f)) return value;
  const bytes = Uint8Array.from(value, (c) => c.charCodeAt(0) & 0xff);
  const terms = (charset ?? '').split('\\').map((t) => t.trim()).filter(Boolean);
  const label = terms.map((t) => CHARSETS[t.toUpperCase()]).find((l) => l !== undefined);
  const attempts = label ? [label, 'windows-1252'] : ['utf-8', 'windows-1252'];
  for (const l of attempts) {
    try {
      return new TextDecoder(l, { fatal: l === 'utf-8' }).decode(bytes);
    } catch {
      // Not this encoding (or a runtime without it): try the next.
    }
  }
  return value;
}

/** Control, format (zero-width, bidi overrides) and line-separator characters: none belongs in a stored label. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** Letters and digits as compared: NFKC, case folded (ẞ, ß and SS alike: lower, upper, lower), then without accents (MÜLLER = MULLER). */
function skeleton(s: string): string {
  return s.normalize('NFKC').toLowerCase().toUpperCase().toLowerCase().normalize('NFKD').replace(/\p{M}+/gu, '').normalize('NFC');
}

/** Visible text, one space between words, at most 64 characters (the longest LO value); undefined when nothing is left. */
function tidy(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const s = [...value.normalize('NFC').replace(INVISIBLE, ' ').replace(/\s+/g, ' ').trim()].slice(0, 64).join('').trim();
  return s === '' ? undefined : s;
}

/** A DS value as written (trimmed), when it is one finite number. */
function decimal(value: string | undefined): string | undefined {
  const s = value?.split('\\')[0]?.trim();
  return s && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) && Number.isFinite(Number(s)) ? s : undefined;
}

/** A run of letters and digits: the unit names are compared in. */
const WORD = /[\p{L}\p{N}]+/gu;

/**
 * The patient's own words that text must not carry: the parts of the name
 * (every component group: alphabetic, ideographic, phonetic) and of the ID,
 * as skeletons (see {@link skeleton}). Used only for the checks below; never
 * stored.
 */
function identifyingWords(a: DicomAttributes): string[] {
  const name = decodeAttribute(a.PatientName, a.SpecificCharacterSet) ?? '';
  const id = decodeAttribute(a.PatientID, a.SpecificCharacterSet) ?? '';
  const words = [...(name.match(WORD) ?? []), ...(id.match(WORD) ?? []), ...(id.trim() ? [id.trim()] : [])];
  return [...new Set(words.map(skeleton).filter((w) => w.length >= 2))];
}

/** Dates (01/01/1960, 1960-01-01, 01.01.60, 19600101) and runs of six or more digits (record numbers). */
const DATES_AND_NUMBERS = /\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|\d{6,}/g;
/** Words that label personal data: a descriptor holding one is not a technical description. */
const PERSONAL_LABELS = /(^|[^\p{L}])(dob|d\.o\.b|mrn|ssn|nhs|patient|name|born|birth|geb|geboren)([^\p{L}]|$)/iu;

/** Whether a word is, or (for the longer parts) holds, one of the patient's words. */
function isIdentifying(word: string, forbidden: readonly string[]): boolean {
  const w = skeleton(word);
  return forbidden.some((f) => w === f || (f.length >= 4 && w.includes(f)));
}

/** Whether a technical value holds one of the patient's words, compared letter by letter after folding. */
function holdsIdentity(value: string, forbidden: readonly string[]): boolean {
  if (forbidden.length === 0) return false;
  const whole = skeleton(value);
  return (value.match(WORD) ?? []).some((w) => isIdentifying(w, forbidden)) || forbidden.some((f) => f.length >= 4 && whole.includes(f));
}

/**
 * PS3.15 Annex E's Clean Descriptors rule for one descriptive value: the
 * patient's name parts and ID, dates and long numbers are taken out; a value
 * that labels personal data (DOB, MRN, "patient", "name"…) is not a technical
 * description at all and is dropped whole. `cleaned` says whether anything
 * was taken out.
 */
function cleanDescriptor(value: string, forbidden: readonly string[]): { value?: string; cleaned: boolean; dropped: boolean } {
  const visible = value.normalize('NFC').replace(INVISIBLE, ' ');
  if (PERSONAL_LABELS.test(visible)) return { cleaned: true, dropped: true };
  let cleaned = false;
  const withoutNumbers = visible.replace(DATES_AND_NUMBERS, () => {
    cleaned = true;
    return ' ';
  });
  const withoutNames = withoutNumbers.replace(WORD, (word) => {
    if (!isIdentifying(word, forbidden)) return word;
    cleaned = true;
    return ' ';
  });
  // What removal leaves at the edges ("- brain", "brain ()") is trimmed; a value left without a letter or digit is nothing.
  const trimmed = cleaned ? withoutNames.replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, '').replace(/\(\s*\)|\[\s*\]/g, ' ') : withoutNames;
  const out = tidy(trimmed);
  return out && /[\p{L}\p{N}]/u.test(out) ? { value: out, cleaned, dropped: false } : { cleaned, dropped: true };
}

/**
 * The meta of a file's coded technical tags, and (when the import opts in)
 * of its descriptive free text, cleaned. A technical value holding the
 * patient's name or ID (compared after Unicode folding, so MÜLLER, müller
 * and MULLER are one name) is left out with a warning.
 */
function technicalMeta(a: DicomAttributes, file: string, options: DicomMetaOptions): { meta: Record<string, string>; issues: ImportIssue[] } {
  const meta: Record<string, string> = {};
  const issues: ImportIssue[] = [];
  const forbidden = identifyingWords(a);
  const text = (v: string | undefined) => decodeAttribute(v, a.SpecificCharacterSet);
  const put = (key: string, field: string, value: string | undefined) => {
    if (value === undefined) return;
    if (holdsIdentity(value, forbidden)) {
      issues.push({ severity: 'warning', message: `"${file}": ${field} contains the patient's name or ID, so it is not kept.`, location: { file, field } });
      return;
    }
    meta[key] = value;
  };
  put(DICOM_META.manufacturer, 'Manufacturer', tidy(text(a.Manufacturer)));
  put(DICOM_META.model, 'ManufacturerModelName', tidy(text(a.ManufacturerModelName)));
  const tesla = decimal(a.MagneticFieldStrength);
  // Older GE scanners wrote gauss (15000 for 1.5 T); no clinical magnet is above 100 T.
  put(DICOM_META.fieldStrength, 'MagneticFieldStrength', tesla !== undefined && Number(tesla) > 100 ? String(Number(tesla) / 10000) : tesla);
  put(DICOM_META.sliceThickness, 'SliceThickness', decimal(a.SliceThickness));
  const describe = (key: string, field: string, raw: string | undefined) => {
    const value = tidy(text(raw));
    if (value === undefined) return;
    const c = cleanDescriptor(value, forbidden);
    if (c.dropped) {
      issues.push({ severity: 'warning', message: `"${file}": ${field} holds the patient's name, an ID, a date or a label of personal data, and nothing technical is left without it, so it is not kept.`, location: { file, field } });
      return;
    }
    if (c.cleaned) issues.push({ severity: 'warning', message: `"${file}": ${field} held the patient's name, an ID or a date; only the rest is kept.`, location: { file, field } });
    meta[key] = c.value!;
  };
  if (options.keepDescriptions) {
    describe(DICOM_META.sequence, 'SequenceName', a.SequenceName);
    describe(DICOM_META.protocol, 'ProtocolName', a.ProtocolName);
    describe(DICOM_META.seriesDescription, 'SeriesDescription', a.SeriesDescription);
    describe(DICOM_META.studyDescription, 'StudyDescription', a.StudyDescription);
    describe(DICOM_META.procedureDescription, 'PerformedProcedureStepDescription', a.PerformedProcedureStepDescription);
  }
  if (a.ContrastBolusAgent !== undefined) {
    // Type 2 in the Contrast/Bolus module: present but empty means no agent was given.
    const agent = tidy(text(a.ContrastBolusAgent));
    const none = agent === undefined || /^(NO|NONE|N)$/i.test(agent);
    if (none || /^(YES|Y)$/i.test(agent) || !options.keepDescriptions) meta[DICOM_META.contrast] = none ? 'no' : 'yes';
    else describe(DICOM_META.contrast, 'ContrastBolusAgent', agent);
  }
  return { meta, issues };
}

/** The case meta of a file: technical tags (and, when asked, cleaned descriptions) plus its pseudonymous keys. */
export function dicomCaseMeta(a: DicomAttributes, salt: string, file: string, options: DicomMetaOptions = {}): { meta: Record<string, string>; issues: ImportIssue[] } {
  const { meta, issues } = technicalMeta(a, file, options);
  const keys = pseudonymousKeys(a, salt);
  if (keys.patientKey) meta[DICOM_META.patientKey] = keys.patientKey;
  if (keys.studyKey) meta[DICOM_META.studyKey] = keys.studyKey;
  if (keys.seriesKey) meta[DICOM_META.seriesKey] = keys.seriesKey;
  return { meta, issues };
}
