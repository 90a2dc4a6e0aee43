/**
 * Hostile benchmark archives and files, crafted small: archives that declare
 * or inflate to gigabytes (a few megabytes each on disk), archives whose
 * headers lie, images and volumes whose headers lie, a bundle whose declared
 * image hash does not match, and NeuroVLM-Bench indexes with labels outside
 * the benchmark's label set; and inputs that would get something private
 * stored or break an import without a clear error: images with text chunks,
 * EXIF and comments, DICOM with the patient's name in its free text, a
 * bzip2-compressed DICOM file and other unread formats under `prompts/`, a
 * number that reads as infinity, look-alike case ids, NIfTI headers with an
 * offset inside the header or NaN scaling, and a ZIP whose end record is
 * forged inside its comment. Made fresh at test time (and by
 * scripts/make-hostile-archives.ts for a manual look); never committed.
 */
import { strToU8, zipSync } from 'fflate';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { crc32 } from '../../src/core/hash/crc32.ts';
import { sha256Hex } from '../../src/core/hash/sha256.ts';
import { encodePng } from '../../src/core/imaging/png-encode.ts';
import { makeDicom, makeNifti } from './fixtures-imaging/index.ts';
import { jpegWithMetadata, pngWithMetadata } from './hostile-images.ts';
import { deflated, forgeZip, repeatedDeflate, stored } from './zip-forge.ts';

/** Files of one hostile input, by path; `input` is what to import (an archive, or a folder ending in "/"). */
export interface HostileInput {
  readonly input: string;
  readonly files: ReadonlyMap<string, Uint8Array>;
}

const MiB = 1024 ** 2;

function png(seed: number, size = 8): Uint8Array {
  return encodePng(Uint8Array.from({ length: size * size }, (_, i) => (i * 31 + seed * 17) & 0xff), size, size);
}

function manifest(id: string): string {
  return JSON.stringify({ format: 'neuroeval-bundle', formatVersion: 1, id, name: `Hostile ${id}`, version: '1', license: 'CC0-1.0' });
}

function caseLine(id: string, image: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ id, taskFamily: 'classification', images: [{ path: image, ...extra }], questions: [{ id: 'q1', text: 'What does this scan show?' }] });
}

/** A small valid bundle's entries, to which each hostile archive adds its trick. */
function bundleEntries(id: string) {
  return [stored('manifest.json', manifest(id)), stored('cases.jsonl', `${caseLine('c1', 'images/a.png')}\n`), stored('images/a.png', png(1))];
}

function single(name: string, bytes: Uint8Array): HostileInput {
  return { input: name, files: new Map([[name, bytes]]) };
}

/** Deterministic noise, so compression ratios are the same on every run. */
function noise(length: number, seed: number): Uint8Array {
  let x = seed >>> 0 || 1;
  return Uint8Array.from({ length }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x & 0xff;
  });
}

/** 1 MiB that deflates about 440:1: zeros with a sprinkle of noise. */
function block440(): Uint8Array {
  const block = new Uint8Array(MiB);
  block.set(noise(1_140, 7), 0);
  return block;
}

/** A bundle ZIP with one extra asset whose packed size is declared 0 and unpacked size 1 GiB (the "1 KB archive, 1 GB asset"). */
export function zeroCompressedSize(): HostileInput {
  const asset = { name: 'assets/big.bin', data: new Uint8Array(0), method: 8 as const, crc: 0, size: 1024 ** 3, compressedSize: 0 };
  return single('zero-size.zip', forgeZip([...bundleEntries('zero-size'), asset]));
}

/** Four honest entries of 1000 MiB each at about 440:1 (about 9 MB on disk): under the old 1,000:1 rule, 4 GB in memory. */
export function ratioBomb(): HostileInput {
  const stream = repeatedDeflate(block440(), 1000);
  const entries = [0, 1, 2, 3].map((i) => ({ name: `assets/part${i}.bin`, method: 8 as const, ...stream }));
  return single('ratio-bomb.zip', forgeZip([...bundleEntries('ratio-bomb'), ...entries]));
}

/** The same 1000 MiB stream declared as 1 MiB: only inflating reveals it. */
export function lyingBomb(): HostileInput {
  const stream = repeatedDeflate(block440(), 1000);
  return single('lying-bomb.zip', forgeZip([...bundleEntries('lying-bomb'), { name: 'assets/small.bin', method: 8, ...stream, size: MiB }]));
}

