/**
 * Generator of small but valid DICOM Part 10 files for tests: every native
 * transfer syntax, 8/16-bit, signed, MONOCHROME1/2 and RGB, multi-frame,
 * sequences of both length kinds, patient-identifying tags (to test
 * de-identification), private tags, no pixel data, and a JPEG-compressed
 * header to test the refusal. Pure TypeScript: runs in Node and browsers.
 */
import { deflateSync } from 'fflate';
import { ByteWriter } from './bytes.ts';

export type DicomSyntax = 'explicit-le' | 'implicit-le' | 'explicit-be' | 'deflated' | 'jpeg-baseline';

export const TRANSFER_SYNTAX_UIDS: Record<DicomSyntax, string> = {
  'explicit-le': '1.2.840.10008.1.2.1',
  'implicit-le': '1.2.840.10008.1.2',
  'explicit-be': '1.2.840.10008.1.2.2',
  deflated: '1.2.840.10008.1.2.1.99',
  'jpeg-baseline': '1.2.840.10008.1.2.4.50',
};

/** Identifying values written by default; tests assert none survives de-identification. */
export const FAKE_PATIENT = {
  name: 'DOE^JANE',
  id: 'MRN-0042-7731',
  birthDate: '19610214',
  institution: 'SAINT EXAMPLE HOSPITAL',
  accession: 'ACC99887766',
  referring: 'HOUSE^GREGORY',
  studyDate: '20240105',
  studyUid: '1.2.826.0.1.3680043.8.498.777',
} as const;

export interface MakeDicomOptions {
  /** Transfer syntax; Explicit VR Little Endian by default. */
  readonly syntax?: DicomSyntax;
  /** Leave out (0002,0010) entirely. */
  readonly omitTransferSyntax?: boolean;
  readonly rows?: number;
  readonly columns?: number;
  /** Frames; NumberOfFrames is written when > 1. */
  readonly frames?: number;
  readonly bitsAllocated?: 8 | 16;
  readonly bitsStored?: number;
  readonly highBit?: number;
  /** PixelRepresentation 1. */
  readonly signed?: boolean;
  readonly photometric?: 'MONOCHROME1' | 'MONOCHROME2' | 'RGB' | 'PALETTE COLOR';
  readonly planarConfiguration?: 0 | 1;
  readonly modality?: string;
  readonly rescale?: { readonly slope: number; readonly intercept: number };
  readonly window?: { readonly center: number | readonly number[]; readonly width: number | readonly number[] };
  readonly pixelSpacing?: readonly [number, number];
  readonly sliceThickness?: number;
  readonly imageOrientationPatient?: readonly number[];
  /** Patient/study identifying tags (default true). */
  readonly identifying?: boolean;
  /** Values for the identifying tags instead of {@link FAKE_PATIENT}'s; `address` adds PatientAddress (0010,1040). */
  readonly patient?: Partial<Record<keyof typeof FAKE_PATIENT | 'address', string>>;
  /** Value of the private tag (0009,1001) and of the PatientName nested in a sequence. */
  readonly privateValue?: string;
  readonly nestedName?: string;
  /** Series geometry and identity: instance number (default 7), position of the first pixel, series UID, SOP class (default CT Image Storage), ImageType. */
  readonly instanceNumber?: number;
  readonly imagePositionPatient?: readonly number[];
  readonly seriesUid?: string;
  readonly sopClassUid?: string;
  readonly imageType?: string;
  /** Technical tags: Manufacturer, ManufacturerModelName, MagneticFieldStrength (as written), SequenceName, ProtocolName, ContrastBolusAgent; and descriptive text: SeriesDescription, StudyDescription, PerformedProcedureStepDescription. */
  readonly technical?: Partial<Record<'manufacturer' | 'model' | 'fieldStrength' | 'sequenceName' | 'protocolName' | 'contrastAgent' | 'seriesDescription' | 'studyDescription' | 'procedureDescription', string>>;
  /** SpecificCharacterSet (default ISO_IR 100, text written one byte per character); `ISO_IR 192` writes text as UTF-8. */
  readonly charset?: string;
  /** BurnedInAnnotation (0028,0301). */
  readonly burnedInAnnotation?: 'YES' | 'NO';
  /** Leave out the preamble, "DICM" and the file meta group: a raw dataset as some old exports write. */
  readonly raw?: boolean;
  /** A private block (group 0009) whose value repeats the patient name. */
  readonly privateTags?: boolean;
  /** Sequences before the pixel data: defined-length SQ, undefined-length SQ with nested items and decoy Rows/Columns, and (explicit VR) an undefined-length UN. */
  readonly sequence?: boolean;
  readonly omitPixelData?: boolean;
  /** Stored value at (frame, row, column, sample); {@link defaultDicomPixel} by default. */
  readonly pixel?: (frame: number, row: number, column: number, sample: number) => number;
  /** Set every bit above HighBit (as overlays in old files did) so masking is exercised. */
  readonly garbageHighBits?: boolean;
  /** VR of the pixel data in explicit syntaxes (OB for 8-bit, OW for 16-bit by default). */
  readonly pixelVR?: 'OB' | 'OW';
  /** Compressed pixel data: these codestreams, one fragment per frame, under this transfer syntax (the dataset stays Explicit VR Little Endian). */
  readonly encapsulated?: { readonly uid: string; readonly frames: readonly Uint8Array[] };
}

