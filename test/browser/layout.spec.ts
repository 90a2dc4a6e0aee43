/**
 * Layout at the two common desktop sizes: every page, filled with realistic
 * data (three models with long names, a long run name, a benchmark with a
 * long name), is opened at 1280×800 and 1920×1080, and nothing may run past
 * its box sideways or have its text cut off (test/support/layout-overflow.ts).
 * The failure names the page, the viewport and each element.
 */
import type { Page } from '@playwright/test';
import { putRows, readStore, seededProvenance } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';
import { findLayoutProblems } from '../support/layout-overflow.ts';
import { readerRunRecord } from '../../src/core/readers/study.ts';

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
] as const;

const MODELS = [
  { id: 'smolvlm-256m-instruct-q4', label: 'SmolVLM 256M Instruct (ONNX, 4-bit weights, vision encoder fp16)' },
  { id: 'qwen2.5-vl-3b-instruct-q4f16', label: 'Qwen2.5-VL 3B Instruct q4f16_1 on the department mirror server' },
  { id: 'gemma-3n-e2b-it-onnx-webgpu-long-model-identifier', label: 'gemma-3n-e2b-it-onnx-webgpu-long-model-identifier' },
] as const;

/**
 * Clipping by design, each with its reason: the answers table is virtualised,
 * so its rows have one fixed height and a long id ends in "…" with the whole
 * id in the cell's title.
 */
const CLIP_ALLOWED = ['[data-testid="answers-table"] td'];

type SeedCase = { id: string; benchmarkId: string; taskFamily: string; questions: { id: string; reference?: { diagnosis?: string } }[] };

/** A finished, scored run of the demo's differential cases by three models, a stored model, a second benchmark, and a reviewer. */
async function seed(page: Page, url: string): Promise<{ runId: string; benchmarkId: string; caseId: string; readerRunId: string }> {
  const cases = (await readStore<SeedCase>(page, 'cases')).filter((c) => c.taskFamily === 'differential-diagnosis' && c.questions[0]?.reference?.diagnosis);
  const [demo] = await readStore<{ id: string; manifest: Record<string, unknown> }>(page, 'benchmarks');
  const runId = 'layout-run';
  const now = Date.now();
  const usage = { promptTokens: 50, completionTokens: 20, ttftMs: 10, prefillTps: 500, decodeTps: 40 };
  const responses = cases.flatMap((c, i) =>
    MODELS.map((m, k) => {
      const itemKey = `${c.id}#${c.questions[0]!.id}|${m.id}|none|s0`;
      const dx = (i + k) % 3 === 0 ? 'Posterior reversible encephalopathy syndrome with haemorrhagic transformation' : c.questions[0]!.reference!.diagnosis!;
      const parsed = { hypotheses: [{ rank: 1, diagnosis: dx, confidence: 0.7, evidence: 'Bilateral parieto-occipital T2/FLAIR hyperintensities with a thin rim of susceptibility artefact' }] };
      return { id: `${runId}/${itemKey}`, runId, itemKey, caseId: c.id, questionId: c.questions[0]!.id, cacheKey: '', modelId: m.id, variant: 'none', sample: 0, rawText: JSON.stringify(parsed), parsed, parseError: null, usage, latencyMs: 100, finishReason: 'stop', createdAt: now };
    }),
  );
  const base = seededProvenance({ id: cases[0]!.benchmarkId }, MODELS.map((m) => m.id));
  const features = ['bgra8unorm-storage', 'depth-clip-control', 'depth32float-stencil8', 'float32-filterable', 'indirect-first-instance', 'rg11b10ufloat-renderable', 'texture-compression-bc', 'timestamp-query'];
  const provenance = {
    ...base,
    models: base.models.map((m, i) => ({ ...m, label: MODELS[i]!.label })),
    environment: { ...base.environment, adapter: { vendor: 'google', architecture: 'swiftshader', description: 'SwiftShader Device (Subzero) (0x0000C0DE)', isFallbackAdapter: false, features } },
    startedAt: now - 3_725_000,
    endedAt: now,
  };
  const run = {
    id: runId,
    benchmarkId: cases[0]!.benchmarkId,
    name: 'Differential diagnosis, three local models, department mirror, greedy decoding, original images — pilot for the neuroradiology committee',
    status: 'done',
    createdAt: now - 3_800_000,
    updatedAt: now,
    config: null,
    provenance,
    plan: { cases: cases.length, models: MODELS.length, variants: 1, samples: 1, items: responses.length },
  };
  const model = { id: MODELS[1].id, runtime: 'transformers', modelId: MODELS[1].id, label: MODELS[1].label, sizeBytes: 2_400_000_000, files: [{ name: 'onnx/decoder_model_merged_q4f16.onnx', bytes: 2_400_000_000, sha256: 'a'.repeat(64) }], source: 'catalogue', addedAt: now };
  const other = { ...demo!, id: 'ward-7-mri-2024-deidentified-pilot-cases', name: 'Ward 7 MRI, de-identified pilot cases from the 2024 stroke and tumour boards (neuroradiology)', synthetic: false, source: 'dicom', caseCount: 0, manifest: { ...demo!.manifest, id: 'ward-7-mri-2024-deidentified-pilot-cases' } };
  // A reader's session of a reader study on the same cases, under a long pseudonym and role.
  const reader = readerRunRecord({
    benchmark: { id: cases[0]!.benchmarkId, name: 'NeuroEval demo (synthetic)', version: '1', contentHash: '' },
    reader: { pseudonym: 'Consultant-neuroradiologist-07', role: 'neuroradiologist, stroke and neuro-oncology boards' },
    sourceRun: run, protocol: { id: 'auto', version: 'auto' }, items: cases.map((c) => ({ caseId: c.id, questionId: c.questions[0]!.id })),
    app: { version: 'test', commit: 'test' }, now,
  });
  await putRows(page, { runs: [run, reader], responses, models: [model], benchmarks: [other], settings: [{ key: 'reviewer.name', value: 'dr-layout', updatedAt: now }] });
  // Rows written beside the app's own connection: a reload makes every page read them afresh.
  await openApp(page, url, `#/results/run/${runId}`);
  await page.reload();
  await page.getByTestId('score-run').click();
  await expect(page.getByTestId('score-summary')).toHaveAttribute('data-version', '1', { timeout: 60_000 });
  return { runId, benchmarkId: cases[0]!.benchmarkId, caseId: cases[0]!.id, readerRunId: reader.id };
}

