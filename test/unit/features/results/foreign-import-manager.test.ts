import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRepositories, openDatabase, type Repositories } from '../../../../src/core/db/index.ts';
import { importForeign, previewForeignImport } from '../../../../src/core/stored/import-foreign.ts';
import { ForeignImportManager } from '../../../../src/features/results/foreign-import-manager.svelte.ts';
import { lmmsEvalSamplesJsonl, mcqAnswers, mcqBundle } from '../../../support/interchange.ts';


let repos: Repositories;
let file: File;
beforeAll(async () => {
  const bundle = await mcqBundle();
  repos = createRepositories(await openDatabase({ name: `fim-${Date.now()}`, indexedDB, IDBKeyRange }));
  const m = bundle.manifest;
  await repos.benchmarks.putWithContent({ id: m.id, name: m.name, version: m.version, license: m.license, description: '', contentHash: m.contentHash, source: 'vlmevalkit', synthetic: false, caseCount: 6, createdAt: 1, files: [], manifest: m }, bundle.cases);
  const answers = mcqAnswers(bundle);
  file = new File([lmmsEvalSamplesJsonl([{ ...answers[0]!, docId: 'odd', prompt: 'Worded otherwise' }, ...answers.slice(1)])], '20260701_samples_neuro_mcq.jsonl');
});

/** The manager against the real preview and import, on an in-memory database (the worker's part). */
const manager = () => new ForeignImportManager({ version: '0.1.0', commit: 'test' }, () => ({ previewForeign: (r) => previewForeignImport(repos, r), importForeign: (r) => importForeign(repos, r) }));

describe('the foreign-import manager', () => {
  it('previews the picked file, asks for the model, maps an unmatched item, then stores the run', async () => {
    const m = manager();
    await m.open([file]);
    expect(m.preview).toMatchObject({ harness: 'lmms-eval', matched: 5, unmatchedCount: 1, modelUnknown: true });
    expect(m.benchmarkId).toBe(m.preview!.benchmark.id);
    m.map('odd', '1');
    await m.refresh();
    expect(m.preview).toMatchObject({ matched: 6, mapped: 1, unmatchedCount: 0 });
    expect(await m.commit()).toBeNull();
    expect(m.error).toContain('does not name the model');
    m.setModel('llava-ov-7b');
    const done = await m.commit();
    expect(done).toMatchObject({ created: true, added: 6 });
    expect(m.preview).toBeNull();
    expect((await repos.runs.get(done!.runId))!.provenance.imported!.model).toBe('llava-ov-7b');
  });

  it('a file of no known kind ends in an error naming it, and reset forgets everything', async () => {
    const m = manager();
    await m.open([new File(['{"a": 1}'], 'stray.json')]);
    expect(m.preview).toBeNull();
    expect(m.error).toContain('stray.json: not a result file NeuroEval reads');
    m.reset();
    expect([m.active, m.error, m.preview]).toEqual([false, null, null]);
  });
});