/** Default stored value: distinct per frame, row, column and sample, small enough for 8 bits. */
export function defaultDicomPixel(frame: number, row: number, column: number, sample: number): number {
  return frame * 50 + row * 10 + column + sample * 7;
}

const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV']);
const UNDEFINED = 0xffffffff;

/** Writes elements in one encoding. */
class DatasetWriter {
  readonly out: ByteWriter;
  /** Text values as UTF-8 (SpecificCharacterSet ISO_IR 192) instead of one byte per character. */
  utf8 = false;
  constructor(
    readonly le: boolean,
    readonly explicit: boolean,
  ) {
    this.out = new ByteWriter(le);
  }

  tag(tag: number): this {
    this.out.u16(tag >>> 16).u16(tag & 0xffff);
    return this;
  }

  header(tag: number, vr: string, length: number): this {
    this.tag(tag);
    if (!this.explicit || tag >>> 16 === 0xfffe) this.out.u32(length);
    else if (LONG_VRS.has(vr)) this.out.ascii(vr).u16(0).u32(length);
    else this.out.ascii(vr).u16(length);
    return this;
  }

  raw(tag: number, vr: string, value: ArrayLike<number>): this {
    this.header(tag, vr, value.length);
    this.out.bytes(value);
    return this;
  }

  text(tag: number, vr: string, value: string): this {
    const bytes = this.utf8 ? [...new TextEncoder().encode(value)] : Array.from(value, (c) => c.charCodeAt(0));
    if (bytes.length % 2) bytes.push(vr === 'UI' ? 0 : 0x20);
    return this.raw(tag, vr, bytes);
  }

  us(tag: number, value: number): this {
    this.header(tag, 'US', 2);
    this.out.u16(value);
    return this;
  }

  ds(tag: number, values: number | readonly number[]): this {
    return this.text(tag, 'DS', (typeof values === 'number' ? [values] : values).join('\\'));
  }

  /** A sequence of items, each written by a callback; lengths defined or undefined per flag. */
  sequence(tag: number, undefinedLength: boolean, items: readonly { undefinedLength: boolean; write: (w: DatasetWriter) => void }[], vr = 'SQ'): this {
    const body = new DatasetWriter(vr === 'UN' ? true : this.le, vr === 'UN' ? false : this.explicit);
    for (const item of items) {
      const inner = new DatasetWriter(body.le, body.explicit);
      item.write(inner);
      const content = inner.out.toBytes();
      body.header(0xfffee000, '', item.undefinedLength ? UNDEFINED : content.length);
      body.out.bytes(content);
      if (item.undefinedLength) body.header(0xfffee00d, '', 0);
    }
    if (undefinedLength) body.header(0xfffee0dd, '', 0);
    const content = body.out.toBytes();
    this.header(tag, vr, undefinedLength ? UNDEFINED : content.length);
    this.out.bytes(content);
    return this;
  }
}

function metaGroup(syntaxUid: string | undefined): Uint8Array {
  const w = new DatasetWriter(true, true);
  w.raw(0x00020001, 'OB', [0, 1]);
  w.text(0x00020002, 'UI', '1.2.840.10008.5.1.4.1.1.2');
  w.text(0x00020003, 'UI', '1.2.826.0.1.3680043.8.498.1001');
  if (syntaxUid) w.text(0x00020010, 'UI', syntaxUid);
  w.text(0x00020012, 'UI', '1.2.826.0.1.3680043.8.498.1');
  w.text(0x00020013, 'SH', 'NEUROEVAL_TEST');
  const body = w.out.toBytes();
  const out = new DatasetWriter(true, true);
  out.header(0x00020000, 'UL', 4);
  out.out.u32(body.length);
  out.out.bytes(body);
  return out.out.toBytes();
}