/** cases.jsonl declared as 10 bytes while it holds 100,000 (it used to be cut to 10 without a word). */
export function understatedEntry(): HostileInput {
  const lines = Array.from({ length: 1_000 }, (_, i) => caseLine(`c${i}`, 'images/a.png')).join('\n');
  const text = strToU8(`${lines}\n`.padEnd(100_000, ' ').slice(0, 100_000));
  const d = deflated(text);
  const entries = [stored('manifest.json', manifest('understated')), { name: 'cases.jsonl', method: 8 as const, ...d, size: 10 }, stored('images/a.png', png(1))];
  return single('understated.zip', forgeZip(entries));
}

/** Forty 15 MiB entries of zeros, each under the per-file ratio allowance, 600 MiB from 600 KB together. */
export function swarmBomb(): HostileInput {
  const stream = repeatedDeflate(new Uint8Array(MiB), 15);
  const entries = Array.from({ length: 40 }, (_, i) => ({ name: `assets/zeros${i}.bin`, method: 8 as const, ...stream }));
  return single('swarm.zip', forgeZip([...bundleEntries('swarm'), ...entries]));
}

/** Ten names pointing at one 15 MiB stream of zeros (overlapping entries). */
export function overlapBomb(): HostileInput {
  const stream = repeatedDeflate(new Uint8Array(MiB), 15);
  const entries = Array.from({ length: 10 }, (_, i) => ({ name: `assets/copy${i}.bin`, method: 8 as const, ...stream, ...(i > 0 ? { sameDataAs: 'assets/copy0.bin' } : {}) }));
  return single('overlap.zip', forgeZip([...bundleEntries('overlap'), ...entries]));
}

/** A valid bundle that also carries a 300 KB file outside images/: stored, so the preview must count it. */
export function bundleWithAsset(): HostileInput {
  return single('with-asset.zip', zipSync({ 'manifest.json': strToU8(manifest('with-asset')), 'cases.jsonl': strToU8(`${caseLine('c1', 'images/a.png')}\n`), 'images/a.png': png(1), 'notes/readme.bin': noise(300_000, 3) }));
}

/** An 8 × 8 PNG whose header (CRC fixed up) says 10000 × 10000. */
export function lyingPng(): Uint8Array {
  const bytes = png(2);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  view.setUint32(16, 10_000);
  view.setUint32(20, 10_000);
  view.setUint32(29, crc32(bytes.subarray(12, 29)));
  return bytes;
}

/** A bundle whose only image is the lying PNG. */
export function pngLiar(): HostileInput {
  return single('png-liar.zip', zipSync({ 'manifest.json': strToU8(manifest('png-liar')), 'cases.jsonl': strToU8(`${caseLine('c1', 'images/liar.png')}\n`), 'images/liar.png': lyingPng() }));
}

/** A bundle whose second case declares the SHA-256 of an image other than the one it holds. */
export function shaMismatch(): HostileInput {
  const cases = [caseLine('c1', 'images/a.png', { sha256: sha256Hex(png(1)) }), caseLine('c2', 'images/b.png', { sha256: sha256Hex(png(3)) })];
  return single('sha-mismatch.zip', zipSync({ 'manifest.json': strToU8(manifest('sha-mismatch')), 'cases.jsonl': strToU8(`${cases.join('\n')}\n`), 'images/a.png': png(1), 'images/b.png': png(4) }));
}

/** A NIfTI-1 volume (8 × 8 × 4) whose header says its second dimension is -8. */
export function negativeNifti(): Uint8Array {
  const bytes = makeNifti({ dims: [8, 8, 4], datatype: 'uint8', value: (x, y, z) => (x + y + z) * 8 });
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setInt16(40 + 2 * 2, -8, true);
  return bytes;
}

/** A bundle whose only image is that NIfTI. */
export function niftiNegative(): HostileInput {
  return single('nifti-negative.zip', zipSync({ 'manifest.json': strToU8(manifest('nifti-negative')), 'cases.jsonl': strToU8(`${caseLine('c1', 'images/brain.nii')}\n`), 'images/brain.nii': negativeNifti() }));
}

const NVB_HEADER = 'dataset,file_path,class,original_class,subclass,modality,modality_subtype,plane';

