/**
 * Schema migration tests.
 *
 * Each released schema version is written out here BY HAND (raw IndexedDB,
 * see test/support/idb-harness.ts), exactly as that release created it. The
 * tests open such a database with today's `openDatabase` and check the data
 * survives. Because the hand-written copy does not read `SCHEMA`, editing a
 * released version in place (instead of adding a new one) makes these tests
 * fail: Dexie would have to patch the schema, and the shape check catches it.
 *
 * When you add schema version N+1:
 *   1. Leave V1_STORES (and every other released version) unchanged.
 *   2. Add a test "upgrades a version N database": build V{N}_STORES by hand at
 *      IDB version N × 10 with representative rows in the tables that change,
 *      open it with `openDatabase`, and assert through the repositories that
 *      the rows moved/transformed as intended and that
 *      `inspectDatabaseByHand(...).version === (N + 1) * 10`.
 *   3. Add V{N+1}_STORES written by hand and a test like "opens a version 1
 *      database without changing it" for the new version.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { NeuroEvalError } from '../../../../src/core/errors.ts';
import { SCHEMA_VERSION, createRepositories, openDatabase } from '../../../../src/core/db/index.ts';
import { loadStoredResults, storedAnswers } from '../../../../src/core/stored/results.ts';
import { buildProvenance } from '../../../../src/core/runner/provenance.ts';
import {
  buildDatabaseByHand,
  inspectDatabaseByHand,
  normaliseShape,
  readAllByHand,
  type StoreSpec,
} from '../../../support/idb-harness.ts';

let counter = 0;
const freshName = () => `migrations-${Date.now()}-${++counter}`;
const open = (name: string) => openDatabase({ name, indexedDB, IDBKeyRange });

/** Version 1 exactly as released. Never edit: add V2_STORES instead. */
const V1_STORES: StoreSpec[] = [
  { name: 'benchmarks', keyPath: 'id', indexes: [idx('name'), idx('createdAt')] },
  {
    name: 'cases',
    keyPath: ['benchmarkId', 'id'],
    indexes: [idx('benchmarkId'), idx('[benchmarkId+split]'), idx('[benchmarkId+taskFamily]'), idx('[benchmarkId+diseaseGroup]')],
  },
  { name: 'assets', keyPath: 'sha256', indexes: [idx('createdAt')] },
  { name: 'models', keyPath: 'id', indexes: [idx('runtime'), idx('addedAt')] },
  { name: 'runs', keyPath: 'id', indexes: [idx('benchmarkId'), idx('status'), idx('createdAt')] },
  { name: 'responses', keyPath: 'id', indexes: [idx('runId'), idx('[runId+itemKey]'), idx('cacheKey'), idx('createdAt')] },
  { name: 'scores', keyPath: 'id', indexes: [idx('runId'), idx('responseId'), idx('[runId+metric]')] },
  { name: 'reviews', keyPath: 'id', indexes: [idx('responseId'), idx('reviewerId'), idx('runId')] },
  { name: 'settings', keyPath: 'key' },
];

/** Version 2 exactly as released: scores per answer per score set, and the scoreSets table. Never edit. */
const V2_STORES: StoreSpec[] = [
  ...V1_STORES.filter((st) => st.name !== 'scores'),
  { name: 'scores', keyPath: 'id', indexes: [idx('runId'), idx('responseId'), idx('scoreSetId'), idx('[scoreSetId+caseId]')] },
  { name: 'scoreSets', keyPath: 'id', indexes: [idx('runId'), idx('[runId+version]'), idx('createdAt')] },
];

/**
 * Version 3 exactly as released: runs keep `config` apart from `provenance`;
 * responses carry `caseId` / `questionId`, indexed per run. Never edit.
 */
const V3_STORES: StoreSpec[] = [
  ...V2_STORES.filter((st) => st.name !== 'responses'),
  { name: 'responses', keyPath: 'id', indexes: [idx('runId'), idx('[runId+itemKey]'), idx('[runId+caseId]'), idx('cacheKey'), idx('createdAt')] },
];