test('no page overflows its boxes or clips its text at 1280×800 and 1920×1080', async ({ page, server }) => {
  test.setTimeout(240_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  const { runId, benchmarkId, caseId, readerRunId } = await seed(page, server.url);

  const pages: { name: string; hash: string; ready: (p: Page) => Promise<void> }[] = [
    { name: 'Home', hash: '#/', ready: (p) => expect(p.locator('[data-step="run"]')).toHaveAttribute('data-state', 'done') },
    { name: 'Benchmarks', hash: '#/benchmarks', ready: (p) => expect(p.getByTestId('benchmark-list')).toContainText('Ward 7 MRI') },
    { name: 'a benchmark', hash: `#/benchmarks/${benchmarkId}`, ready: (p) => expect(p.getByTestId('case-count')).toContainText('cases') },
    { name: 'a case', hash: `#/benchmarks/${benchmarkId}/${caseId}`, ready: (p) => expect(p.getByTestId('case-view')).toBeVisible() },
    { name: 'Runs', hash: '#/runs', ready: (p) => expect(p.getByTestId('run-list')).toContainText('neuroradiology committee') },
    { name: 'a finished run', hash: `#/runs/${runId}`, ready: (p) => expect(p.getByTestId('run-answers')).toContainText('SmolVLM 256M') },
    { name: 'Results', hash: '#/results', ready: (p) => expect(p.getByTestId('results-runs')).toBeVisible() },
    { name: 'a benchmark\'s results', hash: `#/results/b/${benchmarkId}`, ready: (p) => expect(p.getByTestId('leaderboard')).toBeVisible() },
    { name: 'a run\'s scores', hash: `#/results/run/${runId}`, ready: (p) => expect(p.getByTestId('score-summary')).toBeVisible() },
    { name: 'a drill-down', hash: `#/results/case/${runId}/${caseId}`, ready: (p) => expect(p.getByTestId('side-by-side').first()).toBeVisible() },
    { name: 'Review', hash: `#/review/${runId}`, ready: (p) => expect(p.locator('section[aria-label="Case"] img').first()).toBeVisible() },
    { name: 'Reader study', hash: '#/readers', ready: (p) => expect(p.getByTestId('reader-runs')).toContainText('Consultant-neuroradiologist-07') },
    { name: 'a reader session', hash: `#/readers/${readerRunId}`, ready: (p) => expect(p.locator('section[aria-label="Case"] img').first()).toBeVisible() },
    { name: 'Models', hash: '#/models', ready: (p) => expect(p.getByTestId('catalogue')).toBeVisible() },
    { name: 'Settings', hash: '#/settings', ready: (p) => expect(p.locator('main h1')).toHaveText('Settings') },
    { name: 'not found', hash: '#/no-such-page/a-long-path-segment-that-someone-pasted-from-an-old-bookmark-of-a-previous-version', ready: (p) => expect(p.getByTestId('not-found')).toBeVisible() },
  ];

  // One line per distinct problem, with how many elements have it (a table's every row clipping is one finding).
  const problems = new Map<string, number>();
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    for (const { name, hash, ready } of pages) {
      await page.goto(`${server.url}${hash}`);
      await ready(page);
      await page.evaluate(() => document.fonts.ready);
      for (const p of await page.evaluate(findLayoutProblems, CLIP_ALLOWED)) {
        const line = `${name} at ${viewport.width}×${viewport.height}: ${p.kind}: ${p.element}`;
        problems.set(line, (problems.get(line) ?? 0) + 1);
      }
    }
  }
  expect([...problems].map(([line, n]) => (n > 1 ? `${line} (×${n})` : line))).toEqual([]);
});
