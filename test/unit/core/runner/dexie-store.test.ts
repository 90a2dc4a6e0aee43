/** The runner on the real repositories (fake-indexeddb): resume, status, provenance and cache through Dexie. */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { createRepositories, openDatabase, type NeuroEvalDB, type Repositories } from '../../../../src/core/db/index.ts';
import type { RunRecord } from '../../../../src/core/runner/records.ts';
import { memoryRunLock } from '../../../../src/core/runner/control.ts';
import { dexieRunStore } from '../../../../src/core/stored/run-store.ts';
import { planRun, planSummary } from '../../../../src/core/runner/plan.ts';
import { buildProvenance, describeProvenance, isProvenance } from '../../../../src/core/runner/provenance.ts';
import { runRun, type RunOptions } from '../../../../src/core/runner/runner.ts';
import type { RunPlan } from '../../../../src/core/runner/types.ts';
import { CASES, SPEC, clock, expectOnePerItem, fakeEngines, loadImage, protocol } from './fixtures.ts';
import { crashingStore } from './harness.ts';

let counter = 0;
const opened: NeuroEvalDB[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

async function setup(): Promise<Repositories> {
  const db = await openDatabase({ name: `runner-${Date.now()}-${++counter}`, indexedDB, IDBKeyRange });
  opened.push(db);
  return createRepositories(db);
}

function runRecord(id: string, plan: RunPlan): RunRecord {
  const provenance = buildProvenance({
    app: { version: '0.1.0', commit: 'abc1234' },
    environment: { userAgent: 'test', crossOriginIsolated: true },
    models: plan.models.map((m) => ({ id: m.id, runtime: 'transformers', files: [{ name: 'model.onnx', sha256: m.filesHash }] })),
    protocol: { id: protocol.id, version: protocol.version, templateHashes: { main: protocol.templateHash } },
    sampling: plan.sampling,
    samples: plan.samples,
    variants: plan.variants,
    benchmark: { id: plan.benchmarkId, contentHash: 'c'.repeat(64) },
  });
  return { id, benchmarkId: plan.benchmarkId, name: id, status: 'planned', createdAt: 1, updatedAt: 1, config: null, provenance, plan: planSummary(plan) };
}

describe('dexieRunStore', () => {
  it('runs, crashes, resumes and reuses through the real repositories', async () => {
    const repos = await setup();
    const store = dexieRunStore(repos);
    const plan = planRun(SPEC, CASES);
    const keys = plan.items.map((i) => i.itemKey);
    await repos.runs.put(runRecord('run1', plan));
    const engines = fakeEngines();
    const base: RunOptions = { runId: 'run1', plan, engineFor: engines.engineFor, protocol, store, images: loadImage, lock: memoryRunLock(), now: clock() };

    const killed = await runRun({ ...base, store: { ...crashingStore(store, 17), recordProvenance: store.recordProvenance! } });
    expect(killed.status).toBe('failed');
    expect(await repos.responses.countByRun('run1')).toBe(17);
    expect((await repos.runs.require('run1')).status).toBe('failed');

    const resumed = await runRun(base);
    expect(resumed).toMatchObject({ status: 'done', generated: 31 });
    expect(await repos.responses.countByRun('run1')).toBe(48);
    expectOnePerItem(await repos.responses.listByRun('run1'), 'run1', keys);
    expect(engines.count('generate')).toBe(49);

    const run = await repos.runs.require('run1');
    expect(run).toMatchObject({ status: 'done', error: null });
    expect(isProvenance(run.provenance)).toBe(true);
    const p = run.provenance;
    expect(p.engines['model-a']).toEqual([{ runtime: 'transformers', runtimeVersion: '4.3.1', modelId: 'model-a', device: 'webgpu' }]);
    expect(p.startedAt).not.toBeNull();
    expect(p.endedAt!).toBeGreaterThan(p.startedAt!);
    expect(describeProvenance(p).find((r) => r.label === 'Engine model-a')?.value).toBe('transformers 4.3.1 on webgpu (model-a)');

    // A second run of the same plan is answered from the first one's responses.
    await repos.runs.put(runRecord('run2', plan));
    const second = fakeEngines();
    const reused = await runRun({ ...base, runId: 'run2', engineFor: second.engineFor });
    expect(reused).toMatchObject({ status: 'done', reused: 48, generated: 0 });
    expect(second.count('generate')).toBe(0);
    expect(await repos.responses.countByRun('run2')).toBe(48);
    // Each stored answer names its case and question, as planned, and a case's answers are found by them.
    const rows = await repos.responses.listByRun('run2');
    expect(rows.every((r) => plan.items.some((i) => i.itemKey === r.itemKey && i.caseId === r.caseId && i.questionId === r.questionId))).toBe(true);
    expect((await repos.responses.listByRunAndCase('run2', 'c1')).map((r) => r.itemKey)).toEqual(plan.items.filter((i) => i.caseId === 'c1').map((i) => i.itemKey).sort());
    expect(await repos.responses.caseIdsByRun('run2')).toEqual(new Set(plan.items.map((i) => i.caseId)));
    expect((await repos.responses.get('run2/c1#q1|model-a|none|s0'))?.rawText).toBe((await repos.responses.get('run1/c1#q1|model-a|none|s0'))?.rawText);
  });
});