function nvbFolder(folder: string, rows: readonly string[]): HostileInput {
  const files = new Map<string, Uint8Array>([[`${folder}/subset_hostile.csv`, strToU8(`${[NVB_HEADER, ...rows].join('\n')}\n`)]]);
  rows.forEach((row, i) => files.set(`${folder}/${row.split(',')[1]!}`, png(10 + i, 16)));
  return { input: `${folder}/`, files };
}

/** A NeuroVLM-Bench index whose labels fall outside the benchmark's set (lines 3 and 4), otherwise valid. */
export function nvbOffLabels(): HostileInput {
  return nvbFolder('nvb-off-labels', [
    'images-17,img/a.png,tumor,Glioma T2,glioma,MRI,T2,axial',
    'sclerosis,img/b.png,normal,Normal,,MRI,T1,diagonal',
    'stroke,img/c.png,stroke,Stroke,glioma,CT,,axial',
  ]);
}

/** A NeuroVLM-Bench index with a spreadsheet formula as a class (line 3). */
export function nvbFormula(): HostileInput {
  return nvbFolder('nvb-formula', ['images-17,img/a.png,tumor,Glioma T2,glioma,MRI,T2,axial', 'images-17,img/b.png,"=HYPERLINK(""x"")",Glioma T2,,MRI,T2,axial']);
}

/** The marker planted in every private value of the inputs below: no stored row and no export may contain it. */
export const PRIVATE_MARKER = 'ZZPRIVMARK';

/** A bundle ZIP of the given cases (one PNG image each unless given) and extra files. */
function bundleZip(id: string, lines: readonly string[], files: Record<string, Uint8Array>): Uint8Array {
  return zipSync({ 'manifest.json': strToU8(manifest(id)), 'cases.jsonl': strToU8(`${lines.join('\n')}\n`), ...files });
}

/**
 * A DICOM file with the patient's name (diacritics included) and the marker
 * in its free text: ProtocolName, SequenceName and the descriptions, as a
 * technologist types them.
 */
export function freeTextDicom(): Uint8Array {
  return makeDicom({
    rows: 8, columns: 8, modality: 'MR', charset: 'ISO_IR 192', seriesUid: '1.2.826.0.1.3680043.8.498.3344',
    patient: { name: 'MÜLLER^JÜRGEN', id: `${PRIVATE_MARKER}ID` },
    technical: {
      manufacturer: 'SIEMENS',
      protocolName: `MÜLLER JÜRGEN brain ${PRIVATE_MARKER}P`,
      sequenceName: `${PRIVATE_MARKER}S`,
      seriesDescription: `SMITH JANE DOB 01/01/1960 ${PRIVATE_MARKER}D`,
      studyDescription: `${PRIVATE_MARKER}STUDY`,
      procedureDescription: `${PRIVATE_MARKER}PROC`,
    },
  });
}

/** A bundle whose case images carry the marker outside their pixels: PNG tEXt, iTXt and zTXt (holding a whole DICOM file), JPEG COM and EXIF. */
export function imageMetadata(): HostileInput {
  const dicom = makeDicom({ rows: 4, columns: 4, patient: { name: `${PRIVATE_MARKER}^ZTXT` } });
  return single('image-metadata.zip', bundleZip('image-metadata', [caseLine('c1', 'images/scan.png'), caseLine('c2', 'images/photo.jpg')], {
    'images/scan.png': pngWithMetadata(PRIVATE_MARKER, dicom),
    'images/photo.jpg': jpegWithMetadata(PRIVATE_MARKER),
    'prompts/diagram.png': pngWithMetadata(`${PRIVATE_MARKER}SIDE`),
  }));
}

/**
 * Every private value that an import must not store, in one bundle that
 * imports: a PNG case image with text chunks (one a compressed DICOM file), a
 * JPEG with a comment and EXIF, a DICOM case image with the patient's name
 * (diacritics) and the marker in its free text, and a PNG with text beside
 * the cases. Each case has a reference answer, so runs of it score.
 */
export function privateProbe(): HostileInput {
  const dicom = makeDicom({ rows: 4, columns: 4, patient: { name: `${PRIVATE_MARKER}^ZTXT` } });
  const withReference = (line: string) => line.replace('"text":"What does this scan show?"', '"text":"What does this scan show?","reference":{"diagnosis":"glioma"}');
  return single('private-probe.zip', bundleZip('private-probe', [caseLine('c1', 'images/scan.png'), caseLine('c2', 'images/photo.jpg'), caseLine('c3', 'images/scan.dcm')].map(withReference), {
    'images/scan.png': pngWithMetadata(PRIVATE_MARKER, dicom),
    'images/photo.jpg': jpegWithMetadata(PRIVATE_MARKER),
    'images/scan.dcm': freeTextDicom(),
    'prompts/diagram.png': pngWithMetadata(`${PRIVATE_MARKER}SIDE`),
  }));
}

