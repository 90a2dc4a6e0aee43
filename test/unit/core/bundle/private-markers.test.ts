/**
 * Nothing private slips through. A marker (and the patient's name with
 * diacritics, and the endpoint's API key) is planted in every place issue
 * reports found kept: PNG tEXt, iTXt and zTXt (a whole DICOM file, zlib-
 * compressed), a JPEG's COM and EXIF, a picture beside the cases, DICOM
 * ProtocolName and SequenceName and descriptions with MÜLLER^JÜRGEN, a
 * bzip2-compressed DICOM file under prompts/, and an endpoint that echoes the
 * request's Authorization header in its errors and its answers. The bundle is
 * imported, run against that endpoint, scored and exported, in the app's way
 * (IndexedDB) and the CLI's (journal and run export); every IndexedDB store,
 * the journal and every export (bundle, run export, NeuroVLM JSONL, HTML
 * report, CSV) is searched: nothing planted is found.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { unzipSync, zlibSync } from 'fflate';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../../src/cli/main.ts';
import { prepareImport } from '../../../../src/core/importers/import-pipeline.ts';
import { memoryFile } from '../../../../src/core/bundle/importer.ts';
import { commitBundle, loadBundle } from '../../../../src/core/stored/benchmark-store.ts';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import { writeBundleZip } from '../../../../src/core/bundle/zip-write.ts';
import { createRepositories, openDatabase, type NeuroEvalDB } from '../../../../src/core/db/index.ts';
import type { RunRecord } from '../../../../src/core/runner/records.ts';
import { OpenAiCompatibleEngine } from '../../../../src/core/engines/openai/openai-engine.ts';
import { loadResults } from '../../../../src/core/stored/overview.ts';
import { buildHtmlReport } from '../../../../src/core/results/report-html.ts';
import { reportInputOf } from '../../../../src/core/results/run-report.ts';
import { scoresCsv } from '../../../../src/core/results/scores-csv.ts';
import { memoryRunLock } from '../../../../src/core/runner/control.ts';
import { dexieRunStore } from '../../../../src/core/stored/run-store.ts';
import { planRun, planSummary } from '../../../../src/core/runner/plan.ts';
import { runProtocol } from '../../../../src/core/runner/protocol-adapter.ts';
import { runRun } from '../../../../src/core/runner/runner.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import { neuroVlmJsonlRecords } from '../../../../src/core/scoring/io/neurovlm-jsonl.ts';
import { serializeRunExport, toRunExport } from '../../../../src/core/scoring/io/run-export.ts';
import { scoreRun } from '../../../../src/core/scoring/run/score-run.ts';
import { dumpIndexedDb } from '../../../support/db-dump.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../../support/fake-openai-server.ts';
import { makeDicom } from '../../../support/fixtures-imaging/index.ts';
import { bz2Prompt, PRIVATE_MARKER, privateProbe, UNREAD_FORMATS, writeHostile } from '../../../support/hostile-archives.ts';
import { testProvenance } from '../../../support/run-record.ts';
import { makeTempDir, removeTempDirs } from '../../../support/temp-dir.ts';

const MODEL = 'qwen2.5-vl-7b-instruct';
const KEY = 'sk-ZZSECRET-4242-abcdefghijkl';
const latin1 = (bytes: Uint8Array) => new TextDecoder('latin1').decode(bytes);
const utf8AsLatin1 = (s: string) => latin1(new TextEncoder().encode(s));

/** Every planted value, as text and as the bytes a Latin-1 dump of a blob shows. */
const PLANTED: readonly string[] = (() => {
  const ztxtDicom = zlibSync(makeDicom({ rows: 4, columns: 4, patient: { name: `${PRIVATE_MARKER}^ZTXT` } }));
  return [
    PRIVATE_MARKER, 'MÜLLER', 'JÜRGEN', 'MULLER', 'JURGEN', utf8AsLatin1('MÜLLER'), 'SMITH', 'DOE JOHN', KEY, 'ZZSECRET',
    // Any 24 bytes of the compressed DICOM in the zTXt chunk, and of the bzip2 DICOM: binary, invisible to a text search.
    latin1(ztxtDicom.subarray(8, 32)),
    latin1(UNREAD_FORMATS.bzip2!.bytes.subarray(40, 64)),
  ];
})();

/** The planted values found in `text`, compared without case: none is the only right answer. */
function planted(text: string): string[] {
  const upper = text.toUpperCase();
  return PLANTED.filter((s) => upper.includes(s.toUpperCase()));
}

/** A ZIP as searchable text: every entry's name and bytes, and the archive's own bytes. */
function zipText(zip: Uint8Array): string {
  return [latin1(zip), ...Object.entries(unzipSync(zip)).map(([name, bytes]) => `${name}\n${latin1(bytes)}`)].join('\n');
}

