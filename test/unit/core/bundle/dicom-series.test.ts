/**
 * DICOM by itself as a benchmark (importers/dicom.ts): a series folder out
 * of order is stacked by position, a multi-frame file is a volume whose
 * slices and planes can be picked, a secondary capture is refused until
 * burned-in text is accepted, and a study of two patients gets one salted
 * patient key per patient, technical tags on each case, and no identifier
 * or salt in anything stored or exported.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareImport, type ImportPreview } from '../../../../src/core/importers/import-pipeline.ts';
import { memoryFile } from '../../../../src/core/bundle/importer.ts';
import { commitBundle, loadBundle } from '../../../../src/core/stored/benchmark-store.ts';
import type { Bundle } from '../../../../src/core/bundle/types.ts';
import { writeBundleZip } from '../../../../src/core/bundle/zip-write.ts';
import { createRepositories, openDatabase, type NeuroEvalDB } from '../../../../src/core/db/index.ts';
import { sha256Hex } from '../../../../src/core/hash/sha256.ts';
import { decodeVolume, parseDicom, renderDicomFrame } from '../../../../src/core/imaging/index.ts';
import { makeDicom } from '../../../support/fixtures-imaging/index.ts';
import { axialSeries, multiFrameFile, PATIENT_A, PATIENT_B, secondaryCapture, SERIES_UIDS, slicePixel, twoPatientStudy } from '../../../support/dicom-studies.ts';

const opened: NeuroEvalDB[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

const files = (list: readonly { name: string; bytes: Uint8Array }[]) => list.map((f) => memoryFile(f.name, f.bytes));

function ready(p: ImportPreview): Bundle {
  expect(p.errors).toEqual([]);
  expect(p.importer.kind).toBe('dicom');
  return p.bundle!;
}

/** Everything a bundle would store, as one Latin-1 text: cases, manifest, image and source bytes. */
function storedText(b: Bundle): string {
  const latin1 = new TextDecoder('latin1');
  return [JSON.stringify(b.manifest), JSON.stringify(b.cases), ...[...b.images.values(), ...b.files.values()].map((x) => latin1.decode(x))].join('\n');
}

const IDENTIFIERS = [PATIENT_A.name, PATIENT_A.id, PATIENT_A.studyUid, PATIENT_B.name, PATIENT_B.id, PATIENT_B.studyUid, ...SERIES_UIDS, 'ALPHA', 'BRAVO'];

describe('a series folder out of order', () => {
  const series = axialSeries({ seriesUid: '1.2.826.0.1.3680043.8.498.4242', slices: 5 }, 'scan');

  it('stacks the slices by position, not by file name or instance number, and every slice renders as its own file would', async () => {
    // Name order and InstanceNumber order both differ from position order.
    expect(series.map((s) => s.z)).not.toEqual([...series].sort((a, b) => a.name.localeCompare(b.name)).map((s) => s.z));
    const p = await prepareImport(files(series), { options: { seriesSlices: 'all' } });
    const b = ready(p);
    expect(b.cases).toHaveLength(1);
    const c = b.cases[0]!;
    expect(c.images.map((i) => [i.plane, i.slice])).toEqual([0, 1, 2, 3, 4].map((s) => ['axial', s]));
    expect(c.images.map((i) => i.label)).toEqual(['axial 1/5', 'axial 2/5', 'axial 3/5', 'axial 4/5', 'axial 5/5']);

    // The stored volume holds slice z at k = z: its first voxel is slicePixel(z)(0, 0, 0).
    const [container] = [...b.files.values()];
    const volume = decodeVolume(container!);
    expect(volume.kind).toBe('nifti');
    if (volume.kind !== 'nifti') return;
    expect(volume.header.dims).toEqual([8, 6, 5]);
    expect(volume.header.pixdim).toEqual([0.9, 0.9, 5]);
    expect([0, 1, 2, 3, 4].map((z) => volume.data[z * 48])).toEqual([0, 1, 2, 3, 4].map((z) => slicePixel(z)(0, 0, 0)));

    // Each PNG is byte for byte what the single-file DICOM path renders for the file at that position.
    const byZ = [...series].sort((a, b2) => a.z - b2.z);
    c.images.forEach((img, k) => {
      const own = renderDicomFrame(parseDicom(byZ[k]!.bytes), 0).png;
      expect(img.sha256).toBe(sha256Hex(own));
      expect(p.imageInputs?.[img.sha256!]).toBe(byZ[k]!.name);
    });
  });

  it('shows the middle slice by default, and a reformatted plane when asked', async () => {
    const middle = ready(await prepareImport(files(series)));
    expect(middle.cases[0]!.images.map((i) => [i.plane, i.slice, i.width, i.height])).toEqual([['axial', 2, 8, 6]]);
    const coronal = ready(await prepareImport(files(series), { options: { seriesPlane: 'coronal', seriesSlices: [0, 5] } }));
    // Coronal slices run across the rows: 6 of them, each 8 wide and 5 slices high.
    expect(coronal.cases[0]!.images.map((i) => [i.plane, i.slice, i.width, i.height])).toEqual([['coronal', 0, 8, 5], ['coronal', 5, 8, 5]]);
  });

  it('refuses a slice that does not exist, naming the series and the count', async () => {
    const p = await prepareImport(files(series), { options: { seriesSlices: [7] } });
    expect(p.ok).toBe(false);
    expect(p.errors[0]!.message).toMatch(/^Slice 7 does not exist: series series-[0-9a-f]{8} has 5 axial slices \(0–4\)\.$/);
    expect(p.errors[0]!.location?.field).toBe('seriesSlices');
  });

  it('reads the same folder zipped, and falls back to InstanceNumber when positions are missing', async () => {
    const zip = zipSync(Object.fromEntries(series.map((s) => [s.name, s.bytes])));
    const zipped = ready(await prepareImport([memoryFile('export.zip', zip)], { options: { seriesSlices: 'all' } }));
    const folder = ready(await prepareImport(files(series), { options: { seriesSlices: 'all' } }));
    expect(zipped.cases[0]!.images.map((i) => i.sha256)).toEqual(folder.cases[0]!.images.map((i) => i.sha256));

    // Without ImagePositionPatient, InstanceNumber orders the slices (here against the file names).
    const numbered = [2, 0, 1].map((z, i) => memoryFile(`n/${i}`, makeDicom({ rows: 6, columns: 8, window: { center: 400, width: 800 }, seriesUid: '1.2.3.8', instanceNumber: z + 1, pixel: slicePixel(z) })));
    const byNumber = ready(await prepareImport(numbered, { options: { seriesSlices: 'all' } }));
    const volume = decodeVolume([...byNumber.files.values()][0]!);
    expect([0, 1, 2].map((z) => volume.data[z * 48])).toEqual([0, 1, 2].map((z) => slicePixel(z)(0, 0, 0)));
  });
});

