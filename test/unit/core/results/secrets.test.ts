/**
 * An endpoint's API key stays in the endpoint settings: a run on that
 * endpoint names it by id, so the key is in none of what a run produces — its
 * configuration, provenance, stored record, run export, scores CSV or HTML
 * report — and a run export or run record that still holds one (a version-1
 * export, a hand-edited file) loses it on the way in and on the way out.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import { createRepositories, openDatabase } from '../../../../src/core/db/index.ts';
import type { RunRecord } from '../../../../src/core/runner/records.ts';
import { runtimeOfSpec, specFiles } from '../../../../src/core/engines/spec.ts';
import { agreementReport } from '../../../../src/core/results/agreement.ts';
import { compareRows } from '../../../../src/core/results/comparisons.ts';
import { loadResults } from '../../../../src/core/stored/overview.ts';
import { overviewOf } from '../../../../src/core/results/overview.ts';
import { buildHtmlReport } from '../../../../src/core/results/report-html.ts';
import { scoresCsv } from '../../../../src/core/results/scores-csv.ts';
import type { RunConfig } from '../../../../src/core/runner/config.ts';
import { itemKeyOf } from '../../../../src/core/runner/plan.ts';
import { buildProvenance } from '../../../../src/core/runner/provenance.ts';
import { withoutSecrets } from '../../../../src/core/runner/secrets.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import { parseRunExport, runRecordOf, serializeRunExport, toRunExport } from '../../../../src/core/scoring/io/run-export.ts';
import { scoreRun } from '../../../../src/core/scoring/run/score-run.ts';
import type { EndpointConfig } from '../../../../src/features/models/endpoints.ts';
import { engineConfigs, modelChoices } from '../../../../src/features/runs/new-run.ts';

const SECRET = 'sk-test-SECRET-123';
const HASH = 'e'.repeat(64);

/** The endpoint as the settings keep it, key included. */
const endpoint: EndpointConfig = { id: '10.0.0.5:8000/llava', baseUrl: 'http://10.0.0.5:8000/v1', model: 'llava', concurrency: 2, apiKey: SECRET };

const cases: BenchCase[] = ['c1', 'c2'].map((id, i) => ({
  id, taskFamily: 'differential-diagnosis', split: 'test', diseaseGroup: 'tumour', modality: 'MRI', images: [],
  questions: [{ id: 'q1', text: 'Dx?', reference: { diagnosis: i ? 'Meningioma' : 'Glioblastoma' } }],
}));

const leaks = (what: unknown) => JSON.stringify(what).includes(SECRET);

async function endpointRun(): Promise<{ config: RunConfig; run: RunRecord; responses: ResponseRecord[] }> {
  // The run form's path: the endpoint choice becomes the run's engine spec.
  const choices = modelChoices([], [endpoint]).filter((c) => c.kind === 'openai');
  const engines = await engineConfigs(choices, 'wasm');
  const modelId = engines[0]!.id;
  const config: RunConfig = {
    spec: { benchmarkId: 'b', models: [{ id: modelId, filesHash: '' }], sampling: { temperature: 0, topP: 1, seed: 0, maxTokens: 64 } },
    protocolId: 'auto', fewShot: false, engines,
  };
  // What runner.worker.ts `create` builds and stores.
  const provenance = buildProvenance({
    app: { version: '0.1.0', commit: 'test' },
    environment: { userAgent: 'test', crossOriginIsolated: false },
    models: engines.map((e) => ({ id: e.id, label: e.label, runtime: runtimeOfSpec(e), files: specFiles(e) })),
    protocol: { id: 'auto', version: '1', templateHashes: {} },
    sampling: config.spec.sampling, samples: 1, variants: ['none'],
    benchmark: { id: 'b', contentHash: HASH },
  });
  const run: RunRecord = {
    id: 'run-endpoint', benchmarkId: 'b', name: 'Endpoint run', status: 'done', createdAt: 1, updatedAt: 2,
    config: withoutSecrets(config), provenance: withoutSecrets(provenance), plan: { cases: 2, models: 1, variants: 1, samples: 1, items: 2 },
  };
  const responses = cases.map((c, i): ResponseRecord => {
    const itemKey = itemKeyOf({ caseId: c.id, questionId: 'q1', modelId, variant: 'none', sample: 0 });
    const parsed = { hypotheses: [{ rank: 1, diagnosis: i ? 'Meningioma' : 'Abscess', confidence: 0.8, evidence: null }] };
    return {
      id: `${run.id}/${itemKey}`, runId: run.id, itemKey, caseId: c.id, questionId: 'q1', cacheKey: '', modelId, variant: 'none', sample: 0,
      rawText: JSON.stringify(parsed), parsed, parseError: null, usage: { promptTokens: 5, completionTokens: 5, ttftMs: 1, prefillTps: 1, decodeTps: 1 },
      latencyMs: 10, finishReason: 'stop', createdAt: 1,
    };
  });
  return { config, run, responses };
}

