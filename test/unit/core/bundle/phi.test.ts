/**
 * No patient data anywhere it can hide: a bundle with DICOM in `sources/`
 * (Part 10 and a raw dataset without preamble) and a case image whose file
 * name is the patient's name and record number is imported, stored, run,
 * scored and exported; every IndexedDB store and every export is searched
 * for each planted value, and none is found. Then each hostile input that
 * cannot be de-identified is refused with a message naming the file, and
 * nothing is stored.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { unzipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareImport } from '../../../../src/core/importers/import-pipeline.ts';
import { memoryFile } from '../../../../src/core/bundle/importer.ts';
import { commitBundle, loadBundle } from '../../../../src/core/stored/benchmark-store.ts';
import { writeBundleZip } from '../../../../src/core/bundle/zip-write.ts';
import { createRepositories, openDatabase, type NeuroEvalDB, type Repositories } from '../../../../src/core/db/index.ts';
import { decodeVolume } from '../../../../src/core/imaging/dicom/serialize.ts';
import { agreementReport } from '../../../../src/core/results/agreement.ts';
import { compareRows } from '../../../../src/core/results/comparisons.ts';
import { loadResults } from '../../../../src/core/stored/overview.ts';
import { overviewOf } from '../../../../src/core/results/overview.ts';
import { buildHtmlReport } from '../../../../src/core/results/report-html.ts';
import { itemKeyOf } from '../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import { neuroVlmJsonlRecords } from '../../../../src/core/scoring/io/neurovlm-jsonl.ts';
import { serializeRunExport, toRunExport } from '../../../../src/core/scoring/io/run-export.ts';
import { scoreRun } from '../../../../src/core/scoring/run/score-run.ts';
import { dumpIndexedDb } from '../../../support/db-dump.ts';
import { phiBundle, PLANTED_STRINGS, plantedDicom, refusedInputs } from '../../../support/hostile-bundles.ts';
import { testProvenance, testRun } from '../../../support/run-record.ts';

const opened: NeuroEvalDB[] = [];
let n = 0;
async function freshDb(): Promise<{ db: NeuroEvalDB; repos: Repositories; name: string }> {
  const name = `phi-${++n}-${Date.now()}`;
  const db = await openDatabase({ name, indexedDB, IDBKeyRange });
  opened.push(db);
  return { db, repos: createRepositories(db), name };
}
afterEach(async () => {
  for (const db of opened.splice(0)) {
    db.close();
    await new Promise((resolve) => {
      const req = indexedDB.deleteDatabase(db.name);
      req.onsuccess = req.onerror = () => resolve(undefined);
    });
  }
});

const latin1 = (bytes: Uint8Array) => new TextDecoder('latin1').decode(bytes);

/** Every row of every store of the database, blobs read as bytes, as one searchable text. */
const dumpDatabase = (name: string): Promise<string> => dumpIndexedDb(name, indexedDB);

/** The planted values found in `text` (upper and lower case alike): none is the only right answer. */
function planted(text: string): string[] {
  const upper = text.toUpperCase();
  return PLANTED_STRINGS.filter((s) => upper.includes(s.toUpperCase()));
}