/** Version 4 exactly as released: resultDigests, what the results page opens with, per score set. Never edit. */
const V4_STORES: StoreSpec[] = [
  ...V3_STORES,
  { name: 'resultDigests', keyPath: 'id', indexes: [idx('scoreSetId'), idx('runId')] },
];

/** Version 5 exactly as released: scoringCache, judge replies and encoder vectors kept for re-scoring. Never edit. */
const V5_STORES: StoreSpec[] = [...V4_STORES, { name: 'scoringCache', keyPath: 'key', indexes: [idx('createdAt')] }];

/** Version 6 exactly as released: version 5's stores (a data migration only: arms' decode speed renamed). Never edit. */
const V6_STORES: StoreSpec[] = V5_STORES;

/** A Dexie-style index written by hand: `[a+b]` becomes keyPath `['a', 'b']`. */
function idx(name: string): { name: string; keyPath: string | string[] } {
  const compound = /^\[(.+)\]$/.exec(name);
  return { name, keyPath: compound?.[1] ? compound[1].split('+') : name };
}

const benchmark = {
  id: 'b1', name: 'Demo', version: '1.0', license: 'CC-BY-4.0', description: 'd', contentHash: 'h',
  source: 'jsonl', synthetic: true, caseCount: 2, createdAt: 1000, files: [],
  manifest: { format: 'neuroeval-bundle', formatVersion: 1, id: 'b1', name: 'Demo', version: '1.0', license: 'CC-BY-4.0', contentHash: 'h', caseCount: 2, imageCount: 0 },
};
const cases = [
  { benchmarkId: 'b1', id: 'c1', split: 'test', taskFamily: 'classification', diseaseGroup: 'tumour', modality: 'MRI', images: [], questions: [{ id: 'q1', text: 'What is shown?' }] },
  { benchmarkId: 'b1', id: 'c2', split: 'dev', taskFamily: 'classification', diseaseGroup: 'stroke', modality: 'CT', images: [], questions: [{ id: 'q1', text: 'What is shown?' }] },
];
const run = {
  id: 'r1', benchmarkId: 'b1', name: 'first', status: 'done', createdAt: 2000, updatedAt: 3000, provenance: { app: '0.1.0' },
  plan: { cases: 2, models: 1, variants: 1, samples: 1, items: 2 },
};
/** A response as versions 1 and 2 stored it: no case or question id. */
const response = {
  id: 'r1:c1', runId: 'r1', itemKey: 'c1', cacheKey: 'k1', modelId: 'm1', variant: 'base', sample: 0, rawText: 'A',
  parsed: { answer: 'A' }, parseError: null,
  usage: { promptTokens: 10, completionTokens: 1, ttftMs: 5, prefillTps: 100, decodeTps: 20 },
  latencyMs: 50, finishReason: 'stop', createdAt: 2500,
};
const v1Rows = {
  benchmarks: [benchmark],
  cases,
  runs: [run],
  responses: [response],
  // v1 stored one row per metric.
  scores: [
    { id: 's1', runId: 'r1', responseId: 'r1:c1', metric: 'accuracy', value: 1, source: 'rule', sourceId: 'exact', version: '1', createdAt: 2600 },
    { id: 's2', runId: 'r1', responseId: 'r1:c1', metric: 'rougeL', value: 0.5, source: 'rule', sourceId: 'rouge', version: '1', createdAt: 2700 },
  ],
  settings: [{ key: 'theme', value: 'dark', updatedAt: 1 }],
};

const SECRET = 'sk-test-SECRET-123';

