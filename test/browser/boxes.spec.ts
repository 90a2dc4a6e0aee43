/**
 * A grounding benchmark: cases whose reference is a box (fractions of the
 * image), imported as a NeuroEval bundle, answered with known boxes (seeded
 * answers: a model that writes boxes cannot run here), scored to IoU and
 * accuracy at IoU ≥ 0.5, and drawn over the image in the drill-down.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finalizeBundle } from '../../src/core/bundle/finalize.ts';
import { writeBundleZip } from '../../src/core/bundle/zip-write.ts';
import { buildDrawnDraft } from '../../src/core/demo/index.ts';
import { putRows, readStore, seededProvenance } from '../support/app-db.ts';
import { importBundle } from '../support/demo-trained-run.ts';
import { expect, openApp, test } from '../support/fixtures.ts';
import { makeTempDir } from '../support/temp-dir.ts';

function boxBundle(): string {
  const draft = buildDrawnDraft(7, 2);
  const cases = draft.cases.map((c, i) => ({
    ...c,
    id: `ground-${i + 1}`,
    taskFamily: 'lesion-recognition' as const,
    questions: [{ id: 'q1', text: 'Where is the main lesion?', reference: { boxes: [{ x1: 0.25, y1: 0.25, x2: 0.6, y2: 0.6, label: 'lesion' }], boxFrame: 'fraction' as const } }],
  }));
  const { bundle } = finalizeBundle({ ...draft, manifest: { ...draft.manifest, id: 'grounding-test', name: 'Grounding test', protocolDefaults: {} }, cases }, { inputName: 'grounding' });
  if (!bundle) throw new Error('the grounding bundle did not finalize');
  const file = join(makeTempDir('ground'), 'grounding.zip');
  writeFileSync(file, writeBundleZip(bundle));
  return file;
}

test('boxes: scored by IoU and accuracy at 0.5, and drawn over the image in the drill-down', async ({ page, server }, testInfo) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await importBundle(page, boxBundle(), 2);

  type C = { id: string; benchmarkId: string };
  const cases = (await readStore<C>(page, 'cases')).filter((c) => c.id.startsWith('ground-'));
  expect(cases).toHaveLength(2);
  const runId = 'box-run';
  // ground-1: IoU (0.3 × 0.3) ÷ (0.1225 + 0.112 − 0.09) = 0.623, right; ground-2: no box, wrong.
  const replies: Record<string, string> = { 'ground-1': 'The lesion is at [0.3, 0.3, 0.65, 0.62].', 'ground-2': 'I cannot see a lesion.' };
  const usage = { promptTokens: 50, completionTokens: 20, ttftMs: 10, prefillTps: 500, decodeTps: 40 };
  const responses = cases.map((c) => {
    const itemKey = `${c.id}#q1|model-x|none|s0`;
    const rawText = replies[c.id]!;
    return { id: `${runId}/${itemKey}`, runId, itemKey, caseId: c.id, questionId: 'q1', cacheKey: '', modelId: 'model-x', variant: 'none', sample: 0, rawText, parsed: null, parseError: null, usage, latencyMs: 100, finishReason: 'stop', createdAt: Date.now() };
  });
  const run = { id: runId, benchmarkId: cases[0]!.benchmarkId, name: 'Box run', status: 'done', createdAt: Date.now(), updatedAt: Date.now(), config: null, provenance: seededProvenance({ id: cases[0]!.benchmarkId }, ['model-x']), plan: { cases: 2, models: 1, variants: 1, samples: 1, items: 2 } };
  await putRows(page, { runs: [run], responses });
  await page.goto(`${server.url}#/results/run/${runId}`);
  await page.getByTestId('score-run').click();
  await expect(page.getByTestId('score-summary')).toHaveAttribute('data-version', '1', { timeout: 60_000 });
  const metrics = page.getByTestId('arm-metrics').first();
  await expect(metrics.locator('tr[data-metric="box.acc50"] th')).toHaveText('Box accuracy (IoU ≥ 0.5)');
  await expect(metrics.locator('tr[data-metric="box.acc50"] td').first()).toHaveText(/^50(\.0)?\s?%$/);
  await expect(metrics.locator('tr[data-metric="box.iou"] td').nth(2)).toHaveText('2');

  await page.goto(`${server.url}#/results/case/${runId}/ground-1`);
  const overlay = page.getByTestId('box-overlay');
  await expect(overlay).toBeVisible();
  await expect(overlay.locator('img')).toBeVisible();
  await expect(overlay.getByTestId('box-reference')).toHaveCount(1);
  await expect(overlay.getByTestId('box-answer')).toHaveCount(1);
  // Drawn where the numbers say: the reference box starts a quarter of the way across.
  const stage = await overlay.locator('.stage').boundingBox();
  const ref = await overlay.getByTestId('box-reference').boundingBox();
  expect(Math.abs((ref!.x - stage!.x) / stage!.width - 0.25)).toBeLessThan(0.02);
  expect(Math.abs(ref!.width / stage!.width - 0.35)).toBeLessThan(0.02);
  await overlay.evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: testInfo.outputPath('box-drilldown.png') });

  await page.goto(`${server.url}#/results/case/${runId}/ground-2`);
  await expect(page.getByTestId('box-overlay')).toContainText('model-x: no box in the answer');
  await expect(page.getByTestId('box-overlay').getByTestId('box-answer')).toHaveCount(0);
});