let server: FakeOpenAi;
const opened: NeuroEvalDB[] = [];

beforeAll(async () => {
  // Every other chat request is refused with the header echoed in the error; the others get it echoed in the answer.
  server = await startFakeOpenAi([MODEL], { answers: 'deterministic', echoAuthorization: 'alternate' });
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  removeTempDirs();
  for (const db of opened.splice(0)) {
    db.close();
    await new Promise((resolve) => {
      const req = indexedDB.deleteDatabase(db.name);
      req.onsuccess = req.onerror = () => resolve(undefined);
    });
  }
});

describe('the planted values are really in the inputs', () => {
  it('so a search that finds none afterwards means they were removed', () => {
    const probe = privateProbe().files.get('private-probe.zip')!;
    const inside = zipText(probe);
    expect(planted(inside)).toEqual(expect.arrayContaining([PRIVATE_MARKER, utf8AsLatin1('MÜLLER'), 'SMITH', 'DOE JOHN', PLANTED[10]]));
    expect(planted(latin1(bz2Prompt().files.get('bz2-prompt.zip')!))).toContain(PLANTED[11]);
  });
});

describe('in the app: import, run against an echoing endpoint, score, export', () => {
  it('stores and exports none of them', async () => {
    const preview = await prepareImport([memoryFile('private-probe.zip', privateProbe().files.get('private-probe.zip')!)]);
    expect(preview.errors).toEqual([]);
    // The preview says what was removed, never what it held.
    expect(preview.removedMetadata.map((r) => r.kind)).toEqual(expect.arrayContaining(['PNG text (tEXt)', 'PNG compressed text (zTXt)', 'PNG international text (iTXt)', 'JPEG comment (COM)', 'JPEG EXIF (APP1)']));
    expect(preview.droppedTags.map((t) => t.keyword)).toEqual(expect.arrayContaining(['ProtocolName', 'SequenceName', 'SeriesDescription']));
    expect(planted(JSON.stringify({ ...preview, bundle: null }))).toEqual([]);

    const db = await openDatabase({ name: `private-markers-${Date.now()}`, indexedDB, IDBKeyRange });
    opened.push(db);
    const repos = createRepositories(db);
    const bundle = preview.bundle!;
    await commitBundle(repos, bundle, ...(preview.keySalt ? [{ keySalt: preview.keySalt }] : []));

    // A bzip2-compressed DICOM under prompts/ is refused, and nothing is stored.
    const before = await dumpIndexedDb(db.name, indexedDB);
    const refused = await prepareImport([memoryFile('bz2-prompt.zip', bz2Prompt().files.get('bz2-prompt.zip')!)]);
    expect(refused.bundle).toBeNull();
    expect(refused.errors.map((e) => e.message)).toContainEqual(expect.stringContaining('"prompts/system.txt" is bzip2-compressed'));
    expect(await dumpIndexedDb(db.name, indexedDB)).toBe(before);

    // The run, as the runner worker drives it: the endpoint engine with the key, the database store.
    const cases = (await repos.cases.listByBenchmark('private-probe')).map(({ benchmarkId: _b, ...c }) => c as BenchCase);
    const spec = { benchmarkId: 'private-probe', models: [{ id: MODEL, filesHash: '' }], sampling: { temperature: 0, topP: 1, seed: 1, maxTokens: 480 } };
    const plan = planRun(spec, cases);
    const run: RunRecord = {
      id: 'run-private', benchmarkId: 'private-probe', name: 'Echoing endpoint', status: 'planned', createdAt: 1, updatedAt: 1,
      config: null, provenance: testProvenance({ benchmark: { id: 'private-probe', contentHash: bundle.manifest.contentHash } }), plan: planSummary(plan),
    };
    await repos.runs.put(run);
    const outcome = await runRun({
      runId: run.id, plan, protocol: runProtocol('auto'), store: dexieRunStore(repos), lock: memoryRunLock(),
      engineFor: () => new OpenAiCompatibleEngine({ baseUrl: server.baseUrl, model: MODEL, apiKey: KEY, retry: { retries: 0 } }),
      images: async (sha256) => {
        const asset = await repos.assets.require(sha256);
        return { bytes: new Uint8Array(await asset.blob.arrayBuffer()), mime: asset.mime, sha256 };
      },
    });
    expect(outcome.status).toBe('done');
    expect(outcome.generated + outcome.errors).toBe(3);
    const responses = (await repos.responses.listByRun(run.id)) as ResponseRecord[];
    // The server did get the key, and did echo it both ways: the search below would find it if it were kept.
    expect(server.authorizations).toContain(`Bearer ${KEY}`);
    expect(responses.filter((r) => r.finishReason === 'error').map((r) => r.error)).toContainEqual(expect.stringContaining('Invalid header: Bearer [redacted]'));
    expect(responses.filter((r) => r.finishReason !== 'error').map((r) => r.rawText)).toContainEqual(expect.stringContaining('Authorization: Bearer [redacted]'));

    const scored = await scoreRun({ protocolId: 'auto', cases, responses }, { resamples: 20 });
    await repos.scores.saveVersion(run.id, { durationMs: 1, config: scored.config, summary: scored.summary }, scored.items);

    // Every store of the database.
    const database = await dumpIndexedDb(db.name, indexedDB);
    expect(database).toContain('private-probe');
    expect(planted(database)).toEqual([]);

    // Every export: the bundle, the run export, the NeuroVLM-Bench JSONL, the HTML report, the scores CSV.
    const exported = writeBundleZip(await loadBundle(repos, 'private-probe'));
    expect(planted(zipText(exported))).toEqual([]);
    const runExport = serializeRunExport(toRunExport(await repos.runs.require(run.id), responses, cases, { exportedAt: 2 }));
    expect(runExport).toContain('[redacted]');
    expect(planted(runExport)).toEqual([]);
    const jsonl = neuroVlmJsonlRecords(await repos.runs.require(run.id), responses, cases).records.map((r) => JSON.stringify(r)).join('\n');
    expect(jsonl).toContain('c1');
    expect(planted(jsonl)).toEqual([]);
    const data = await loadResults(repos, 'private-probe');
    const html = buildHtmlReport(reportInputOf(data, { generatedAt: new Date(0), appVersion: 'test', responses }));
    expect(html).toContain('Echoing endpoint');
    expect(planted(html)).toEqual([]);
    const csv = scoresCsv(data);
    expect(csv).toContain('c2');
    expect(planted(csv)).toEqual([]);
  });
});