describe('a bundle with DICOM in sources/ and a patient-named case image', () => {
  it('imports with a warning per de-identified side file and stores, runs and exports no planted value', async () => {
    const input = phiBundle();
    // The values really are in the input: the search would find them.
    const inputText = Object.entries(unzipSync(input)).map(([name, bytes]) => `${name}\n${latin1(bytes)}`).join('\n');
    expect(planted(inputText)).toEqual(PLANTED_STRINGS);

    const preview = await prepareImport([memoryFile('phi-probe.zip', input)]);
    expect(preview.errors).toEqual([]);
    expect(preview.ok).toBe(true);
    // What the user is told: each side DICOM is kept only de-identified, named by its hash.
    const notes = preview.warnings.map((w) => w.message);
    expect(notes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^"sources\/ZZTOPNAME_QUENTIN_MRN77441122_series2\.dcm" is a DICOM file: only a de-identified copy of its pixels and rendering fields is kept \(sources\/[0-9a-f]{12}….nevol\); the file itself and its \d+ other tags are not stored\.$/),
        expect.stringMatching(/^"sources\/export-0001" is a DICOM file: only a de-identified copy/),
      ]),
    );
    expect(preview.droppedTags.map((t) => t.keyword)).toEqual(expect.arrayContaining(['PatientName', 'PatientID', 'PatientBirthDate', 'PatientAddress', 'InstitutionName', 'AccessionNumber', 'ReferringPhysicianName', 'private tags']));
    const bundle = preview.bundle!;
    // Stored names are neutral: images by hash, side files by hash.
    for (const c of bundle.cases) for (const img of c.images) expect(img.path).toMatch(/^images\/[0-9a-f]{64}\.png$/);
    expect([...bundle.files.keys()].every((p) => /^sources\/[0-9a-f]{64}\.nevol$/.test(p))).toBe(true);
    expect(bundle.files.size).toBe(3);
    // The side files are real de-identified volumes: the two-frame series and the raw dataset.
    const volumes = [...bundle.files.values()].map((b) => decodeVolume(b));
    expect(volumes.map((v) => (v.kind === 'dicom' ? v.header.numberOfFrames : 0)).sort()).toEqual([1, 1, 2]);
    // The preview names the user's own files to them; what would be stored names none.
    expect(planted(JSON.stringify([preview.manifest, preview.summary, preview.droppedTags, bundle.cases]))).toEqual([]);

    const { repos, name } = await freshDb();
    const stored = await commitBundle(repos, bundle);
    expect(stored).toMatchObject({ benchmarkId: 'phi-probe', cases: 2 });

    // A run of the imported cases, scored, as the runner and the scorer store them.
    const cases = (await repos.cases.listByBenchmark('phi-probe')).map(({ benchmarkId: _b, ...c }) => c);
    const run = testRun({ id: 'run-phi', benchmarkId: 'phi-probe', provenance: testProvenance({ benchmark: { id: 'phi-probe', contentHash: bundle.manifest.contentHash } }), plan: { cases: 2, models: 1, variants: 1, samples: 1, items: 2 } });
    const responses = cases.map((c): ResponseRecord => {
      const itemKey = itemKeyOf({ caseId: c.id, questionId: 'q1', modelId: 'm', variant: 'none', sample: 0 });
      return {
        id: `${run.id}/${itemKey}`, runId: run.id, itemKey, caseId: c.id, questionId: 'q1', cacheKey: '', modelId: 'm', variant: 'none', sample: 0,
        rawText: 'glioma', parsed: null, parseError: null, usage: { promptTokens: 5, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1 }, latencyMs: 5, finishReason: 'stop', createdAt: 1,
      };
    });
    await repos.runs.put(run);
    await repos.responses.putBatch(responses);
    const scored = await scoreRun({ protocolId: 'auto', cases, responses }, { resamples: 20 });
    await repos.scores.saveVersion(run.id, { durationMs: 1, config: scored.config, summary: scored.summary }, scored.items);

    // Every store of the database.
    const database = await dumpDatabase(name);
    expect(database).toContain('phi-probe');
    expect(database).toContain('NEVOL1');
    expect(planted(database)).toEqual([]);

    // Every export: the bundle (names and bytes), the run export, the NeuroVLM-Bench JSONL, the HTML report.
    const exported = writeBundleZip(await loadBundle(repos, 'phi-probe'));
    const entries = unzipSync(exported);
    expect(Object.keys(entries)).toEqual(expect.arrayContaining(['manifest.json', 'cases.jsonl']));
    expect(planted(Object.entries(entries).map(([entry, bytes]) => `${entry}\n${latin1(bytes)}`).join('\n'))).toEqual([]);
    expect(planted(latin1(exported))).toEqual([]);
    const runExport = serializeRunExport(toRunExport(await repos.runs.require(run.id), await repos.responses.listByRun(run.id), cases, { exportedAt: 2 }));
    expect(runExport).toContain('case-1');
    expect(planted(runExport)).toEqual([]);
    const jsonl = neuroVlmJsonlRecords(run, responses, cases).records.map((r) => JSON.stringify(r)).join('\n');
    expect(jsonl).toContain('images/');
    expect(planted(jsonl)).toEqual([]);
    const data = await loadResults(repos, 'phi-probe');
    const html = buildHtmlReport({ overview: overviewOf(data), metric: 'pass@1', comparisons: compareRows(data.scored, 'pass@1'), breakdowns: [], agreement: agreementReport([], []), generatedAt: new Date(0), appVersion: 'test' });
    expect(html).toContain('PHI probe');
    expect(planted(html)).toEqual([]);

    // The export re-imports as the same content, with nothing to warn about.
    const again = await prepareImport([memoryFile('again.zip', exported)]);
    expect(again.errors).toEqual([]);
    expect(again.warnings).toEqual([]);
    expect(again.manifest!.contentHash).toBe(bundle.manifest.contentHash);
  });
});

describe('hostile inputs that cannot be de-identified', () => {
  it.each(refusedInputs().map((r) => [r.name, r] as const))('refuses %s with a message naming the file, and stores nothing', async (_name, r) => {
    const preview = await prepareImport([memoryFile('hostile.zip', r.zip)]);
    expect(preview.ok).toBe(false);
    expect(preview.bundle).toBeNull();
    const error = preview.errors.find((e) => r.message.test(e.message));
    expect(error, preview.errors.map((e) => e.message).join('\n')).toBeDefined();
    expect(error!.location?.file).toBe(r.file);
  });

  it('imports burned-in annotation only when asked to, and says so', async () => {
    const [burned] = refusedInputs();
    const preview = await prepareImport([memoryFile('burned.zip', burned!.zip)], { options: { acceptBurnedInAnnotation: true } });
    expect(preview.errors).toEqual([]);
    expect(preview.warnings.map((w) => w.message)).toContainEqual(expect.stringContaining('"images/scan.dcm" has burned-in annotation (BurnedInAnnotation YES); imported because you accepted burned-in annotation'));
  });

  it('refuses a raw big-endian dataset, which the parser cannot read safely', async () => {
    const raw = plantedDicom({ syntax: 'explicit-be', raw: true });
    const preview = await prepareImport([memoryFile('cases.csv', 'case,prompt,file\nc1,Q,scan\n'), memoryFile('scan', raw)], { kind: 'generic', options: { mapping: { id: 'case', question: 'prompt', image: 'file' } } });
    expect(preview.errors.map((e) => e.message)).toContainEqual(expect.stringMatching(/"(images\/)?scan" is a DICOM dataset without the Part 10 header, in big-endian byte order/));
  });

  it('leaves stored data as it was when a hostile bundle is refused', async () => {
    const { repos, name } = await freshDb();
    const good = await prepareImport([memoryFile('phi-probe.zip', phiBundle())]);
    await commitBundle(repos, good.bundle!);
    const before = await dumpDatabase(name);
    for (const r of refusedInputs()) expect((await prepareImport([memoryFile('hostile.zip', r.zip)])).bundle).toBeNull();
    expect(await dumpDatabase(name)).toBe(before);
  });
});
