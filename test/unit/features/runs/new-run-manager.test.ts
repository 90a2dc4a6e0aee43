/**
 * The new-run form without a page: choosing a benchmark reads its cases,
 * ticks narrow the plan, a preset fills the form once its benchmark is
 * there, a template edit is carried (and refused with the paraphrase
 * probe), few-shot is offered only where the benchmark has exemplars, and
 * the request a worker receives is plain data naming what was chosen.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchmarkRecord } from '../../../../src/core/bundle/records.ts';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import { createRepositories, openDatabase, type Repositories } from '../../../../src/core/db/index.ts';
import { PARAPHRASE_VARIANT } from '../../../../src/core/runner/variants.ts';
import { AUTO_PROTOCOL } from '../../../../src/core/runner/protocol-adapter.ts';
import { NewRunManager } from '../../../../src/features/runs/new-run-manager.svelte.ts';
import type { RunPreset } from '../../../../src/features/runs/presets.ts';

const image = (id: string) => [{ path: `${id}.png`, sequence: 'FLAIR', plane: 'axial' as const }];
/** Four classification cases (two modalities, two of them the benchmark's few-shot exemplars) and two differential-diagnosis cases. */
const withExemplars: BenchCase[] = [
  ...['Glioma', 'Stroke', 'Normal', 'Glioma'].map((dx, i): BenchCase => ({
    id: `cls-${i + 1}`, taskFamily: 'classification', modality: i % 2 ? 'CT' : 'MRI', images: image(`cls-${i + 1}`),
    questions: [{ id: 'q', text: 'Which class?', reference: { diagnosis: dx } }],
  })),
  ...['Glioblastoma', 'Abscess'].map((dx, i): BenchCase => ({
    id: `ddx-${i + 1}`, taskFamily: 'differential-diagnosis', modality: 'MRI', images: image(`ddx-${i + 1}`),
    questions: [{ id: 'q', text: 'Differential?', reference: { diagnosis: dx } }],
  })),
];
const plain: BenchCase[] = withExemplars.slice(4);

function record(id: string, name: string, cases: readonly BenchCase[], fewShot?: string[]): BenchmarkRecord {
  const manifest = { format: 'neuroeval-bundle' as const, formatVersion: 1 as const, id, name, version: '1', license: 'MIT', contentHash: id.padEnd(64, '0'), caseCount: cases.length, imageCount: cases.length, ...(fewShot ? { protocolDefaults: { fewShotCaseIds: fewShot } } : {}) };
  return { id, name, version: '1', license: 'MIT', description: '', contentHash: manifest.contentHash, source: `test:${id}`, synthetic: true, caseCount: cases.length, createdAt: 1, files: [], manifest };
}

let repos: Repositories;
let benchmarks: BenchmarkRecord[];
const savedDocument = (globalThis as { document?: unknown }).document;

beforeAll(async () => {
  repos = createRepositories(await openDatabase({ name: `new-run-manager-${Date.now()}`, indexedDB, IDBKeyRange }));
  benchmarks = [record('exemplars', 'With exemplars', withExemplars, ['cls-1', 'cls-2']), record('plain', 'Plain', plain)];
  await repos.benchmarks.putWithContent(benchmarks[0]!, withExemplars);
  await repos.benchmarks.putWithContent(benchmarks[1]!, plain);
  // Bundled models are found relative to the page; their manifest cannot be fetched here, which the form's engines allow for.
  (globalThis as { document?: unknown }).document = { baseURI: 'http://127.0.0.1:5173/' };
});
afterAll(() => {
  (globalThis as { document?: unknown }).document = savedDocument;
});

function form(preset: RunPreset | null = null): NewRunManager {
  return new NewRunManager({ benchmarks: () => benchmarks, models: () => [], repos: async () => repos, warmOn: () => new Set() }, preset);
}

async function opened(preset: RunPreset | null = null): Promise<NewRunManager> {
  const f = form(preset);
  f.benchmarksChanged(benchmarks);
  await f.loadCases();
  return f;
}