/** A run as version 2 stored it: the configuration inside the provenance, an endpoint with its API key. */
const v2Provenance = buildProvenance({
  app: { version: '0.4.0', commit: 'abc1234' },
  environment: { userAgent: 'Mozilla/5.0 Test', crossOriginIsolated: true },
  models: [
    { id: 'self-test', label: 'Self-test', runtime: 'transformers', files: [{ name: 'model.onnx', sha256: 'f'.repeat(64) }] },
    { id: 'endpoint:10.0.0.5:8000/llava', label: 'llava on 10.0.0.5:8000', runtime: 'openai-compatible', files: [] },
  ],
  protocol: { id: 'auto', version: 'abc', templateHashes: { auto: 'd'.repeat(64) } },
  sampling: { temperature: 0, topP: 1, seed: 7, maxTokens: 256 },
  samples: 2,
  variants: ['none', 'degrade:blur:2'],
  benchmark: { id: 'b1', contentHash: 'h', name: 'Demo', version: '1.0' },
});
const v2Config = {
  spec: { benchmarkId: 'b1', models: [{ id: 'self-test', filesHash: 'x' }, { id: 'endpoint:10.0.0.5:8000/llava', filesHash: '' }], variants: ['none', 'degrade:blur:2'], samples: 2, sampling: { temperature: 0, topP: 1, seed: 7, maxTokens: 256 } },
  protocolId: 'auto',
  fewShot: false,
  engines: [
    { kind: 'transformers', id: 'self-test', label: 'Self-test', location: 'https://app.test/models/self-test/', device: 'wasm', files: [{ name: 'model.onnx', sha256: 'f'.repeat(64) }] },
    { kind: 'openai', id: 'endpoint:10.0.0.5:8000/llava', label: 'llava on 10.0.0.5:8000', baseUrl: 'http://10.0.0.5:8000/v1', model: 'llava', concurrency: 4, apiKey: SECRET },
  ],
};
const v2Run = {
  id: 'r2', benchmarkId: 'b1', name: 'endpoint run', status: 'paused', error: null, createdAt: 4000, updatedAt: 5000,
  provenance: { ...v2Provenance, config: v2Config },
  plan: { cases: 2, models: 2, variants: 2, samples: 2, items: 16 },
};
/** Item keys as version 2 wrote them; the case id of the second holds both separators. */
const v2Responses = [
  { ...response, id: 'r2/c1#q1|self-test|none|s0', runId: 'r2', itemKey: 'c1#q1|self-test|none|s0', modelId: 'self-test', variant: 'none', sample: 0 },
  {
    ...response, id: 'r2/c#2|b#q1|endpoint:10.0.0.5:8000/llava|degrade:blur:2|s1', runId: 'r2', itemKey: 'c#2|b#q1|endpoint:10.0.0.5:8000/llava|degrade:blur:2|s1',
    modelId: 'endpoint:10.0.0.5:8000/llava', variant: 'degrade:blur:2', sample: 1,
  },
];
const scoreSet = { id: 'r1/v1', runId: 'r1', version: 1, createdAt: 5, durationMs: 1, config: {}, summary: { arms: [] } };
const v2Rows = {
  ...v1Rows,
  runs: [run, v2Run],
  responses: [response, ...v2Responses],
  scores: [],
  scoreSets: [scoreSet],
  // The endpoint setting keeps its key: that is where it belongs.
  settings: [{ key: 'endpoints', value: [{ id: '10.0.0.5:8000/llava', baseUrl: 'http://10.0.0.5:8000/v1', model: 'llava', concurrency: 4, apiKey: SECRET }], updatedAt: 1 }],
};