/** A bundle whose case image is a DICOM file with the patient's name and the marker in its free text. */
export function dicomFreeText(): HostileInput {
  return single('dicom-free-text.zip', bundleZip('dicom-free-text', [caseLine('c1', 'images/scan.dcm')], { 'images/scan.dcm': freeTextDicom() }));
}

/**
 * A real bzip2 stream of a DICOM file with planted patient data
 * (hostile-bundles.ts's plantedDicom(), compressed by Python's bz2 module at
 * level 9): no byte search finds "DICM" or a name inside it.
 */
const BZIP2_DICOM_BASE64 =
  'QlpoOTFBWSZTWa3nN1AAAAX/8/////3+f//n////0cAAAgTAAEAAAIQAAkCAAAHAAn0OGddjuGqeU0ajJMTGk8pmk9GpoxPTUGmmEYmIyNA0AG' +
  'gANTQaKnjFNGkAAAB6gAAAAAAANAGmihMnqmBNPKeiAANAAAAADQNA00AAkiIm1T1JmhMGpgCYjRgIwaaARkMATAAH8+Bkd8RFTyete1ZfBplh' +
  'YbitvptQZjjGF0sk5xSITkMbZgNW7YSkLmDXbNqO5K/mYovKqsIE+a7QrvFRTEpGJb4OWDJQ0lr60zZKjUOrW2pAgpnXTJkQ7e5urribTvoZsN' +
  '79ngtW7mlC/SsNhp6coiVdKrxXr8NTVwceHFjsclFyS44fLftaLl3JDlzdHTmwdXX2TGM2dp4oLKWwX0U7vkrJWi4c/Piysr5IhAt5hhgMviKD' +
  'FCmjFHKioQlMoBQeVj5d5ViFRLChQQSxxPhUmftgMlZyiocIi1f47UCMoH00lGvaswxPp5mMivPZzwlQvvrEUqmIgzl+ygqi9lYCy1vIecCKRn' +
  'kKRRKBkVQqqFBnGoUtyQvGir0cmg0pgghiDigcUJFYokMKwbYFFewop78LCYHICUwyWwQSnGnKkQnAoKN5FASSkERT7LhRJwlIcjTaRSmEMk7C' +
  'ppnmIoJMgabEIDGG6UBbAYDpTcFhgBkgNAV5mAkTwJVAoZEDwchSD0Ug8YWbtK6hZTMTg6eqEAIxkRDA5kKCWUogNAgNwveP8Csq6Fg6DnmrOJ' +
  'TAQW+0IjM3YgrIVHAK+JTYKqBT6okiqCRMixFUAgRKF59tMLilBvwgoUkVdMzSitZAg6w5FCXKODXNnoQFzUPlgVFSlyRXSFgkPgsB9ZRxNTZJ' +
  'pzbWfKEoAWaSFxkyBmr+UpshRVUOkaV9acAmurmaUJAUufnMgKGNpl0iiJEpQJIRH8p6laYPsyyGzl6ldmIJKk+bky9hMmEwKhQXuLuSKcKEhW' +
  '85uoA=';

/** The first bytes of each compressed or archive format NeuroEval does not open, then noise: refused by content whatever the name. */
export const UNREAD_FORMATS: Readonly<Record<string, { readonly name: string; readonly bytes: Uint8Array }>> = {
  bzip2: { name: 'prompts/scan.dcm.bz2', bytes: Uint8Array.from(Buffer.from(BZIP2_DICOM_BASE64, 'base64')) },
  xz: { name: 'prompts/notes.xz', bytes: Uint8Array.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, ...noise(64, 11)]) },
  Zstandard: { name: 'prompts/notes.zst', bytes: Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, ...noise(64, 12)]) },
  '7-Zip': { name: 'sources/archive.7z', bytes: Uint8Array.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, ...noise(64, 13)]) },
  RAR: { name: 'assets/archive.rar', bytes: Uint8Array.from([0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x01, 0x00, ...noise(64, 14)]) },
};