describe('the new-run form', () => {
  it('starts on the first benchmark with every case, the self-test model and each protocol\'s own budget', async () => {
    const f = await opened();
    expect(f.benchmarkId).toBe('exemplars');
    expect(f.cases.map((c) => c.id)).toEqual(withExemplars.map((c) => c.id));
    expect(f.plan?.counts).toMatchObject({ cases: 6, models: 1, variants: 1, samples: 1, items: 6 });
    expect(f.budgets.map((b) => b.id).sort()).toEqual(['neurovlm-structured', 'nmb-differential']);
    expect(f.maxTokens).toBe(f.budgets[0]!.tokens);
    expect(f.offersFewShot && f.hasFewShot).toBe(true);
    expect(f.fewShotCount).toBe(2);
    expect(f.preview?.caseId).toBe('cls-1');
  });

  it('narrows the plan by the ticked facets, and a second tick of the same value takes it back', async () => {
    const f = await opened();
    f.toggleFacet('taskFamily', 'classification');
    expect(f.plan?.counts.cases).toBe(4);
    f.toggleFacet('modality', 'CT');
    expect(f.plan?.cases.map((c) => c.id)).toEqual(['cls-2', 'cls-4']);
    expect(f.budgets.map((b) => b.id)).toEqual(['neurovlm-structured']);
    f.toggleFacet('modality', 'CT');
    expect(f.plan?.counts.cases).toBe(4);
    f.toggleModel('demo-trained');
    f.toggleVariant('text-only');
    expect(f.plan?.counts).toMatchObject({ models: 2, variants: 2, items: 16 });
    f.toggleModel('self-test');
    f.toggleModel('demo-trained');
    expect(f.plan).toBeNull();
    expect(f.estimate).toBeNull();
  });

  it('offers few-shot only where the benchmark carries exemplars and the cases are asked under NeuroVLM-Bench', async () => {
    const f = await opened();
    f.toggleFacet('taskFamily', 'differential-diagnosis');
    expect(f.offersFewShot).toBe(false);
    f.benchmarkId = 'plain';
    await f.loadCases();
    expect(f.cases.map((c) => c.id)).toEqual(['ddx-1', 'ddx-2']);
    expect(f.filters.taskFamily).toEqual([]);
    expect(f.hasFewShot).toBe(false);
    f.fewShot = true;
    const { config } = await f.request();
    expect(config.fewShot).toBe(false);
  });

  it('fills the form from a preset once its benchmark is stored, then leaves it to the user', async () => {
    const preset: RunPreset = { id: 'demo', benchmark: (b) => b.source === 'test:plain', models: ['demo-trained'], protocolId: 'nmb-differential', taskFamilies: ['differential-diagnosis', 'rationale-generation'], name: 'Preset run' };
    const f = form(preset);
    f.benchmarksChanged([]);
    expect(f.benchmarkId).toBe('');
    f.benchmarksChanged(benchmarks);
    await f.loadCases();
    expect(f).toMatchObject({ benchmarkId: 'plain', protocolId: 'nmb-differential', name: 'Preset run' });
    expect(f.selectedModels).toEqual(['demo-trained']);
    // Only the families the benchmark has are ticked.
    expect(f.filters.taskFamily).toEqual(['differential-diagnosis']);
    f.benchmarkId = 'exemplars';
    f.benchmarksChanged(benchmarks);
    await f.loadCases();
    expect(f.benchmarkId).toBe('exemplars');
    expect(f.filters.taskFamily).toEqual([]);
  });

  it('carries an edited template under its protocol, drops the edit with the protocol, and refuses the paraphrase probe with it', async () => {
    const f = await opened();
    f.chooseProtocol('nmb-differential');
    expect(f.templates).toBeUndefined();
    f.editedUser = 'List three diagnoses for {{question}}';
    const t = f.templates?.['nmb-differential'];
    expect(t?.user).toBe('List three diagnoses for {{question}}');
    expect(t?.version).toBe(`${f.baseTemplate!.version}+edited`);
    expect(f.preview?.messages.at(-1)?.text).toContain('List three diagnoses for Which class?');
    f.toggleVariant(PARAPHRASE_VARIANT);
    expect(f.paraphraseProblem).toMatch(/rewords the built-in prompt template only/);
    expect(await f.submit(async () => 'never')).toBeNull();
    expect(f.error).toBe(f.paraphraseProblem);
    f.chooseProtocol(AUTO_PROTOCOL);
    expect(f.editedUser).toBeNull();
    expect(f.templates).toBeUndefined();
    expect(f.paraphraseProblem).toBeNull();
  });

  it('asks for a run as plain data naming the chosen benchmark, models, device, budget and criteria', async () => {
    const f = await opened();
    f.toggleFacet('taskFamily', 'classification');
    f.toggleModel('demo-trained');
    f.chooseDevice('wasm');
    f.defaultDevice({ device: 'webgpu', reason: 'a hardware adapter' });
    expect(f.device).toBe('wasm');
    expect(f.deviceReason).toBe('a hardware adapter');
    f.wholeImages = true;
    f.budgetOverride = 64;
    f.criteria = [{ metric: 'pass@1', statistic: 'lower', comparator: '>=', threshold: 70, subgroup: '', group: '' }];
    let asked: unknown;
    const runId = await f.submit(async (request) => {
      asked = request;
      return 'run-1';
    });
    expect(runId).toBe('run-1');
    expect(f.busy).toBe(false);
    expect(f.error).toBeNull();
    // Plain data: it survives structured cloning as a worker receives it.
    const { name, config } = structuredClone(asked) as Awaited<ReturnType<NewRunManager['request']>>;
    expect(name).toBe(`With exemplars · ${f.labelOf('self-test')}, ${f.labelOf('demo-trained')}`);
    expect(config.spec).toMatchObject({ benchmarkId: 'exemplars', filters: { taskFamilies: ['classification'] }, variants: ['none'], samples: 1, sampling: { maxTokens: 64, temperature: 0, seed: 42 } });
    expect(config.spec.models.map((m) => m.id)).toEqual(['self-test', 'demo-trained']);
    expect(config.engines.map((e) => [e.id, e.kind === 'transformers' ? e.device : null, e.kind === 'transformers' ? e.processor : null])).toEqual([
      ['self-test', 'wasm', { imageSplitting: false }],
      ['demo-trained', 'wasm', { imageSplitting: false }],
    ]);
    expect(config.criteria?.criteria).toHaveLength(1);
  });

  it('says why a run could not be stored, and keeps the form as it was', async () => {
    const f = await opened();
    const before = f.plan?.counts.items;
    expect(await f.submit(async () => Promise.reject(new Error('The disk is full')))).toBeNull();
    expect(f.error).toBe('The disk is full');
    expect(f.busy).toBe(false);
    expect(f.plan?.counts.items).toBe(before);
  });
});
