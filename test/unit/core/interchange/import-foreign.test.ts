import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Bundle } from '../../../../src/core/bundle/types.ts';
import { createRepositories, openDatabase, type Repositories } from '../../../../src/core/db/index.ts';
import { importForeign, previewForeignImport } from '../../../../src/core/stored/import-foreign.ts';
import { describeProvenance } from '../../../../src/core/runner/provenance.ts';
import { scoreRun } from '../../../../src/core/scoring/run/score-run.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import { lmmsEvalSamplesJsonl, mcqAnswers, mcqBundle, VLMEVALKIT } from '../../../support/interchange.ts';

const APP = { version: '0.1.0', commit: 'test' };
const enc = (s: string) => new TextEncoder().encode(s);

async function store(...bundles: Bundle[]): Promise<Repositories> {
  const db = await openDatabase({ name: `foreign-${Date.now()}-${Math.random()}`, indexedDB, IDBKeyRange });
  const repos = createRepositories(db);
  for (const b of bundles) {
    const m = b.manifest;
    await repos.benchmarks.putWithContent({ id: m.id, name: m.name, version: m.version, license: m.license, description: '', contentHash: m.contentHash, source: 'vlmevalkit', synthetic: false, caseCount: b.cases.length, createdAt: 1, files: [], manifest: m }, b.cases);
  }
  return repos;
}

const xlsx = () => ({ name: 'DemoVLM_NeuroMCQ.xlsx', bytes: new Uint8Array(readFileSync(`${VLMEVALKIT}DemoVLM_NeuroMCQ.xlsx`)) });

describe('another harness\'s answers stored as a run of a benchmark in this browser', () => {
  it('the preview proposes the benchmark the items match, counts them, and stores nothing', async () => {
    const repos = await store(await mcqBundle());
    const p = await previewForeignImport(repos, { files: [xlsx()], app: APP });
    expect(p).toMatchObject({ harness: 'VLMEvalKit', model: 'DemoVLM', items: 6, matched: 6, failed: 1, unmatchedCount: 0, duplicateCount: 0, benchmark: { name: 'NeuroMCQ' } });
    expect(await repos.runs.list()).toEqual([]);
  });

  it('the import stores a run whose answers score like any run; the provenance names the file, its hash and the harness', async () => {
    const bundle = await mcqBundle();
    const repos = await store(bundle);
    const result = await importForeign(repos, { files: [xlsx()], app: APP });
    expect(result).toMatchObject({ created: true, added: 6, unmatched: 0, duplicates: 0, status: 'done' });
    const run = (await repos.runs.get(result.runId))!;
    expect(run.config).toBeNull();
    expect(run.provenance.imported).toMatchObject({ harness: 'vlmevalkit', file: 'DemoVLM_NeuroMCQ.xlsx', model: 'DemoVLM', task: 'NeuroMCQ', items: { matched: 6, mapped: 0, unmatched: 0, duplicates: 0 } });
    expect(run.provenance.imported!.sha256).toBe((await import('../../../../src/core/hash/sha256.ts')).sha256Hex(xlsx().bytes));
    const rows = describeProvenance(run.provenance).map((r) => `${r.label}: ${r.value}`);
    expect(rows).toContain(`Answers from: vlmevalkit: DemoVLM_NeuroMCQ.xlsx (SHA-256 ${run.provenance.imported!.sha256.slice(0, 12)}), task NeuroMCQ`);
    expect(rows).toContain('Sampling: temperature not recorded · top-p not recorded · max not recorded tokens · seed not recorded');
    const responses = (await repos.responses.listByRun(run.id)) as ResponseRecord[];
    expect(responses.map((r) => [r.caseId, r.rawText, r.error ?? null])).toEqual([
      ['1', 'C', null], ['2', 'The answer is B.', null], ['3', 'Answer: B\r\nbecause of the irregular rim', null], ['4', '', 'Failed to obtain answer.'], ['5', '(C) 颞叶', null], ['6', 'D', null],
    ]);
    const scored = await scoreRun({ protocolId: 'auto', responses, cases: bundle.cases });
    const accuracy = scored.summary.arms[0]!.metrics.find((m) => m.metric === 'mcq.correct')!;
    expect([accuracy.mean, accuracy.n]).toEqual([0.8, 5]);
    // The same file again adds nothing.
    const again = await importForeign(repos, { files: [xlsx()], app: APP });
    expect(again).toMatchObject({ runId: result.runId, created: false, added: 0, kept: 6 });
  });

  it('unmatched items are named and left out; a mapping brings them in; a missing model name is asked for', async () => {
    const bundle = await mcqBundle();
    const repos = await store(bundle);
    const answers = mcqAnswers(bundle);
    const odd = [{ ...answers[0]!, docId: 'weird', prompt: 'A question worded otherwise' }, ...answers.slice(1)];
    const files = [{ name: '20260701_samples_neuro_mcq.jsonl', bytes: enc(lmmsEvalSamplesJsonl(odd)) }];
    const p = await previewForeignImport(repos, { files, app: APP });
    expect(p).toMatchObject({ modelUnknown: true, matched: 5, unmatchedCount: 1 });
    expect(p.unmatched[0]).toMatchObject({ id: 'weird', where: '20260701_samples_neuro_mcq.jsonl:1', question: 'A question worded otherwise' });
    await expect(importForeign(repos, { files, app: APP })).rejects.toThrow(/does not name the model/);
    expect(await repos.runs.list()).toEqual([]);
    const mapped = await previewForeignImport(repos, { files, app: APP, mapping: { weird: '1' } });
    expect(mapped).toMatchObject({ matched: 6, mapped: 1, unmatchedCount: 0 });
    const stored = await importForeign(repos, { files, app: APP, mapping: { weird: '1' }, model: 'llava-ov-7b' });
    expect(stored.added).toBe(6);
    const run = (await repos.runs.get(stored.runId))!;
    expect(run.provenance.imported).toMatchObject({ harness: 'lmms-eval', model: 'llava-ov-7b', items: { matched: 6, mapped: 1 } });
    expect(run.provenance.models[0]).toMatchObject({ id: 'lmms-eval:llava-ov-7b', runtime: 'lmms-eval' });
  });

  it('a file whose items match nothing stores nothing and says so', async () => {
    const repos = await store(await mcqBundle());
    const files = [{ name: 'x_samples_t.jsonl', bytes: enc(lmmsEvalSamplesJsonl([{ docId: 'z', prompt: 'Unrelated', target: 'A', raw: 'A' }])) }];
    await expect(importForeign(repos, { files, app: APP, model: 'm' })).rejects.toThrow(/no item matches a case of "NeuroMCQ"; nothing was stored/);
    expect(await repos.runs.list()).toEqual([]);
  });
});
