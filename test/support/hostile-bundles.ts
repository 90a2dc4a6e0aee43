/**
 * Bundles that try to get patient data stored: DICOM in `sources/`, a raw
 * dataset without preamble, a file name carrying a name and a record number,
 * burned-in annotation, DICOM inside nested archives, gzip, a PNG and a
 * forged image source container. Every identifying value is planted with a
 * distinctive spelling so a test can search the database and every export
 * for it. Generated in TypeScript at test time (no Python, nothing on disk
 * unless a test writes it).
 */
import { gzipSync, strToU8, zipSync } from 'fflate';
import { encodeVolume, volumeFromDicom } from '../../src/core/imaging/dicom/serialize.ts';
import { parseDicom } from '../../src/core/imaging/dicom/parse.ts';
import { encodePng } from '../../src/core/imaging/png-encode.ts';
import { makeDicom, type MakeDicomOptions } from './fixtures-imaging/index.ts';

/** The values no stored row and no export may contain. */
export const PLANTED = {
  name: 'ZZTOPNAME^QUENTIN',
  id: 'MRN77441122',
  birthDate: '19490317',
  institution: 'ZZINSTITUTE OF EXAMPLETOWN',
  accession: 'ACCZZ5544332',
  referring: 'ZZREFERRER^HORACE',
  address: '17 ZZQUIET LANE EXAMPLETOWN',
  privateValue: 'ZZPRIVATE-SECRET-9931',
  nestedName: 'ZZNESTED^IRMA',
  studyDate: '20230607',
  studyUid: '1.2.826.0.1.3680043.8.498.55443322',
} as const;

/** The file name a PACS export gave the case image: the patient's name and record number. */
export const PHI_FILE_NAME = 'ZZTOPNAME_QUENTIN_MRN77441122.dcm';

/** Every string a test searches for: the planted tag values and the pieces of the file name. */
export const PLANTED_STRINGS: readonly string[] = [...Object.values(PLANTED), 'ZZTOPNAME', 'QUENTIN', 'ZZTOPNAME_QUENTIN', PHI_FILE_NAME];

/** A DICOM file with every planted value: identifying tags, address, a private tag and a nested sequence. */
export function plantedDicom(over: MakeDicomOptions = {}): Uint8Array {
  return makeDicom({
    rows: 8,
    columns: 8,
    modality: 'MR',
    privateTags: true,
    sequence: true,
    patient: PLANTED,
    privateValue: PLANTED.privateValue,
    nestedName: PLANTED.nestedName,
    ...over,
  });
}

const MANIFEST = { format: 'neuroeval-bundle', formatVersion: 1, id: 'phi-probe', name: 'PHI probe', version: '1', license: 'CC0-1.0', description: 'Hostile input for de-identification tests' };

function caseLine(id: string, images: string[]): string {
  return JSON.stringify({ id, split: 'direct', taskFamily: 'classification', modality: 'MRI', diseaseGroup: 'tumor', images: images.map((path) => ({ path, sequence: 'T1' })), questions: [{ id: 'q1', text: 'What is the diagnosis?', reference: { diagnosis: 'glioma', labels: { diagnosis_name: 'tumor' } } }] });
}

function png(seed: number): Uint8Array {
  return encodePng(Uint8Array.from({ length: 64 }, (_, i) => (i * seed) & 0xff), 8, 8);
}

/** A bundle ZIP: manifest, one case per image list, plus the given files. */
function bundle(cases: Record<string, string[]>, files: Record<string, Uint8Array>): Uint8Array {
  const lines = Object.entries(cases).map(([id, images]) => caseLine(id, images));
  return zipSync({ 'manifest.json': strToU8(JSON.stringify(MANIFEST)), 'cases.jsonl': strToU8(`${lines.join('\n')}\n`), ...files });
}

/**
 * The bundle that must import, with nothing identifying stored: the case
 * image is a DICOM named after the patient, `sources/` holds a second DICOM
 * (Part 10, also named after the patient) and a raw Implicit VR dataset
 * without preamble, and a plain PNG case sits beside them.
 */