describe('schema migrations', () => {
  it('declares version 6 as the current version', () => {
    // Bumping this needs a new "upgrades a version 6 database" test; see the top of this file.
    expect(SCHEMA_VERSION).toBe(6);
  });

  it('creates a fresh database exactly as version 6 is written by hand', async () => {
    const name = freshName();
    (await open(name)).close();
    expect(await inspectDatabaseByHand(indexedDB, name)).toEqual(normaliseShape(60, V6_STORES));
  });

  it('upgrades a version 5 database: each score set\'s arms name their decode speed decodeTps, everything else kept', async () => {
    const name = freshName();
    const v3Run = { ...run, config: null, provenance: v2Provenance };
    const arm = { modelId: 'm', variant: 'none', responses: 3, failed: 0, medianLatencyMs: 120, metrics: {} };
    const measured = { ...scoreSet, summary: { arms: [{ ...arm, decodeTokensPerS: 12.5 }, { ...arm, modelId: 'unmeasured' }] } };
    const legacy = { ...scoreSet, id: 'r1/v0', version: 0, summary: {} };
    await buildDatabaseByHand(indexedDB, name, 50, V5_STORES, { ...v1Rows, runs: [v3Run], responses: [], scores: [], scoreSets: [measured, legacy] });
    const db = await open(name);
    const repos = createRepositories(db);
    expect(await repos.scores.latestSet('r1')).toEqual({ ...scoreSet, summary: { arms: [{ ...arm, decodeTps: 12.5 }, { ...arm, modelId: 'unmeasured' }] } });
    expect(await repos.runs.get('r1')).toEqual(v3Run);
    db.close();
    expect(JSON.stringify(await readAllByHand(indexedDB, name, 'scoreSets'))).not.toContain('decodeTokensPerS');
    expect((await readAllByHand(indexedDB, name, 'scoreSets')).find((r) => (r as { id: string }).id === 'r1/v0')).toEqual(legacy);
    expect(await inspectDatabaseByHand(indexedDB, name)).toEqual(normaliseShape(60, V6_STORES));
  });

  it('upgrades a version 4 database: data kept, an empty scoring cache added that keeps what scoring puts in it', async () => {
    const name = freshName();
    const v3Run = { ...run, config: null, provenance: v2Provenance };
    const v3Response = { ...response, caseId: 'c1', questionId: 'q1' };
    await buildDatabaseByHand(indexedDB, name, 40, V4_STORES, { ...v1Rows, runs: [v3Run], responses: [v3Response], scores: [], scoreSets: [scoreSet] });
    const db = await open(name);
    const repos = createRepositories(db);
    expect(await repos.runs.get('r1')).toEqual(v3Run);
    expect(await repos.responses.listByRun('r1')).toEqual([v3Response]);
    expect(await repos.scores.latestSet('r1')).toEqual(scoreSet);
    expect(await repos.scoringCache.count()).toBe(0);
    await repos.scoringCache.put('k', { kind: 'reply', raw: '{"equivalent": true}' });
    expect(await repos.scoringCache.get('k')).toEqual({ kind: 'reply', raw: '{"equivalent": true}' });
    db.close();
    expect((await inspectDatabaseByHand(indexedDB, name)).version).toBe(60);
  });

  it('upgrades a version 1 database: data kept, per-metric score rows become score version 1', async () => {
    const name = freshName();
    await buildDatabaseByHand(indexedDB, name, 10, V1_STORES, v1Rows);
    expect(await inspectDatabaseByHand(indexedDB, name)).toEqual(normaliseShape(10, V1_STORES));

    const db = await open(name);
    const repos = createRepositories(db);
    expect(await repos.benchmarks.get('b1')).toEqual(benchmark);
    expect((await repos.cases.listByBenchmark('b1')).map((c) => c.id)).toEqual(['c1', 'c2']);
    expect(await repos.cases.listBy('b1', 'split', 'dev')).toEqual([cases[1]]);
    // Through v2 and v3: a run without a stored configuration gets `config: null`; an item key without `#` is all case id.
    const { provenance: _p, ...runFields } = run;
    expect(await repos.runs.get('r1')).toEqual({ ...runFields, config: null, provenance: { app: '0.1.0' } });
    const upgraded = { ...response, caseId: 'c1', questionId: '' };
    expect(await repos.responses.listByRun('r1')).toEqual([upgraded]);
    expect(await repos.responses.getByCacheKey('k1')).toEqual(upgraded);
    expect(await repos.settings.get('theme', 'light')).toBe('dark');
    const set = await repos.scores.latestSet('r1');
    expect(set).toMatchObject({ id: 'r1/v1', version: 1, createdAt: 2700, config: { scorerVersion: 'legacy-1' }, summary: { items: 1 } });
    const rows = await repos.scores.listBySet('r1/v1');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: 'r1/v1|r1:c1', responseId: 'r1:c1', runId: 'r1',
      metrics: { accuracy: { value: 1, source: 'rule', sourceId: 'exact' }, rougeL: { value: 0.5, source: 'rule', sourceId: 'rouge' } },
    });
    db.close();
    expect(await inspectDatabaseByHand(indexedDB, name)).toEqual(normaliseShape(60, V6_STORES));
  });

  it('upgrades a version 2 database: config moves out of provenance without its API key, responses get case and question ids', async () => {
    const name = freshName();
    await buildDatabaseByHand(indexedDB, name, 20, V2_STORES, v2Rows);
    expect(await inspectDatabaseByHand(indexedDB, name)).toEqual(normaliseShape(20, V2_STORES));
    expect(JSON.stringify(await readAllByHand(indexedDB, name, 'runs'))).toContain(SECRET);

    const db = await open(name);
    const repos = createRepositories(db);
    const migrated = (await repos.runs.get('r2'))!;
    const { apiKey: _key, ...endpoint } = v2Config.engines[1]!;
    expect(migrated.config).toEqual({ ...v2Config, engines: [v2Config.engines[0], { ...endpoint, endpointId: '10.0.0.5:8000/llava' }] });
    expect(migrated.provenance).toEqual(v2Provenance);
    expect('config' in migrated.provenance).toBe(false);
    const { provenance: _p, ...runFields } = v2Run;
    expect(migrated).toEqual({ ...runFields, config: migrated.config, provenance: v2Provenance });
    // The key is gone from every run record, however it is read; the endpoint setting keeps it.
    expect(JSON.stringify(migrated)).not.toContain(SECRET);
    expect(JSON.stringify(await repos.runs.list())).not.toContain(SECRET);
    expect(await repos.settings.get('endpoints', [])).toEqual(v2Rows.settings[0]!.value);

    expect((await repos.responses.listByRun('r2')).map((r) => [r.caseId, r.questionId])).toEqual([['c#2|b', 'q1'], ['c1', 'q1']]);
    expect((await repos.responses.listByRunAndCase('r2', 'c#2|b')).map((r) => r.id)).toEqual([v2Responses[1]!.id]);
    expect(await repos.responses.caseIdsByRun('r2')).toEqual(new Set(['c1', 'c#2|b']));
    expect((await repos.responses.listByRun('r1'))[0]).toMatchObject({ caseId: 'c1', questionId: '' });
    expect(await repos.scores.latestSet('r1')).toEqual(scoreSet);
    db.close();

    expect(await inspectDatabaseByHand(indexedDB, name)).toEqual(normaliseShape(60, V6_STORES));
    expect(JSON.stringify(await readAllByHand(indexedDB, name, 'runs'))).not.toContain(SECRET);
    expect(JSON.stringify(await readAllByHand(indexedDB, name, 'responses'))).not.toContain(SECRET);
  });

  it('upgrades a version 3 database: data kept, score sets get their results digest when first opened', async () => {
    const name = freshName();
    const v3Run = { ...run, benchmarkId: 'b1', config: null, provenance: v2Provenance };
    const v3Response = { ...response, caseId: 'c1', questionId: 'q1' };
    const v3Score = {
      id: 'r1/v1|r1:c1', scoreSetId: 'r1/v1', runId: 'r1', responseId: 'r1:c1', itemKey: 'c1', caseId: 'c1', questionId: 'q1', modelId: 'm', variant: 'none', sample: 0,
      protocolId: 'auto', primary: 'accuracy', metrics: { accuracy: { value: 1, source: 'rule', sourceId: 'exact' } }, confidence: 0.8, verdicts: [], taxonomy: null, notes: [],
    };
    await buildDatabaseByHand(indexedDB, name, 30, V3_STORES, { ...v1Rows, runs: [v3Run], responses: [v3Response], scores: [v3Score], scoreSets: [scoreSet] });
    const db = await open(name);
    const repos = createRepositories(db);
    expect(await repos.runs.get('r1')).toEqual(v3Run);
    const set = (await repos.scores.latestSet('r1'))!;
    expect(set).toEqual(scoreSet);
    expect(await repos.scores.listBySet('r1/v1')).toEqual([v3Score]);
    // No digest was computed by the upgrade; the set's first opening builds and keeps it.
    expect(await repos.scores.openDigest(set, benchmark.contentHash)).toBeUndefined();
    const stored = await loadStoredResults(repos, 'b1');
    expect(await storedAnswers(repos, stored, {})).toMatchObject({ total: 1, rows: [{ responseId: 'r1:c1', value: 1, confidence: 0.8 }] });
    expect(await repos.scores.openDigest(set, benchmark.contentHash)).toMatchObject({ scoreSetId: 'r1/v1', items: 1 });
    db.close();
    expect(await inspectDatabaseByHand(indexedDB, name)).toEqual(normaliseShape(60, V6_STORES));
  });

  it('opens a hand-built version 6 database without changing its schema or data', async () => {
    const name = freshName();
    const v3Run = { ...run, config: null, provenance: v2Provenance };
    const v3Response = { ...response, caseId: 'c1', questionId: 'q1' };
    await buildDatabaseByHand(indexedDB, name, 60, V6_STORES, { ...v1Rows, runs: [v3Run], responses: [v3Response], scores: [], scoreSets: [scoreSet] });
    const before = await inspectDatabaseByHand(indexedDB, name);
    const db = await open(name);
    const repos = createRepositories(db);
    expect(await repos.runs.get('r1')).toEqual(v3Run);
    expect(await repos.responses.listByRun('r1')).toEqual([v3Response]);
    expect(await repos.scores.latestSet('r1')).toEqual(scoreSet);
    expect(db.tables.map((t) => t.name).sort()).toEqual(before.stores.map((st) => st.name));
    for (const table of db.tables) {
      const handBuilt = before.stores.find((st) => st.name === table.name);
      expect(table.schema.indexes.map((i) => i.name).sort()).toEqual(handBuilt?.indexes.map((i) => i.name));
    }
    db.close();
    // Dexie patches a differing schema by bumping the IDB version (e.g. to 21); it must not have.
    expect(await inspectDatabaseByHand(indexedDB, name)).toEqual(before);
  });

  it('refuses a database from a newer app version and leaves it untouched', async () => {
    const name = freshName();
    const future: StoreSpec[] = [
      { name: 'benchmarks', keyPath: 'id', indexes: [idx('title')] },
      { name: 'future', keyPath: 'id' },
    ];
    const rows = { benchmarks: [{ id: 'b9', title: 'from the future' }], future: [{ id: 'x' }] };
    await buildDatabaseByHand(indexedDB, name, 990, future, rows);
    const before = await inspectDatabaseByHand(indexedDB, name);

    const error = await open(name).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NeuroEvalError);
    expect((error as NeuroEvalError).code).toBe('STORAGE_VERSION');
    expect((error as NeuroEvalError).message).toBe(
      'This browser holds NeuroEval data from a newer version of the app (database version 99). ' +
        'Open the newer version, or export your data there first.',
    );

    expect(await inspectDatabaseByHand(indexedDB, name)).toEqual(before);
    expect(await readAllByHand(indexedDB, name, 'benchmarks')).toEqual(rows.benchmarks);
    expect(await readAllByHand(indexedDB, name, 'future')).toEqual(rows.future);
  });

  it('gives way when a newer app version upgrades the database in another tab', async () => {
    const name = freshName();
    const db = await open(name);
    const repos = createRepositories(db);
    await repos.settings.set('theme', 'dark');
    // A newer release opening version 7 must not be blocked by this connection.
    await new Promise<void>((resolve, reject) => {
      const req = indexedDB.open(name, 70);
      req.onblocked = () => reject(new Error('upgrade blocked by the old connection'));
      req.onsuccess = () => {
        req.result.close();
        resolve();
      };
      req.onerror = () => reject(req.error);
    });
    await expect(repos.settings.get('theme', 'light')).rejects.toMatchObject({ code: 'STORAGE_FAILED' });
    await expect(open(name)).rejects.toMatchObject({ code: 'STORAGE_VERSION' });
  });

  it('reports a missing IndexedDB as STORAGE_FAILED with a readable message', async () => {
    // Node has no global indexedDB; the app must say so instead of crashing.
    await expect(openDatabase({ name: freshName() })).rejects.toMatchObject({
      code: 'STORAGE_FAILED',
      message: expect.stringContaining('does not offer IndexedDB'),
    });
  });
});