/** A bundle with a bzip2-compressed DICOM file under prompts/ (named .txt, so only its content tells). */
export function bz2Prompt(): HostileInput {
  return single('bz2-prompt.zip', bundleZip('bz2-prompt', [caseLine('c1', 'images/a.png')], { 'images/a.png': png(1), 'prompts/system.txt': UNREAD_FORMATS.bzip2!.bytes }));
}

/** A bundle whose cases.jsonl line 2 holds a number that reads as infinity (its EHR age is 1e400). */
export function infiniteNumber(): HostileInput {
  const line = caseLine('c2', 'images/a.png').replace('"taskFamily"', '"ehr":{"age":1e400},"taskFamily"');
  return single('infinite.zip', bundleZip('infinite', [caseLine('c1', 'images/a.png'), line], { 'images/a.png': png(1) }));
}

/** A bundle whose case ids look alike: case1 and case1 with a zero-width space, a right-to-left override, a NUL; café composed and decomposed. */
export function lookalikeIds(): HostileInput {
  const ids = ['case1', 'case\u200b1', 'case\u202e1gpj.exe', 'case\u00001', 'caf\u00e9', 'cafe\u0301'];
  return single('lookalike-ids.zip', bundleZip('lookalike-ids', ids.map((id) => caseLine(id, 'images/a.png')), { 'images/a.png': png(1) }));
}

/** A NIfTI-1 volume (8 × 8 × 4) with `patch` applied to its header. */
function patchedNifti(patch: (view: DataView) => void): Uint8Array {
  const bytes = makeNifti({ dims: [8, 8, 4], datatype: 'uint8', value: (x, y, z) => (x + y + z) * 8 });
  patch(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return bytes;
}

/** A bundle whose NIfTI image puts its voxels at byte 0 (vox_offset inside the header). */
export function niftiVoxOffset(): HostileInput {
  return single('nifti-vox-offset.zip', bundleZip('nifti-vox-offset', [caseLine('c1', 'images/brain.nii')], { 'images/brain.nii': patchedNifti((v) => v.setFloat32(108, 0, true)) }));
}

/** A bundle whose NIfTI image scales its voxels by NaN. */
export function niftiNanSlope(): HostileInput {
  return single('nifti-nan-slope.zip', bundleZip('nifti-nan-slope', [caseLine('c1', 'images/brain.nii')], { 'images/brain.nii': patchedNifti((v) => v.setFloat32(112, Number.NaN, true)) }));
}

/** A valid bundle ZIP whose archive comment holds a second, forged end record listing no files. */
export function forgedEndRecord(): HostileInput {
  const real = bundleZip('forged-end', [caseLine('c1', 'images/a.png')], { 'images/a.png': png(1) });
  const forged = new Uint8Array(22);
  new DataView(forged.buffer).setUint32(0, 0x06054b50, true);
  // The real end record is the last 22 bytes (no comment): give it a comment that is the forged record.
  const out = new Uint8Array(real.length + forged.length);
  out.set(real);
  new DataView(out.buffer).setUint16(real.length - 2, forged.length, true);
  out.set(forged, real.length);
  return single('forged-end.zip', out);
}

/** Writes one hostile input under `dir` and returns the path to import (a file, or a folder). */
export function writeHostile(input: HostileInput, dir: string): string {
  for (const [path, bytes] of input.files) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, bytes);
  }
  return join(dir, input.input);
}

/** Every hostile input, by a short name (for scripts/make-hostile-archives.ts). */
export const HOSTILE_ARCHIVES: Readonly<Record<string, () => HostileInput>> = {
  'zero-compressed-size': zeroCompressedSize,
  'ratio-bomb': ratioBomb,
  'lying-bomb': lyingBomb,
  'understated-entry': understatedEntry,
  'swarm-bomb': swarmBomb,
  'overlap-bomb': overlapBomb,
  'bundle-with-asset': bundleWithAsset,
  'png-liar': pngLiar,
  'sha-mismatch': shaMismatch,
  'nifti-negative': niftiNegative,
  'nvb-off-labels': nvbOffLabels,
  'nvb-formula': nvbFormula,
  'image-metadata': imageMetadata,
  'dicom-free-text': dicomFreeText,
  'bz2-prompt': bz2Prompt,
  'infinite-number': infiniteNumber,
  'lookalike-ids': lookalikeIds,
  'nifti-vox-offset': niftiVoxOffset,
  'nifti-nan-slope': niftiNanSlope,
  'forged-end-record': forgedEndRecord,
  'private-probe': privateProbe,
};
