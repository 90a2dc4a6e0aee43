/**
 * Technical tags of hospital images (kept on each case's `meta` by the DICOM
 * import) as breakdown groups: how a scanner, its field strength or the slice
 * thickness changes a model's score. Raw tag values are too scattered to
 * compare (one 3 T scanner writes 2.89362, another 3; vendors spell their
 * names several ways), so each dimension groups them as a reader would.
 */

/** The breakdown dimensions read from technical tags, with the meta key each reads. */
export const TECHNICAL_TAGS = {
  manufacturer: 'dicom.manufacturer',
  scannerModel: 'dicom.model',
  fieldStrength: 'dicom.fieldStrength',
  sliceThickness: 'dicom.sliceThickness',
  scanSequence: 'dicom.sequence',
  scanProtocol: 'dicom.protocol',
  contrast: 'dicom.contrast',
} as const;

export type TechnicalDimension = keyof typeof TECHNICAL_TAGS;

export const TECHNICAL_LABELS: Readonly<Record<TechnicalDimension, string>> = {
  manufacturer: 'Scanner manufacturer',
  scannerModel: 'Scanner model',
  fieldStrength: 'Scanner field strength',
  sliceThickness: 'Slice thickness',
  scanSequence: 'Sequence name (scanner)',
  scanProtocol: 'Protocol name (scanner)',
  contrast: 'Contrast agent',
};

/** What a person reads for a case's `dicom.*` meta key (with the unit its value is in); undefined for other keys. */
export function metaKeyLabel(key: string): string | undefined {
  const dim = (Object.keys(TECHNICAL_TAGS) as TechnicalDimension[]).find((d) => TECHNICAL_TAGS[d] === key);
  if (dim === 'fieldStrength') return `${TECHNICAL_LABELS.fieldStrength} (T)`;
  if (dim === 'sliceThickness') return `${TECHNICAL_LABELS.sliceThickness} (mm)`;
  if (dim) return TECHNICAL_LABELS[dim];
  return PSEUDONYM_LABELS[key] ?? DESCRIPTION_LABELS[key];
}

/** Descriptive text a DICOM import keeps only when asked to, cleaned (bundle/dicom-meta.ts). */
const DESCRIPTION_LABELS: Readonly<Record<string, string>> = {
  'dicom.seriesDescription': 'Series description (scanner)',
  'dicom.studyDescription': 'Study description (scanner)',
  'dicom.procedureDescription': 'Procedure description (scanner)',
};

const PSEUDONYM_LABELS: Readonly<Record<string, string>> = {
  'dicom.patientKey': 'Patient (pseudonymous key)',
  'dicom.studyKey': 'Study (pseudonymous key)',
  'dicom.seriesKey': 'Series (pseudonymous key)',
};

/** The group of a case without the tag. */
export const NOT_RECORDED = '(not recorded)';
/** The group of a tag that should be a number and is not. */
const UNREADABLE = '(unreadable)';

/** Nominal field strengths in tesla: a written value within 5 % of one is that one (Siemens 3 T scanners write 2.89362). */
const NOMINAL_TESLA = [0.2, 0.23, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 1, 1.2, 1.5, 3, 4, 7, 9.4, 10.5, 11.7];

/** Slice thickness bins (upper bound inclusive, mm), thin volumetric to thick 2D. */
const THICKNESS_BINS: readonly { readonly upTo: number; readonly label: string }[] = [
  { upTo: 1, label: '≤ 1 mm' },
  { upTo: 3, label: '1–3 mm' },
  { upTo: 5, label: '3–5 mm' },
  { upTo: Infinity, label: '> 5 mm' },
];

/** Vendors by the start of what scanners write in Manufacturer (0008,0070). */
const VENDORS: readonly [RegExp, string][] = [
  [/^siemens/i, 'Siemens'],
  [/^(ge\b|ge medical|general electric)/i, 'GE'],
  [/^philips/i, 'Philips'],
  [/^canon/i, 'Canon'],
  [/^toshiba/i, 'Toshiba'],
  [/^hitachi/i, 'Hitachi'],
  [/^fujifilm/i, 'Fujifilm'],
  [/^(united imaging|uih)/i, 'United Imaging'],
  [/^esaote/i, 'Esaote'],
];

const NO_CONTRAST = /^(none|no|n|0|false|without|nil)$/i;
const YES_CONTRAST = /^(yes|y|1|true|with)$/i;

const tidy = (v: string): string => v.replace(/\s+/g, ' ').trim();

/** A leading decimal number (`"1.5"`, `"3.0 T"`, `"5 mm"`), or NaN. */
function leadingNumber(v: string): number {
  const m = /^[+]?(\d+(?:\.\d*)?|\.\d+)/.exec(v.trim());
  return m ? Number(m[1]) : NaN;
}

export function fieldStrengthGroup(raw: string): string {
  let t = leadingNumber(raw);
  if (!Number.isFinite(t) || t <= 0) return UNREADABLE;
  // Old scanners wrote gauss (15000 = 1.5 T); no magnet in clinical use reaches 100 T.
  if (t > 100) t /= 10_000;
  const nominal = NOMINAL_TESLA.find((n) => Math.abs(t - n) <= 0.05 * n);
  return `${nominal ?? Number(t.toFixed(1))} T`;
}

export function sliceThicknessGroup(raw: string): string {
  const mm = leadingNumber(raw);
  if (!Number.isFinite(mm) || mm <= 0) return UNREADABLE;
  return THICKNESS_BINS.find((b) => mm <= b.upTo)!.label;
}

export function manufacturerGroup(raw: string): string {
  const v = tidy(raw);
  return VENDORS.find(([re]) => re.test(v))?.[1] ?? v;
}

export function contrastGroup(raw: string): string {
  const v = tidy(raw);
  if (NO_CONTRAST.test(v)) return 'None';
  if (YES_CONTRAST.test(v)) return 'Given (agent not named)';
  return v;
}

/** A case's group on a technical dimension. */
export function technicalGroup(dim: TechnicalDimension, meta: Readonly<Record<string, string>> | undefined): string {
  const raw = meta?.[TECHNICAL_TAGS[dim]];
  if (raw === undefined || raw.trim() === '') return NOT_RECORDED;
  switch (dim) {
    case 'fieldStrength': return fieldStrengthGroup(raw);
    case 'sliceThickness': return sliceThicknessGroup(raw);
    case 'manufacturer': return manufacturerGroup(raw);
    case 'contrast': return contrastGroup(raw);
    default: return tidy(raw);
  }
}

/**
 * Where a group sorts: field strengths by tesla, thickness bins thin to thick,
 * others by name; cases without the tag, then unreadable values, last.
 */
export function technicalRank(dim: TechnicalDimension, group: string): number {
  if (group === NOT_RECORDED) return 2e9;
  if (group === UNREADABLE) return 1e9;
  if (dim === 'fieldStrength') return leadingNumber(group);
  if (dim === 'sliceThickness') return THICKNESS_BINS.findIndex((b) => b.label === group);
  return 0;
}

/** The technical dimensions some case has a value for: only those are offered. */
export function technicalDimensionsOf(cases: Iterable<{ readonly meta?: Readonly<Record<string, string>> }>): TechnicalDimension[] {
  const found = new Set<TechnicalDimension>();
  const dims = Object.keys(TECHNICAL_TAGS) as TechnicalDimension[];
  for (const c of cases) {
    for (const d of dims) if (c.meta?.[TECHNICAL_TAGS[d]]?.trim()) found.add(d);
    if (found.size === dims.length) break;
  }
  return dims.filter((d) => found.has(d));
}