describe('a multi-frame file', () => {
  it('is a volume of its frames: picked slices are those frames, and other planes cut across them', async () => {
    const bytes = multiFrameFile(4);
    const b = ready(await prepareImport([memoryFile('cine.dcm', bytes)], { options: { seriesSlices: [0, 3] } }));
    const c = b.cases[0]!;
    const parsed = parseDicom(bytes);
    expect(c.images.map((i) => i.sha256)).toEqual([0, 3].map((f) => sha256Hex(renderDicomFrame(parsed, f).png)));
    expect(c.meta).toMatchObject({ 'dicom.manufacturer': 'Philips Medical Systems', 'dicom.model': 'Ingenia', 'dicom.fieldStrength': '3' });
    const sagittal = ready(await prepareImport([memoryFile('cine.dcm', bytes)], { options: { seriesPlane: 'sagittal', seriesSlices: 'all' } }));
    expect(sagittal.cases[0]!.images.map((i) => [i.width, i.height])).toEqual(Array(8).fill([6, 4]));
  });
});

describe('a secondary capture with burned-in text', () => {
  it('is refused by default naming the file and its SOP class, and imported with a warning once accepted', async () => {
    const input = [memoryFile('screens/capture1', secondaryCapture())];
    const refused = await prepareImport(input);
    expect(refused.ok).toBe(false);
    expect(refused.errors).toHaveLength(1);
    expect(refused.errors[0]!.location).toEqual({ file: 'screens/capture1', field: 'SOPClassUID' });
    expect(refused.errors[0]!.message).toContain('"screens/capture1" is a secondary capture');
    expect(refused.errors[0]!.message).toContain('Secondary Capture Image Storage');
    expect(refused.errors[0]!.message).toContain('accept burned-in annotation');

    const accepted = await prepareImport(input, { options: { acceptBurnedInAnnotation: true } });
    const b = ready(accepted);
    expect(accepted.warnings.map((w) => w.message)).toContainEqual(expect.stringContaining('"screens/capture1" may have text in its pixels (SOPClassUID); imported because you accepted burned-in annotation'));
    expect(b.cases[0]!.images).toHaveLength(1);
  });

  it('refuses a screenshot by its ImageType', async () => {
    const shot = await prepareImport([memoryFile('s.dcm', makeDicom({ imageType: 'DERIVED\\SECONDARY\\SCREEN SHOT', seriesUid: '1.2.3.9' }))]);
    expect(shot.errors[0]!.location).toEqual({ file: 's.dcm', field: 'ImageType' });
  });
});

