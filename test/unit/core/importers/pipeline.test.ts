/**
 * The whole import path as the app and the CLI run it: files → preview →
 * one-transaction commit → export → re-import with the same content hash,
 * plus every kind of bad input the format must refuse with a location.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { strToU8, zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareImport } from '../../../../src/core/importers/import-pipeline.ts';
import { memoryFile, type InputFile } from '../../../../src/core/bundle/importer.ts';
import { commitBundle, loadBundle } from '../../../../src/core/stored/benchmark-store.ts';
import { writeBundleZip } from '../../../../src/core/bundle/zip-write.ts';
import { createRepositories, openDatabase, type NeuroEvalDB } from '../../../../src/core/db/index.ts';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';
import { containsBytes, asciiBytes, FAKE_PATIENT, makeDicom, makeNifti } from '../../../support/fixtures-imaging/index.ts';

const opened: NeuroEvalDB[] = [];
let n = 0;
async function freshRepos() {
  const db = await openDatabase({ name: `pipeline-${++n}`, indexedDB, IDBKeyRange });
  opened.push(db);
  return createRepositories(db);
}
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

function png(seed: number, w = 16, h = 12): Uint8Array {
  return encodePng(Uint8Array.from({ length: w * h }, (_, i) => (i * seed) & 0xff), w, h);
}

const MANIFEST = { format: 'neuroeval-bundle', formatVersion: 1, id: 'tiny', name: 'Tiny', version: '1.0', license: 'CC0-1.0', description: 'test', synthetic: true };
const CASES = [
  { id: 'c1', split: 'direct', taskFamily: 'differential-diagnosis', diseaseGroup: 'stroke', modality: 'MRI', images: [{ path: 'images/a.png', sequence: 'DWI' }, { path: 'images/b.png', sequence: 'FLAIR' }], questions: [{ id: '1', text: 'Diagnosis?', reference: { diagnosis: 'ischemic stroke', differential: ['stroke', 'tumour'] } }] },
  { id: 'c2', split: 'breadth', taskFamily: 'classification', diseaseGroup: 'normal', modality: 'CT', images: [{ path: 'images/c.png' }], questions: [{ id: 'q1', text: 'Classify.', reference: { labels: { diagnosis_name: 'normal', plane: null } } }] },
];

function bundleZip(over: { manifest?: object; lines?: string[]; files?: Record<string, Uint8Array> } = {}): Uint8Array {
  const lines = over.lines ?? CASES.map((c) => JSON.stringify(c));
  return zipSync({
    'manifest.json': strToU8(JSON.stringify(over.manifest ?? MANIFEST)),
    'cases.jsonl': strToU8(lines.join('\n') + '\n'),
    'images/a.png': png(3),
    'images/b.png': png(5),
    'images/c.png': png(7),
    ...over.files,
  });
}

async function preview(files: InputFile[]) {
  return prepareImport(files);
}

describe('bundle import, export and re-import', () => {
  it('imports a bundle ZIP, stores it in one go, exports it and re-imports the same content hash', async () => {
    const first = await preview([memoryFile('tiny.zip', bundleZip())]);
    expect(first.errors).toEqual([]);
    expect(first.importer.kind).toBe('neuroeval-bundle');
    expect(first.summary).toMatchObject({ cases: 2, questions: 2, images: 3, bySplit: { direct: 1, breadth: 1 }, byDiseaseGroup: { stroke: 1, normal: 1 } });
    const hash = first.manifest!.contentHash;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);

    const repos = await freshRepos();
    const stored = await commitBundle(repos, first.bundle!);
    expect(stored).toMatchObject({ benchmarkId: 'tiny', alreadyStored: false, cases: 2, newAssets: 3 });
    const c1 = await repos.cases.get('tiny', 'c1');
    expect(c1?.images.map((i) => i.sequence)).toEqual(['DWI', 'FLAIR']);
    expect(c1?.images[0]?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await repos.cases.get('tiny', 'c2'))?.questions[0]?.reference?.labels).toEqual({ diagnosis_name: 'normal', plane: null });

    const exported = writeBundleZip(await loadBundle(repos, 'tiny'));
    expect(writeBundleZip(await loadBundle(repos, 'tiny'))).toEqual(exported);
    const again = await preview([memoryFile('tiny-export.zip', exported)]);
    expect(again.errors).toEqual([]);
    expect(again.warnings).toEqual([]);
    expect(again.manifest!.contentHash).toBe(hash);
    expect(await commitBundle(repos, again.bundle!)).toMatchObject({ alreadyStored: true });
  });

  it('reads the same bundle from a folder, with manifest.json one level down', async () => {
    const files = [
      memoryFile('tiny/manifest.json', JSON.stringify(MANIFEST)),
      memoryFile('tiny/cases.jsonl', CASES.map((c) => JSON.stringify(c)).join('\n')),
      memoryFile('tiny/images/a.png', png(3)),
      memoryFile('tiny/images/b.png', png(5)),
      memoryFile('tiny/images/c.png', png(7)),
    ];
    const fromFolder = await preview(files);
    const fromZip = await preview([memoryFile('tiny.zip', bundleZip())]);
    expect(fromFolder.manifest!.contentHash).toBe(fromZip.manifest!.contentHash);
  });

  it('changes the content hash when an answer or an image byte changes, and warns when a declared hash does not match', async () => {
    const base = (await preview([memoryFile('t.zip', bundleZip())])).manifest!.contentHash;
    const changed = CASES.map((c) => JSON.stringify(c).replace('ischemic stroke', 'haemorrhagic stroke'));
    expect((await preview([memoryFile('t.zip', bundleZip({ lines: changed }))])).manifest!.contentHash).not.toBe(base);
    const otherPixel = await preview([memoryFile('t.zip', bundleZip({ files: { 'images/c.png': png(9) } }))]);
    expect(otherPixel.manifest!.contentHash).not.toBe(base);
    const declared = await preview([memoryFile('t.zip', bundleZip({ manifest: { ...MANIFEST, contentHash: base }, files: { 'images/c.png': png(9) } }))]);
    expect(declared.warnings.map((w) => w.location?.field)).toContain('contentHash');
  });

  it('stores a different benchmark with a taken id only as a copy', async () => {
    const repos = await freshRepos();
    await commitBundle(repos, (await preview([memoryFile('t.zip', bundleZip())])).bundle!);
    const other = (await preview([memoryFile('t.zip', bundleZip({ files: { 'images/a.png': png(11) } }))])).bundle!;
    await expect(commitBundle(repos, other)).rejects.toThrow(/already stored/);
    const copy = await commitBundle(repos, other, { asCopy: true });
    expect(copy.benchmarkId).toMatch(/^tiny-[0-9a-f]{8}$/);
    expect(await repos.benchmarks.count()).toBe(2);
  });

  it('says what differs when a changed file meets the stored benchmark of its id', async () => {
    const repos = await freshRepos();
    await commitBundle(repos, (await preview([memoryFile('t.zip', bundleZip())])).bundle!);
    // One case's answer changed, one case dropped, one added, and a new licence.
    const [first, second] = CASES;
    const lines = [JSON.stringify(first).replace('ischemic stroke', 'haemorrhagic stroke'), JSON.stringify({ ...second, id: 'c-new' })];
    const changed = (await preview([memoryFile('t.zip', bundleZip({ lines, manifest: { ...MANIFEST, license: 'CC-BY-4.0' } }))])).bundle!;
    await expect(commitBundle(repos, changed)).rejects.toThrow('differs from the stored "Tiny" (id "tiny") (1 case changed, 1 added, 1 removed; the licence differs). Import it as a new benchmark');
  });

  it('leaves the database exactly as before when the commit fails', async () => {
    const repos = await freshRepos();
    const bundle = (await preview([memoryFile('t.zip', bundleZip())])).bundle!;
    const db = opened.at(-1)!;
    db.assets.hook('creating', () => {
      throw new DOMException('full', 'QuotaExceededError');
    });
    await expect(commitBundle(repos, bundle)).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED' });
    expect(await repos.benchmarks.count()).toBe(0);
    expect(await repos.cases.count()).toBe(0);
    expect(await repos.assets.count()).toBe(0);
  });
});

describe('bad input is refused with file, line and field', () => {
  const errorsOf = async (files: InputFile[]) => (await preview(files)).errors;

  it('a truncated or corrupt ZIP', async () => {
    const zip = bundleZip();
    const [e] = await errorsOf([memoryFile('cut.zip', zip.subarray(0, zip.length - 100))]);
    expect(e?.message).toMatch(/not a readable ZIP archive|manifest\.json is missing/);
    expect(e?.location?.file).toBe('cut.zip');
  });

  it('invalid JSON lines and missing required fields', async () => {
    const lines = [JSON.stringify(CASES[0]), '{"id": "c2", "taskFamily": ', JSON.stringify({ ...CASES[1], id: 'c3', questions: [{ id: '1' }] })];
    const errs = await errorsOf([memoryFile('t.zip', bundleZip({ lines }))]);
    expect(errs.map((e) => [e.location?.file, e.location?.line, e.location?.field])).toEqual([
      ['cases.jsonl', 2, undefined],
      ['cases.jsonl', 3, 'questions[0].text'],
    ]);
  });

  it('duplicate case ids', async () => {
    const lines = [JSON.stringify(CASES[0]), JSON.stringify(CASES[0])];
    const errs = await errorsOf([memoryFile('t.zip', bundleZip({ lines }))]);
    expect(errs[0]?.message).toMatch(/Case id "c1" is used by cases 1 and 2/);
  });

  it('a file that is not an image, and a missing image', async () => {
    const errs = await errorsOf([memoryFile('t.zip', bundleZip({ files: { 'images/b.png': strToU8('<html>not found</html>') } }))]);
    expect(errs).toEqual([expect.objectContaining({ message: expect.stringMatching(/"images\/b\.png" is not an image/), location: expect.objectContaining({ field: 'images/b.png' }) })]);
    const lines = [JSON.stringify({ ...CASES[1], images: [{ path: 'images/zzz.png' }] })];
    expect((await errorsOf([memoryFile('t.zip', bundleZip({ lines }))]))[0]?.message).toMatch(/refers to an image that is not in the input: images\/zzz\.png/);
  });

  it('an image that declares huge dimensions', async () => {
    const huge = png(1);
    new DataView(huge.buffer).setUint32(16, 200_000);
    new DataView(huge.buffer).setUint32(20, 200_000);
    const errs = await errorsOf([memoryFile('t.zip', bundleZip({ files: { 'images/a.png': huge } }))]);
    expect(errs[0]?.message).toMatch(/200000|200,000|too large|pixels/i);
    expect(errs[0]?.location?.field).toBe('images/a.png');
  });

  it('a manifest from a newer format version', async () => {
    const errs = await errorsOf([memoryFile('t.zip', bundleZip({ manifest: { ...MANIFEST, formatVersion: 2 } }))]);
    expect(errs[0]).toMatchObject({ location: { file: 'manifest.json', field: 'formatVersion' } });
  });

  it('files nothing recognises', async () => {
    await expect(preview([memoryFile('notes.docx', 'x')])).rejects.toThrow(/does not recognise these files/);
  });
});

describe('DICOM and NIfTI cases', () => {
  const csv = 'case,prompt,file\nd1,Describe the scan.,scans/head.dcm\nn1,Describe the scan.,scans/brain.nii.gz\n';
  const mapping = { id: 'case', question: 'prompt', image: 'file' };

  it('renders them to PNG, keeps a de-identified source, lists the dropped tags, and stores no identifying bytes', async () => {
    const files = [
      memoryFile('cases.csv', csv),
      memoryFile('scans/head.dcm', makeDicom({ modality: 'CT', rows: 8, columns: 8, rescale: { slope: 1, intercept: -1024 }, frames: 3 })),
      memoryFile('scans/brain.nii.gz', makeNifti({ dims: [6, 5, 4], gzip: true, descrip: 'Subject DOE^JANE scanned 2024' })),
    ];
    const p = await prepareImport(files, { kind: 'generic', options: { mapping } });
    expect(p.errors).toEqual([]);
    const d1 = p.bundle!.cases.find((c) => c.id === 'd1')!;
    expect(d1.images).toHaveLength(1);
    expect(d1.images[0]).toMatchObject({ mime: 'image/png', width: 8, height: 8, source: { kind: 'dicom', frame: 1 } });
    const n1 = p.bundle!.cases.find((c) => c.id === 'n1')!;
    expect(n1.images[0]).toMatchObject({ mime: 'image/png', plane: 'axial', slice: 2, source: { kind: 'nifti', plane: 'axial' } });
    const keywords = p.droppedTags.map((t) => t.keyword);
    expect(keywords).toEqual(expect.arrayContaining(['PatientName', 'PatientID', 'PatientBirthDate', 'InstitutionName', 'AccessionNumber']));

    const repos = await freshRepos();
    await commitBundle(repos, p.bundle!);
    const stored = await loadBundle(repos, p.manifest!.id);
    const everything = [...stored.images.values(), ...stored.files.values(), strToU8(JSON.stringify(stored.cases))];
    for (const secret of [FAKE_PATIENT.name, FAKE_PATIENT.id, FAKE_PATIENT.institution, 'DOE^JANE']) {
      expect(everything.some((bytes) => containsBytes(bytes, asciiBytes(secret)))).toBe(false);
    }
    expect(stored.files.size).toBe(2);
  });

  it('refuses a DICOM file without pixel data, naming it', async () => {
    const files = [memoryFile('cases.csv', 'case,prompt,file\nd1,Q,sr.dcm\n'), memoryFile('sr.dcm', makeDicom({ omitPixelData: true }))];
    const p = await prepareImport(files, { kind: 'generic', options: { mapping } });
    expect(p.errors[0]?.location?.file).toMatch(/(^|\/)sr\.dcm$/);
    expect(p.errors[0]?.message).toMatch(/no pixel data/);
  });
});

describe('medical image options', () => {
  const mapping = { id: 'case', question: 'prompt', image: 'file' };
  it('renders chosen NIfTI slices in the chosen plane and window, and all DICOM frames on request', async () => {
    const files = [
      memoryFile('cases.csv', 'case,prompt,file\nn1,Q,brain.nii\nd1,Q,ct.dcm\n'),
      memoryFile('brain.nii', makeNifti({ dims: [6, 5, 4] })),
      memoryFile('ct.dcm', makeDicom({ modality: 'CT', frames: 3, rows: 4, columns: 4, rescale: { slope: 1, intercept: -1024 } })),
    ];
    const p = await prepareImport(files, { kind: 'generic', options: { mapping, niftiPlane: 'coronal', niftiSlices: [0, 2], dicomFrames: 'all', window: 'bone' } });
    expect(p.errors).toEqual([]);
    const n1 = p.bundle!.cases.find((c) => c.id === 'n1')!;
    expect(n1.images.map((i) => [i.plane, i.slice])).toEqual([['coronal', 0], ['coronal', 2]]);
    const d1 = p.bundle!.cases.find((c) => c.id === 'd1')!;
    expect(d1.images.map((i) => i.source?.frame)).toEqual([0, 1, 2]);
    expect(d1.images[0]?.source?.window).toMatchObject({ center: 500, width: 2000, preset: 'bone' });
  });

  it('names a slice that does not exist', async () => {
    const files = [memoryFile('cases.csv', 'case,prompt,file\nn1,Q,brain.nii\n'), memoryFile('brain.nii', makeNifti({ dims: [6, 5, 4] }))];
    const p = await prepareImport(files, { kind: 'generic', options: { mapping, niftiSlices: [9] } });
    expect(p.errors[0]?.message).toMatch(/Slice 9 does not exist: .*brain\.nii has 4 axial slices \(0–3\)/);
  });
});