function pixelBytes(o: MakeDicomOptions, le: boolean, rows: number, columns: number, frames: number, samples: number): Uint8Array {
  const bits = o.bitsAllocated ?? 16;
  const stored = o.bitsStored ?? bits;
  const high = o.highBit ?? stored - 1;
  const shift = high + 1 - stored;
  const mask = 2 ** stored - 1;
  const garbage = o.garbageHighBits ? (2 ** bits - 1) ^ ((2 ** (high + 1)) - 1) : 0;
  const value = o.pixel ?? defaultDicomPixel;
  const planar = samples === 3 && o.planarConfiguration === 1;
  const w = new ByteWriter(le);
  const put = (v: number) => {
    const raw = (((v & mask) * 2 ** shift) | garbage) >>> 0;
    if (bits === 8) w.u8(raw);
    else w.u16(raw);
  };
  for (let f = 0; f < frames; f++) {
    if (planar) {
      for (let s = 0; s < 3; s++) for (let r = 0; r < rows; r++) for (let c = 0; c < columns; c++) put(value(f, r, c, s));
    } else {
      for (let r = 0; r < rows; r++) for (let c = 0; c < columns; c++) for (let s = 0; s < samples; s++) put(value(f, r, c, s));
    }
  }
  if (w.length % 2) w.u8(0);
  let bytes = w.toBytes();
  // 8-bit data written as OW in big endian is byte-swapped in pairs (PS3.5 §A.3).
  if (bits === 8 && !le && o.pixelVR === 'OW') {
    const swapped = new Uint8Array(bytes.length);
    for (let i = 0; i < bytes.length; i++) swapped[i] = bytes[i ^ 1]!;
    bytes = swapped;
  }
  return bytes;
}