describe('a series of two patients', () => {
  it('gives each patient one salted key, each series its own, technical tags on every case, and stores no identifier', async () => {
    const study = twoPatientStudy(3);
    const p = await prepareImport(files(study));
    const b = ready(p);
    expect(b.cases).toHaveLength(3);
    expect(b.manifest.name).toBe('DICOM import (3 series, 2 patients)');
    const metas = b.cases.map((c) => c.meta!);
    const patients = new Set(metas.map((m) => m['dicom.patientKey']));
    expect(patients.size).toBe(2);
    expect(new Set(metas.map((m) => m['dicom.seriesKey'])).size).toBe(3);
    expect(new Set(metas.map((m) => m['dicom.studyKey'])).size).toBe(2);
    for (const m of metas) expect(m['dicom.patientKey']).toMatch(/^[0-9a-f]{16}$/);

    const a = metas.filter((m) => m['dicom.fieldStrength'] === '1.5');
    const bMeta = metas.filter((m) => m['dicom.fieldStrength'] === '3');
    expect(a).toHaveLength(2);
    expect(new Set(a.map((m) => m['dicom.patientKey'])).size).toBe(1);
    // Coded technical tags only: free text (sequence and protocol names, the agent's name) is dropped by default.
    expect(a[0]).toMatchObject({ 'dicom.manufacturer': 'SIEMENS', 'dicom.model': 'Avanto', 'dicom.contrast': 'no' });
    for (const m of metas) expect(Object.keys(m).filter((k) => k === 'dicom.sequence' || k === 'dicom.protocol')).toEqual([]);
    expect(a.map((m) => m['dicom.sliceThickness']).sort()).toEqual(['3', '5']);
    expect(bMeta[0]).toMatchObject({ 'dicom.manufacturer': 'GE MEDICAL SYSTEMS', 'dicom.model': 'SIGNA Premier', 'dicom.contrast': 'yes', 'dicom.sliceThickness': '5' });
    expect(bMeta[0]!['dicom.patientKey']).not.toBe(a[0]!['dicom.patientKey']);

    // Technical tags kept are not listed as dropped; identity tags and free text are.
    const dropped = p.droppedTags.map((t) => t.keyword);
    expect(dropped).toEqual(expect.arrayContaining(['PatientName', 'PatientID', 'StudyInstanceUID', 'SeriesInstanceUID', 'SequenceName', 'ProtocolName']));
    expect(dropped).not.toContain('Manufacturer');

    const text = storedText(b).toUpperCase();
    for (const s of [...IDENTIFIERS, ...study.map((f) => f.name.toUpperCase())]) expect(text).not.toContain(s.toUpperCase());
    expect(text).not.toContain(p.keySalt!.toUpperCase());
  });

  it('makes different keys in another import (another salt), so keys cannot be matched across benchmarks', async () => {
    const one = ready(await prepareImport(files(twoPatientStudy(1))));
    const two = ready(await prepareImport(files(twoPatientStudy(1))));
    const keys = (b: Bundle) => b.cases.map((c) => c.meta!['dicom.patientKey']);
    expect(new Set([...keys(one), ...keys(two)]).size).toBe(4);
  });

  it('keeps the salt with the stored benchmark and out of its export', async () => {
    const db = await openDatabase({ name: `dicom-series-${Date.now()}`, indexedDB, IDBKeyRange });
    opened.push(db);
    const repos = createRepositories(db);
    const p = await prepareImport(files(twoPatientStudy(2)));
    expect(p.keySalt).toMatch(/^[0-9a-f]{32}$/);
    const done = await commitBundle(repos, ready(p), { keySalt: p.keySalt! });
    expect((await repos.benchmarks.get(done.benchmarkId))!.keySalt).toBe(p.keySalt);
    const zip = writeBundleZip(await loadBundle(repos, done.benchmarkId));
    const latin1 = new TextDecoder('latin1');
    const everything = [latin1.decode(zip), ...Object.values(unzipSync(zip)).map((x) => latin1.decode(x))].join('\n');
    expect(everything).toContain('dicom.patientKey');
    expect(everything).not.toContain(p.keySalt!);
    for (const s of IDENTIFIERS) expect(everything.toUpperCase()).not.toContain(s.toUpperCase());
  });

  it('keeps sequence and protocol names, descriptions and the agent only when asked, cleaned', async () => {
    const p = await prepareImport(files(twoPatientStudy(1)), { options: { keepDicomDescriptions: true } });
    const metas = ready(p).cases.map((c) => c.meta!);
    expect(metas.find((m) => m['dicom.fieldStrength'] === '1.5')).toMatchObject({ 'dicom.sequence': '*tse2d1_15', 'dicom.protocol': 't2_tse_tra', 'dicom.contrast': 'no' });
    expect(metas.find((m) => m['dicom.fieldStrength'] === '3')).toMatchObject({ 'dicom.sequence': 'fse', 'dicom.protocol': 'AX T2 FLAIR', 'dicom.contrast': 'GADOVIST' });
    expect(p.droppedTags.map((t) => t.keyword)).not.toContain('ProtocolName');
  });

  it('takes the patient name out of a protocol name kept on request, saying so', async () => {
    const study = axialSeries({ patient: PATIENT_A, seriesUid: '1.2.3.77', slices: 2, technical: { protocolName: 'ALPHA brain follow-up', manufacturer: 'SIEMENS' } }, 'x');
    const plain = ready(await prepareImport(files(study)));
    expect(plain.cases[0]!.meta).not.toHaveProperty('dicom.protocol');
    const p = await prepareImport(files(study), { options: { keepDicomDescriptions: true } });
    const b = ready(p);
    expect(b.cases[0]!.meta!['dicom.protocol']).toBe('brain follow-up');
    expect(b.cases[0]!.meta!['dicom.manufacturer']).toBe('SIEMENS');
    expect(p.warnings.map((w) => w.message)).toContain(`"x/IM0000": ProtocolName held the patient's name, an ID or a date; only the rest is kept.`);
    expect(JSON.stringify(b.cases).toUpperCase()).not.toContain('ALPHA');
  });
});