export function phiBundle(): Uint8Array {
  return bundle(
    { 'case-1': [`images/${PHI_FILE_NAME}`], 'case-2': ['images/plain.png'] },
    {
      [`images/${PHI_FILE_NAME}`]: plantedDicom(),
      'images/plain.png': png(3),
      'sources/ZZTOPNAME_QUENTIN_MRN77441122_series2.dcm': plantedDicom({ frames: 2, syntax: 'explicit-le' }),
      'sources/export-0001': plantedDicom({ syntax: 'implicit-le', raw: true }),
    },
  );
}

/** A hostile input that must be refused, and the words its error must contain. */
export interface RefusedInput {
  readonly name: string;
  readonly zip: Uint8Array;
  /** The file the error names. */
  readonly file: string;
  readonly message: RegExp;
}

/** Every input that cannot be stored without carrying patient data, each with the message it gets. */
export function refusedInputs(): RefusedInput[] {
  const inner = zipSync({ 'deep/scan.bin': plantedDicom() });
  const forged = (() => {
    // A well-formed container with one field the format does not have, carrying the patient's name.
    const real = encodeVolume(volumeFromDicom(parseDicom(plantedDicom({ identifying: false }))));
    const headerLength = new DataView(real.buffer, real.byteOffset).getUint32(8, true);
    const meta = JSON.parse(new TextDecoder().decode(real.subarray(12, 12 + headerLength))) as object;
    const json = strToU8(JSON.stringify({ patient: PLANTED.name, ...meta }));
    const padded = Math.ceil((12 + json.length) / 8) * 8 - 12;
    const samples = real.subarray(12 + headerLength);
    const out = new Uint8Array(12 + padded + samples.length);
    out.set(real.subarray(0, 8));
    new DataView(out.buffer).setUint32(8, padded, true);
    out.fill(0x20, 12, 12 + padded);
    out.set(json, 12);
    out.set(samples, 12 + padded);
    return out;
  })();
  const appended = new Uint8Array([...png(5), ...plantedDicom()]);
  return [
    {
      name: 'burned-in annotation',
      zip: bundle({ 'case-1': ['images/scan.dcm'] }, { 'images/scan.dcm': plantedDicom({ burnedInAnnotation: 'YES' }) }),
      file: 'images/scan.dcm',
      message: /"images\/scan\.dcm" says its pixels carry burned-in annotation \(BurnedInAnnotation \(0028,0301\) is YES\)/,
    },
    {
      name: 'DICOM in a ZIP inside a ZIP in sources/',
      zip: bundle({ 'case-1': ['images/plain.png'] }, { 'images/plain.png': png(3), 'sources/archive.zip': zipSync({ 'inner.zip': inner }) }),
      file: 'sources/archive.zip',
      message: /"sources\/archive\.zip" is an archive whose "inner\.zip" is an archive holding a DICOM file \("deep\/scan\.bin"\)/,
    },
    {
      name: 'gzip-compressed DICOM in sources/',
      zip: bundle({ 'case-1': ['images/plain.png'] }, { 'images/plain.png': png(3), 'sources/scan.dcm.gz': gzipSync(plantedDicom()) }),
      file: 'sources/scan.dcm.gz',
      message: /"sources\/scan\.dcm\.gz" is a gzip-compressed DICOM file/,
    },
    {
      name: 'a PNG case image with a DICOM file appended',
      zip: bundle({ 'case-1': ['images/polyglot.png'] }, { 'images/polyglot.png': appended }),
      file: 'images/polyglot.png',
      message: /"images\/polyglot\.png" holds a DICOM file inside it/,
    },
    {
      name: 'a forged image source container',
      zip: bundle({ 'case-1': ['images/plain.png'] }, { 'images/plain.png': png(3), 'sources/forged.nevol': forged }),
      file: 'sources/forged.nevol',
      message: /"sources\/forged\.nevol" is an image source container that NeuroEval did not write as is/,
    },
    {
      name: 'a DICOM file without pixel data in sources/',
      zip: bundle({ 'case-1': ['images/plain.png'] }, { 'images/plain.png': png(3), 'sources/report.dcm': plantedDicom({ omitPixelData: true }) }),
      file: 'sources/report.dcm',
      message: /"sources\/report\.dcm" cannot be: This DICOM file has no pixel data/,
    },
  ];
}