/** Builds a DICOM Part 10 file (preamble, DICM, meta group, dataset) from the options. */
export function makeDicom(o: MakeDicomOptions = {}): Uint8Array {
  const syntax = o.syntax ?? 'explicit-le';
  const le = syntax !== 'explicit-be';
  const explicit = syntax !== 'implicit-le';
  const rows = o.rows ?? 4;
  const columns = o.columns ?? 5;
  const frames = o.frames ?? 1;
  const photometric = o.photometric ?? 'MONOCHROME2';
  const samples = photometric === 'RGB' ? 3 : 1;
  const bits = o.bitsAllocated ?? 16;
  const identifying = o.identifying ?? true;
  const p = { ...FAKE_PATIENT, ...o.patient };
  const w = new DatasetWriter(le, explicit);

  const t = o.technical ?? {};
  w.text(0x00080005, 'CS', o.charset ?? 'ISO_IR 100');
  w.utf8 = o.charset === 'ISO_IR 192';
  if (o.imageType) w.text(0x00080008, 'CS', o.imageType);
  w.text(0x00080016, 'UI', o.sopClassUid ?? '1.2.840.10008.5.1.4.1.1.2');
  w.text(0x00080018, 'UI', '1.2.826.0.1.3680043.8.498.1001');
  if (identifying) {
    w.text(0x00080020, 'DA', p.studyDate);
    w.text(0x00080050, 'SH', p.accession);
  }
  if (o.modality) w.text(0x00080060, 'CS', o.modality);
  if (t.manufacturer !== undefined) w.text(0x00080070, 'LO', t.manufacturer);
  if (identifying) {
    w.text(0x00080080, 'LO', p.institution);
    w.text(0x00080090, 'PN', p.referring);
  }
  if (t.studyDescription !== undefined) w.text(0x00081030, 'LO', t.studyDescription);
  if (t.seriesDescription !== undefined) w.text(0x0008103e, 'LO', t.seriesDescription);
  if (t.model !== undefined) w.text(0x00081090, 'LO', t.model);
  if (o.sequence) {
    w.sequence(0x00081115, false, [{ undefinedLength: false, write: (i) => i.text(0x0020000e, 'UI', '1.2.3.4.5.6') }]);
    w.sequence(0x00081140, true, [
      {
        undefinedLength: true,
        write: (i) => {
          i.text(0x00081150, 'UI', '1.2.840.10008.5.1.4.1.1.2');
          i.text(0x00081155, 'UI', '1.2.3.4.5.6.7');
          // Decoys: a parser that does not skip sequences would take these as the image size.
          i.us(0x00280010, 999);
          i.us(0x00280011, 777);
          i.sequence(0x0040a730, false, [{ undefinedLength: false, write: (n) => n.text(0x00100010, 'PN', o.nestedName ?? 'NESTED^NAME') }]);
          i.sequence(0x00400260, true, [{ undefinedLength: true, write: (n) => n.text(0x00080100, 'SH', 'CODE1') }]);
        },
      },
      { undefinedLength: false, write: (i) => i.us(0x00280011, 777) },
    ]);
  }
  if (o.privateTags) {
    w.text(0x00090010, 'LO', 'ACME 1.0');
    w.text(0x00091001, 'LO', o.privateValue ?? `${FAKE_PATIENT.name} PRIVATE`);
    w.raw(0x00091002, 'OB', [1, 2, 3, 4]);
  }
  if (identifying) {
    w.text(0x00100010, 'PN', p.name);
    w.text(0x00100020, 'LO', p.id);
    w.text(0x00100030, 'DA', p.birthDate);
    if (p.address) w.text(0x00101040, 'LO', p.address);
  }
  if (t.contrastAgent !== undefined) w.text(0x00180010, 'LO', t.contrastAgent);
  if (t.sequenceName !== undefined) w.text(0x00180024, 'SH', t.sequenceName);
  if (o.sliceThickness !== undefined) w.ds(0x00180050, o.sliceThickness);
  if (t.fieldStrength !== undefined) w.text(0x00180087, 'DS', t.fieldStrength);
  if (t.protocolName !== undefined) w.text(0x00181030, 'LO', t.protocolName);
  if (identifying) w.text(0x0020000d, 'UI', p.studyUid);
  if (o.seriesUid) w.text(0x0020000e, 'UI', o.seriesUid);
  w.text(0x00200013, 'IS', String(o.instanceNumber ?? 7));
  if (o.imagePositionPatient) w.ds(0x00200032, o.imagePositionPatient);
  if (o.imageOrientationPatient) w.ds(0x00200037, o.imageOrientationPatient);
  w.us(0x00280002, samples);
  w.text(0x00280004, 'CS', photometric);
  if (samples === 3) w.us(0x00280006, o.planarConfiguration ?? 0);
  if (frames > 1) w.text(0x00280008, 'IS', String(frames));
  w.us(0x00280010, rows);
  w.us(0x00280011, columns);
  if (o.pixelSpacing) w.ds(0x00280030, o.pixelSpacing);
  w.us(0x00280100, bits);
  w.us(0x00280101, o.bitsStored ?? bits);
  w.us(0x00280102, o.highBit ?? (o.bitsStored ?? bits) - 1);
  w.us(0x00280103, o.signed ? 1 : 0);
  if (o.burnedInAnnotation) w.text(0x00280301, 'CS', o.burnedInAnnotation);
  if (o.window) {
    w.ds(0x00281050, o.window.center);
    w.ds(0x00281051, o.window.width);
  }
  if (o.rescale) {
    w.ds(0x00281052, o.rescale.intercept);
    w.ds(0x00281053, o.rescale.slope);
  }
  if (t.procedureDescription !== undefined) w.text(0x00400254, 'LO', t.procedureDescription);
  if (o.sequence && explicit) {
    // PS3.5 §6.2.2: an undefined-length UN holds an Implicit VR Little Endian sequence.
    w.sequence(0x00400275, true, [{ undefinedLength: true, write: (i) => i.text(0x00401001, 'SH', 'REQ42') }], 'UN');
  }
  if (!o.omitPixelData) {
    if (o.encapsulated) {
      w.header(0x7fe00010, 'OB', UNDEFINED);
      w.header(0xfffee000, '', 0);
      for (const frame of o.encapsulated.frames) {
        w.header(0xfffee000, '', frame.length + (frame.length % 2));
        w.out.bytes(frame);
        if (frame.length % 2) w.out.u8(0);
      }
      w.header(0xfffee0dd, '', 0);
    } else if (syntax === 'jpeg-baseline') {
      // Encapsulated: empty basic offset table, one fragment, sequence delimiter.
      const fragment = [0xff, 0xd8, 0xff, 0xdb, 0x00, 0x04, 0x00, 0x00, 0xff, 0xd9];
      w.header(0x7fe00010, 'OB', UNDEFINED);
      w.header(0xfffee000, '', 0);
      w.header(0xfffee000, '', fragment.length);
      w.out.bytes(fragment);
      w.header(0xfffee0dd, '', 0);
    } else {
      const vr = o.pixelVR ?? (bits === 8 ? 'OB' : 'OW');
      w.raw(0x7fe00010, vr, pixelBytes(o, le, rows, columns, frames, samples));
    }
  }
  let dataset = w.out.toBytes();
  if (syntax === 'deflated') dataset = deflateSync(dataset, { level: 6 });
  if (o.raw) return dataset;

  const file = new ByteWriter(true);
  file.bytes(new Uint8Array(128));
  file.ascii('DICM');
  file.bytes(metaGroup(o.omitTransferSyntax ? undefined : (o.encapsulated?.uid ?? TRANSFER_SYNTAX_UIDS[syntax])));
  file.bytes(dataset);
  return file.toBytes();
}