describe('an answer key beside the study', () => {
  const key = (rows: string) => memoryFile('study/answer-key.csv', strToU8(`case_id,diagnosis,disease_group\n${rows}`));

  it('joins rows naming a series by its folder or one of its files, and keeps no path', async () => {
    const study = twoPatientStudy(3);
    const p = await prepareImport([...files(study), key('a1,glioma,neoplastic\nstudy/a2/IM0000,meningioma,neoplastic\n./study/b1/,multiple sclerosis,demyelinating\n')]);
    const b = ready(p);
    expect(b.cases).toHaveLength(3);
    const byThickness = (t: string, fs: string) => b.cases.find((c) => c.meta?.['dicom.sliceThickness'] === t && c.meta['dicom.fieldStrength'] === fs)!;
    expect(byThickness('5', '1.5').questions[0]!.reference?.diagnosis).toBe('glioma');
    expect(byThickness('3', '1.5').questions[0]!.reference?.diagnosis).toBe('meningioma');
    expect(byThickness('5', '3').questions[0]!.reference?.diagnosis).toBe('multiple sclerosis');
    expect(byThickness('5', '3').diseaseGroup).toBe('demyelinating');
    // NeuroVLM-Bench's label columns become the labels its structured protocol scores.
    const labelled = ready(await prepareImport([...files(study), memoryFile('answers.tsv', strToU8('case_id\tdiagnosis_name\tplane\nstudy/b1\tmultiple sclerosis\taxial\n'))]));
    expect(labelled.cases.find((c) => c.meta?.['dicom.fieldStrength'] === '3')!.questions[0]!.reference?.labels).toEqual({ diagnosis_name: 'multiple sclerosis', plane: 'axial' });
    const text = storedText(b);
    for (const s of ['study/', '/a1', 'IM0000', 'answer-key']) expect(text).not.toContain(s);
  });

  it('refuses a row that names no series, or a folder holding several, naming its line', async () => {
    const p = await prepareImport([...files(twoPatientStudy(3)), key('a9,glioma,\nstudy,glioma,\n')]);
    expect(p.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ message: expect.stringContaining('"a9" is neither a folder holding a DICOM series nor one of its files'), location: expect.objectContaining({ file: 'study/answer-key.csv', line: 2, field: 'case_id' }) }),
      ]),
    );
    // "study" holds no file directly: its series are in subfolders.
    expect(p.errors.map((e) => e.location?.line)).toContain(3);
    const flat = [...axialSeries({ seriesUid: '1.2.3.4.1', slices: 2 }, 'flat'), ...axialSeries({ seriesUid: '1.2.3.4.2', slices: 2 }, 'flat').map((f) => ({ ...f, name: f.name.replace('IM', 'JM') }))];
    const q = await prepareImport([...files(flat), key('flat,glioma,\n')]);
    expect(q.errors[0]!.message).toContain('"flat" holds 2 series; name a file of the one meant');
  });
});

describe('inputs that are not DICOM alone', () => {
  it('says which files were left out, and refuses a folder with no DICOM image', async () => {
    const series = axialSeries({ seriesUid: '1.2.3.5', slices: 2 }, 's');
    const p = await prepareImport([...files(series), memoryFile('s/notes.bin', strToU8('hello there, not dicom'))], { kind: 'dicom' });
    expect(p.warnings.map((w) => w.message)).toContain('1 file is not DICOM and is left out (first: s/notes.bin).');
    const none = await prepareImport([memoryFile('s/notes.bin', strToU8('hello'))], { kind: 'dicom' });
    expect(none.errors.map((e) => e.message)).toEqual(['None of these files is a DICOM image.']);
  });
});