describe('in the CLI: validate, run against an echoing endpoint, report, export', () => {
  async function cli(args: readonly string[], env?: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      const code = await main(args, { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } });
      return { code, out, err };
    } finally {
      for (const k of Object.keys(env ?? {})) if (!(k in saved)) delete process.env[k];
    }
  }

  it('journals, exports and prints none of them', async () => {
    const dir = makeTempDir('private-cli');
    const probe = writeHostile(privateProbe(), dir);
    const bz2 = writeHostile(bz2Prompt(), dir);

    const validated = await cli(['validate', probe, '--json']);
    expect(validated.code).toBe(0);
    expect(planted(validated.out)).toEqual([]);
    const refused = await cli(['validate', bz2]);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('"prompts/system.txt" is bzip2-compressed, a format NeuroEval does not open to check for patient data.');

    const out = join(dir, 'run.json');
    const ran = await cli(['run', '--benchmark', probe, '--endpoint', server.baseUrl, '--endpoint-model', MODEL, '--api-key-env', 'ZZ_PRIVATE_KEY', '--retries', '0', '--out', out, '--json'], { ZZ_PRIVATE_KEY: KEY });
    expect(ran.code, ran.err).toBe(0);
    expect(JSON.parse(ran.out)).toMatchObject({ items: 3, answered: 3 });
    const journal = readdirSync(dir).find((f) => f.endsWith('.journal.jsonl'));
    expect(journal).toBeDefined();
    const journalText = readFileSync(join(dir, journal!), 'utf8');
    expect(journalText).toContain('[redacted]');
    expect(planted(journalText)).toEqual([]);
    const exportText = readFileSync(out, 'utf8');
    expect(exportText).toContain('Invalid header: Bearer [redacted]');
    expect(planted(exportText)).toEqual([]);
    expect(planted(ran.out + ran.err)).toEqual([]);

    const report = join(dir, 'report.html');
    expect((await cli(['report', out, '--out', report])).code).toBe(0);
    expect(planted(readFileSync(report, 'utf8'))).toEqual([]);
    const jsonl = join(dir, 'results.jsonl');
    const exported = await cli(['export', '--format', 'neurovlm-jsonl', out, '--out', jsonl]);
    expect(exported.code, exported.err).toBe(0);
    expect(existsSync(jsonl)).toBe(true);
    expect(planted(readFileSync(jsonl, 'utf8'))).toEqual([]);
    const scored = await cli(['score', out, '--json']);
    expect(planted(scored.out)).toEqual([]);
    // Nothing else written beside them holds anything either.
    for (const f of readdirSync(dir)) if (!f.endsWith('.zip')) expect(planted(readFileSync(join(dir, f), 'latin1')), f).toEqual([]);
  });
});
