/**
 * Importing a run export checks every answer against the benchmark's plan
 * before storing anything, and the preview runs the same checks: an answer
 * for a case the benchmark lacks is refused (or, when asked, left out and
 * counted), an item answered twice is refused naming it, other benchmark
 * content is refused in the preview already. What is stored stays as it was.
 */
import { readFileSync } from 'node:fs';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import { createRepositories, openDatabase } from '../../../../src/core/db/index.ts';
import { importRunExport, previewRunImport } from '../../../../src/core/stored/import-run.ts';
import { parseRunExport, toRunExport } from '../../../../src/core/scoring/io/run-export.ts';
import { hostileRunExports } from '../../../support/hostile-files.ts';
import { removeTempDirs } from '../../../support/temp-dir.ts';

const HASH = 'h'.repeat(64);
const cases: BenchCase[] = Array.from({ length: 11 }, (_, i) => ({ id: `c${i}`, taskFamily: 'classification', images: [], questions: [{ id: 'q1', text: 'Dx?' }] }));

async function setup() {
  const db = await openDatabase({ name: `run-import-${Date.now()}-${Math.random()}`, indexedDB, IDBKeyRange });
  const repos = createRepositories(db);
  await repos.benchmarks.putWithContent({
    id: 'b', name: 'Bench', version: '1', license: 'MIT', description: '', contentHash: HASH, source: 'x', synthetic: true, caseCount: 11, createdAt: 1, files: [],
    manifest: { format: 'neuroeval-bundle', formatVersion: 1, id: 'b', name: 'Bench', version: '1', license: 'MIT', contentHash: HASH, caseCount: 11, imageCount: 0 },
  }, cases);
  return { db, repos };
}

const exports = () => hostileRunExports({ id: 'b', contentHash: HASH }, cases);
const read = (path: string) => parseRunExport(readFileSync(path, 'utf8'), 'ghost.json');

afterEach(removeTempDirs);

describe('a run export with an answer for a case the benchmark does not have', () => {
  const refusal = 'ghost.json: responses[11]: 1 answer is for items this run\'s plan on "Bench" does not have (first: case "ghost-case" is not in "Bench", item "ghost-case#q1|m|none|s0"); nothing was stored. Leave it out to import the other 11.';

  it('is refused with the count and the first item, and nothing is stored', async () => {
    const { db, repos } = await setup();
    const e = read(exports().ghost);
    expect(e.responses).toHaveLength(12);
    await expect(importRunExport(repos, e, 'ghost.json')).rejects.toMatchObject({ code: 'INVALID_INPUT', message: refusal, location: { file: 'ghost.json', field: 'responses[11]' } });
    expect(await repos.runs.get('ghost')).toBeUndefined();
    expect(await repos.responses.countByRun('ghost')).toBe(0);
    db.close();
  });

  it('gets the same message in the preview, before anything is tried', async () => {
    const { db, repos } = await setup();
    const preview = await previewRunImport(repos, read(exports().ghost), 'ghost.json');
    expect(preview).toMatchObject({ runName: 'Run ghost', benchmarkName: 'Bench', answers: 12, unknown: { count: 1, message: refusal } });
    db.close();
  });

  it('is left out and counted when the user asks, and the run is complete without it', async () => {
    const { db, repos } = await setup();
    const result = await importRunExport(repos, read(exports().ghost), 'ghost.json', { dropUnknown: true });
    expect(result).toMatchObject({ created: true, added: 11, kept: 0, dropped: 1, status: 'done' });
    const stored = await repos.responses.listByRun('ghost');
    expect(stored).toHaveLength(11);
    expect(stored.some((r) => r.caseId === 'ghost-case')).toBe(false);
    db.close();
  });
});

describe('other hostile run exports', () => {
  it('an item answered twice is refused naming the item, by the reader and by the import of an export built in memory', async () => {
    const { db, repos } = await setup();
    const file = exports().duplicate;
    expect(() => parseRunExport(readFileSync(file, 'utf8'), 'dup.json')).toThrow(
      'dup.json: responses[11].itemKey: item "c0#q1|m|none|s0" (case "c0") is answered twice, at responses[0] and responses[11]; a run has one answer per item, so the file cannot be used as it is.',
    );
    // An export assembled in code skips the reader: the import's own check still names the item (not a raw ConstraintError).
    const good = read(exports().ghost);
    const twice = toRunExport({ ...good.run, provenance: good.provenance! }, [...good.responses.slice(0, 11), good.responses[3]!]);
    await expect(importRunExport(repos, twice, 'dup.json')).rejects.toThrow('dup.json: responses[11].itemKey: item "c3#q1|m|none|s0" (case "c3") is answered twice, at responses[3] and responses[11]');
    expect(await repos.responses.countByRun('ghost')).toBe(0);
    db.close();
  });

  it('other benchmark content is refused by the preview with the message the import gives', async () => {
    const { db, repos } = await setup();
    const e = parseRunExport(readFileSync(exports().otherContent, 'utf8'), 'other.json');
    const message = 'other.json: provenance.benchmark.contentHash: the run was made on different content of "Bench" (eeeeeeeeeeee… there, hhhhhhhhhhhh… here); its answers would not line up with these cases.';
    await expect(previewRunImport(repos, e, 'other.json')).rejects.toThrow(message);
    await expect(importRunExport(repos, e, 'other.json')).rejects.toThrow(message);
    expect(await repos.runs.get('other-content')).toBeUndefined();
    db.close();
  });

  it('an item key that disagrees with its answer\'s case is refused naming both', async () => {
    const { db, repos } = await setup();
    const e = read(exports().ghost);
    const edited = { ...e, responses: e.responses.slice(0, 11).map((r, i) => (i === 2 ? { ...r, caseId: 'c9' } : r)) };
    await expect(importRunExport(repos, edited, 'edited.json')).rejects.toThrow('edited.json: responses[2].itemKey: "c2#q1|m|none|s0" does not match the answer\'s own case, question, model, variant and sample ("c9#q1|m|none|s0")');
    db.close();
  });
});