describe('API keys stay in the endpoint settings', () => {
  it('are in no run configuration, provenance, record, export, CSV or report', async () => {
    expect(leaks(endpoint)).toBe(true); // the secret is real: only the settings hold it
    const { config, run, responses } = await endpointRun();
    expect(config.engines[0]).toMatchObject({ kind: 'openai', endpointId: endpoint.id, baseUrl: endpoint.baseUrl, model: 'llava' });
    expect(leaks(config)).toBe(false);
    expect(leaks(run.provenance)).toBe(false);
    expect(leaks(run)).toBe(false);

    const db = await openDatabase({ name: `secrets-${Date.now()}`, indexedDB, IDBKeyRange });
    const repos = createRepositories(db);
    await repos.benchmarks.putWithContent({
      id: 'b', name: 'Bench', version: '1', license: 'MIT', description: '', contentHash: HASH, source: 'x', synthetic: true, caseCount: 2, createdAt: 1, files: [],
      manifest: { format: 'neuroeval-bundle', formatVersion: 1, id: 'b', name: 'Bench', version: '1', license: 'MIT', contentHash: HASH, caseCount: 2, imageCount: 0 },
    }, cases);
    await repos.runs.put(run);
    await repos.responses.putBatch(responses);
    const scored = await scoreRun({ protocolId: 'auto', cases, responses }, { resamples: 50 });
    await repos.scores.saveVersion(run.id, { durationMs: 1, config: scored.config, summary: scored.summary }, scored.items);
    const stored = await repos.runs.require(run.id);
    expect(leaks(stored)).toBe(false);

    // The results worker's exports: the run export, the CSV and the HTML report.
    const exported = serializeRunExport(toRunExport(stored, await repos.responses.listByRun(run.id), cases, { exportedAt: 3 }));
    expect(exported).toContain(endpoint.id);
    expect(exported).not.toContain(SECRET);
    const data = await loadResults(repos, 'b');
    const csv = scoresCsv(data);
    expect(csv).toContain('c1');
    expect(csv).not.toContain(SECRET);
    const html = buildHtmlReport({
      overview: overviewOf(data), metric: 'pass@1', comparisons: compareRows(data.scored, 'pass@1'), breakdowns: [],
      agreement: agreementReport([], []), generatedAt: new Date(0), appVersion: 'test',
    });
    expect(html).toContain('Endpoint run');
    expect(html).not.toContain(SECRET);
    db.close();
  });

  it('are dropped from a record or file that still holds one', async () => {
    const { run, responses } = await endpointRun();
    const [spec] = run.config!.engines;
    // A record with a key smuggled into its configuration (an old record, a spread endpoint setting):
    // the types forbid an `apiKey` in a literal, not in an object that merely has more than its type says.
    const smuggled = { ...spec!, apiKey: SECRET };
    const tainted: RunRecord = { ...run, config: { ...run.config!, engines: [smuggled] } };
    expect(leaks(tainted)).toBe(true);
    expect(leaks(toRunExport(tainted, responses))).toBe(false);

    // A version-1 export: the configuration, with the key, inside the provenance.
    const { config, provenance, ...rest } = tainted;
    const v1 = JSON.stringify({ format: 'neuroeval-run', version: 1, run: rest, provenance: { ...provenance, config }, responses: responses.map(({ caseId: _c, questionId: _q, ...r }) => r) });
    expect(v1).toContain(SECRET);
    const parsed = parseRunExport(v1, 'old.json');
    expect(leaks(parsed)).toBe(false);
    expect(parsed.run.config?.engines[0]).toMatchObject({ kind: 'openai', endpointId: endpoint.id });
    expect(parsed.responses.map((r) => [r.caseId, r.questionId])).toEqual([['c1', 'q1'], ['c2', 'q1']]);
    expect(leaks(runRecordOf(parsed))).toBe(false);
    expect(serializeRunExport(parsed)).not.toContain(SECRET);

    // A version-1 endpoint config written before endpoint ids: the id is derived from host and model.
    const { endpointId: _id, ...withoutId } = spec as Extract<typeof spec, { kind: 'openai' }>;
    const older = JSON.stringify({ format: 'neuroeval-run', version: 1, run: rest, provenance: { ...provenance, config: { ...config, engines: [{ ...withoutId, apiKey: SECRET }] } }, responses: [] });
    const read = parseRunExport(older, 'older.json');
    expect(read.run.config?.engines[0]).toMatchObject({ kind: 'openai', endpointId: '10.0.0.5:8000/llava' });
    expect(leaks(read)).toBe(false);
  });
});
