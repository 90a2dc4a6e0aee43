/**
 * Deleting stored records in the real app: each Delete button first lists
 * what it will remove, and after confirming, IndexedDB holds nothing that
 * points at what went. Deleting a run takes its answers, scores and reviews;
 * deleting an answer or a review from the drill-down takes theirs; deleting
 * a benchmark takes its cases, runs and the images no other benchmark uses.
 * A reload after the deletions does not report data as vanished. Settings
 * shows what each benchmark and model takes.
 */
import type { Page } from '@playwright/test';
import { putRows, readStore, seededProvenance } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';
import { formatBytes } from '../../src/core/text/units.ts';

interface Row {
  id: string;
  runId: string;
  responseId: string;
  benchmarkId: string;
  scoreSetId: string;
  sha256: string;
  images: { sha256: string }[];
  files: { sha256: string }[];
}

const KEEP = 'kept-run';
const GONE = 'gone-run';

/** Two runs on the demo benchmark (answers, one score set, a review each), and a second benchmark sharing one demo image. */
async function seed(page: Page): Promise<{ demoId: string; shared: string }> {
  const demo = (await readStore<Row & { name: string; contentHash: string }>(page, 'benchmarks')).find((b) => b.name.includes('demo'))!;
  const cases = (await readStore<Row & { id: string; questions: { id: string }[] }>(page, 'cases')).filter((c) => c.benchmarkId === demo.id).slice(0, 3);
  const shared = cases.flatMap((c) => c.images)[0]!.sha256;
  const now = Date.now();
  const rows = (runId: string) => cases.map((c) => {
    const itemKey = `${c.id}#${c.questions[0]!.id}|self-test|none|s0`;
    return { id: `${runId}/${itemKey}`, runId, itemKey, caseId: c.id, questionId: c.questions[0]!.id, cacheKey: `${runId}-${c.id}`, modelId: 'self-test', variant: 'none', sample: 0,
      rawText: 'glioma', parsed: null, parseError: null, usage: { promptTokens: 1, completionTokens: 1, ttftMs: null, prefillTps: null, decodeTps: null }, latencyMs: 5, finishReason: 'stop', createdAt: now };
  });
  const run = (id: string, name: string) => ({ id, benchmarkId: demo.id, name, status: 'done', createdAt: now, updatedAt: now, config: null, provenance: seededProvenance(demo, ['self-test']), plan: { cases: 3, models: 1, variants: 1, samples: 1, items: 3 } });
  const scoring = (runId: string) => {
    const set = { id: `${runId}/v1`, runId, version: 1, createdAt: now, durationMs: 1,
      config: { scorerVersion: 't', seed: 0, resamples: 0, judge: null, judgeRubricVersion: null, encoder: null, taxonomy: false, taxonomyVersion: '', reviewsUpTo: now + 10 },
      summary: { arms: [], calibrationShift: [], items: 3, failed: 0, judgeCalls: 0, judgeReused: 0 } };
    const scores = rows(runId).map((r) => ({ id: `${set.id}|${r.id}`, scoreSetId: set.id, runId, responseId: r.id, itemKey: r.itemKey, caseId: r.caseId, questionId: r.questionId, modelId: r.modelId, variant: 'none', sample: 0,
      protocolId: 'auto', primary: 'correct', metrics: { correct: { value: 1, source: 'rule', sourceId: 'exact' } }, confidence: null, verdicts: [], taxonomy: null, notes: [] }));
    const reviews = rows(runId).slice(0, 2).map((r) => ({ id: `${r.id}::dr-del`, responseId: r.id, runId, reviewerId: 'dr-del', verdict: 'correct', errorClasses: [], rationaleRating: null, reason: 'fine', createdAt: now + 1, previous: [] }));
    return { set, scores, reviews };
  };
  const [a, b] = [scoring(KEEP), scoring(GONE)];
  const other = { ...demo, id: 'other-bench', name: 'Other benchmark', contentHash: 'o'.repeat(64), files: [], createdAt: now - 1, caseCount: 1 };
  await putRows(page, {
    runs: [run(KEEP, 'Run to keep'), run(GONE, 'Run to delete')], responses: [...rows(KEEP), ...rows(GONE)], scoreSets: [a.set, b.set], scores: [...a.scores, ...b.scores], reviews: [...a.reviews, ...b.reviews],
    benchmarks: [other], cases: [{ benchmarkId: other.id, id: 'x1', taskFamily: 'classification', images: [{ path: 'images/x.png', sha256: shared, mime: 'image/png' }], questions: [{ id: 'q1', text: 'Dx?' }] }],
  });
  return { demoId: demo.id, shared };
}

/** Rows that point at something no longer stored. */
async function orphans(page: Page): Promise<string[]> {
  const [benchmarks, cases, assets, runs, responses, scoreSets, scores, reviews] = await Promise.all(
    ['benchmarks', 'cases', 'assets', 'runs', 'responses', 'scoreSets', 'scores', 'reviews'].map((s) => readStore<Row>(page, s)),
  );
  const ids = (rows: Row[] | undefined) => new Set(rows!.map((r) => r.id));
  const used = new Set([...cases!.flatMap((c) => c.images.map((i) => i.sha256)), ...benchmarks!.flatMap((b) => b.files.map((f) => f.sha256))]);
  return [
    ...cases!.filter((c) => !ids(benchmarks).has(c.benchmarkId)).map((c) => `case ${c.benchmarkId}/${c.images.length}`),
    ...assets!.filter((a) => !used.has(a.sha256)).map((a) => `image ${a.sha256}`),
    ...runs!.filter((r) => !ids(benchmarks).has(r.benchmarkId)).map((r) => `run ${r.id}`),
    ...responses!.filter((r) => !ids(runs).has(r.runId)).map((r) => `answer ${r.id}`),
    ...scoreSets!.filter((s) => !ids(runs).has(s.runId)).map((s) => `score set ${s.id}`),
    ...scores!.filter((s) => !ids(responses).has(s.responseId) || !ids(scoreSets).has(s.scoreSetId)).map((s) => `score ${s.id}`),
    ...reviews!.filter((r) => !ids(responses).has(r.responseId)).map((r) => `review ${r.id}`),
  ];
}

const count = async (page: Page, store: string, where: (r: Row) => boolean = () => true) => (await readStore<Row>(page, store)).filter(where).length;

test('runs, answers, reviews and benchmarks are deleted after a confirmation that lists what goes, leaving nothing orphaned', async ({ page, server }) => {
  test.setTimeout(120_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  const { demoId, shared } = await seed(page);

  // A run: the dialog counts its rows; Cancel keeps everything.
  await page.goto(`${server.url}#/runs`);
  const runRow = page.getByTestId('run-list').getByRole('row', { name: /Run to delete/ });
  await runRow.getByTestId('delete-run').click();
  const dialog = page.getByRole('dialog', { name: 'Delete run “Run to delete”?' });
  await expect(dialog.getByTestId('delete-plan')).toHaveText(['1 run', '3 answers', '3 answer scores', '1 score version', '2 clinician reviews'].join(''));
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect(await count(page, 'responses', (r) => r.runId === GONE)).toBe(3);

  await runRow.getByTestId('delete-run').click();
  await dialog.getByTestId('delete-confirm').click();
  await expect(page.getByTestId('deleted')).toHaveText('Deleted run "Run to delete": 1 run, 3 answers, 3 answer scores, 1 score version, 2 clinician reviews.');
  await expect(page.getByTestId('run-list')).not.toContainText('Run to delete');
  for (const store of ['responses', 'scores', 'scoreSets', 'reviews']) expect(await count(page, store, (r) => r.runId === GONE), store).toBe(0);
  expect(await count(page, 'runs')).toBe(1);
  expect(await count(page, 'responses', (r) => r.runId === KEEP)).toBe(3);
  expect(await orphans(page)).toEqual([]);

  // A review and an answer, from the case drill-down of the kept run.
  const firstCase = (await readStore<{ caseId: string; runId: string }>(page, 'responses')).find((r) => r.runId === KEEP)!.caseId;
  await page.goto(`${server.url}#/results/case/${KEEP}/${firstCase}`);
  const card = page.getByTestId('side-by-side').locator(':scope > div').first();
  await expect(card.getByTestId('answer-review')).toContainText('Reviewed by dr-del: correct');
  await card.getByTestId('delete-review').click();
  const reviewDialog = page.getByRole('dialog', { name: /Delete review/ });
  await expect(reviewDialog.getByTestId('delete-plan')).toHaveText('1 clinician review');
  await expect(reviewDialog).toContainText('1 score version that counted it will be marked outdated');
  await reviewDialog.getByTestId('delete-confirm').click();
  await expect(page.getByTestId('deleted')).toContainText('Deleted review "dr-del\'s review (correct)": 1 clinician review.');
  expect(await count(page, 'reviews', (r) => r.runId === KEEP)).toBe(1);

  await page.getByTestId('side-by-side').locator(':scope > div').first().getByTestId('delete-answer').click();
  const answerDialog = page.getByRole('dialog', { name: /Delete answer/ });
  await expect(answerDialog.getByTestId('delete-plan')).toHaveText(['1 answer', '1 answer score'].join(''));
  await answerDialog.getByTestId('delete-confirm').click();
  await expect(page.getByTestId('deleted')).toContainText('Deleted answer "self-test on');
  await expect(page.getByText('No answer stored for this variant and sample.')).toBeVisible();
  expect(await count(page, 'responses', (r) => r.runId === KEEP)).toBe(2);
  expect(await count(page, 'scores', (r) => r.runId === KEEP)).toBe(2);
  expect(await orphans(page)).toEqual([]);
  // The run's scores say they no longer match its answers.
  await page.goto(`${server.url}#/results/run/${KEEP}`);
  await expect(page.getByTestId('score-outdated')).toContainText(`Outdated: the answer to ${firstCase}#`);

  // The demo benchmark: its runs and cases go; the image the other benchmark also uses stays.
  const before = { cases: await count(page, 'cases'), assets: await count(page, 'assets') };
  const demoCases = await count(page, 'cases', (c) => c.benchmarkId === demoId);
  await page.goto(`${server.url}#/benchmarks`);
  await page.getByTestId('benchmark-list').getByRole('row', { name: /NeuroEval demo/ }).getByTestId('delete-benchmark').click();
  const benchDialog = page.getByRole('dialog', { name: /Delete benchmark “NeuroEval demo/ });
  await expect(benchDialog.getByTestId('delete-plan')).toContainText(`${demoCases} cases`);
  await expect(benchDialog.getByTestId('delete-plan')).toContainText('1 run');
  await expect(benchDialog).toContainText('1 image also used by another benchmark is kept.');
  await benchDialog.getByTestId('delete-confirm').click();
  await expect(page.getByRole('status')).toContainText('Deleted benchmark "NeuroEval demo');
  await expect(page.getByTestId('benchmark-list')).not.toContainText('NeuroEval demo');

  expect(await count(page, 'benchmarks')).toBe(1);
  expect(await count(page, 'cases')).toBe(before.cases - demoCases);
  const assets = await readStore<Row>(page, 'assets');
  expect(assets.map((a) => a.sha256)).toEqual([shared]);
  expect(before.assets).toBeGreaterThan(1);
  for (const store of ['runs', 'responses', 'scores', 'scoreSets', 'reviews']) expect(await count(page, store), store).toBe(0);
  expect(await orphans(page)).toEqual([]);

  // The deletions were the user's: a reload does not warn that stored data vanished.
  await page.reload();
  await expect(page.getByTestId('benchmark-list')).toContainText('Other benchmark');
  await expect(page.getByTestId('data-missing')).toHaveCount(0);
});

test('Settings shows storage use per benchmark and per stored model; a review is deleted on the review page and a run on its own page', async ({ page, server }) => {
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await seed(page);
  // A stored model: its record, and two files in the model cache as the Models page stores them.
  await putRows(page, { models: [{ id: 'tiny-vlm', runtime: 'transformers', modelId: 'tiny-vlm', label: 'Tiny VLM', sizeBytes: 3072, files: [], source: 'imported', addedAt: Date.now() }] });
  await page.evaluate(async () => {
    const cache = await caches.open('neuroeval-models');
    for (const [name, size] of [['config.json', 1024], ['onnx/model.onnx', 2048]] as const) {
      await cache.put(new URL(`models/tiny-vlm/${name}`, document.baseURI).href, new Response(new Uint8Array(size), { headers: { 'Content-Length': String(size) } }));
    }
  });
  const assets = await readStore<{ sha256: string; bytes: number }>(page, 'assets');
  const demoCases = await count(page, 'cases', (c) => c.benchmarkId !== 'other-bench');

  await page.goto(`${server.url}#/settings`);
  const benchmarks = page.getByTestId('benchmark-use');
  const demoRow = benchmarks.getByRole('row', { name: /NeuroEval demo/ });
  // Cases, images and bytes, runs (2 seeded), answers (3 each).
  await expect(demoRow.locator('td').nth(1)).toHaveText(String(demoCases));
  await expect(demoRow.locator('td').nth(3)).toHaveText('2');
  await expect(demoRow.locator('td').nth(4)).toHaveText('6');
  await expect(demoRow.locator('td').nth(2)).toContainText('shared');
  await expect(benchmarks.getByRole('row', { name: /Other benchmark/ }).locator('td').nth(2)).toContainText('1 · ');
  await expect(page.getByTestId('benchmark-use-total').locator('td').nth(1)).toContainText(formatBytes(assets.reduce((n, a) => n + a.bytes, 0)));
  await expect(page.getByTestId('model-use').getByRole('row', { name: /Tiny VLM/ })).toHaveText(/Tiny VLM\s*2\s*3 KiB/);
  // Images and model files as counted above, in one sum beside the browser's own estimate.
  await expect(page.getByTestId('storage-estimate')).toContainText(`Counted here: ${formatBytes(assets.reduce((n, a) => n + a.bytes, 0))} of images, 3 KiB of model files`);
  await expect(page.getByTestId('storage-estimate')).toContainText('The browser estimates');

  // A reviewer deletes a review from the review page's audit trail.
  await putRows(page, { settings: [{ key: 'reviewer.name', value: 'dr-del', updatedAt: Date.now() }] });
  await page.goto(`${server.url}#/review/${KEEP}`);
  await page.getByTestId('review-filter').selectOption('reviewed');
  await expect(page.getByTestId('review-position')).toHaveText('1 of 2');
  const trail = page.getByTestId('audit-trail');
  await trail.locator('summary').click();
  await trail.getByTestId('delete-review').click();
  await expect(page.getByRole('dialog').getByTestId('delete-plan')).toHaveText('1 clinician review');
  await page.getByRole('dialog').getByTestId('delete-confirm').click();
  await expect(page.getByTestId('deleted')).toHaveText('Deleted review "dr-del\'s review (correct)": 1 clinician review.');
  await expect(page.getByTestId('review-unsaved')).toBeVisible();
  await expect(page.getByTestId('audit-trail')).toHaveCount(0);
  expect(await count(page, 'reviews', (r) => r.runId === KEEP)).toBe(1);

  // Deleting the run from its own page says what went there, and the answers column follows.
  await page.goto(`${server.url}#/runs/${GONE}`);
  await page.getByTestId('run-detail').getByTestId('delete-run').click();
  await page.getByRole('dialog').getByTestId('delete-confirm').click();
  await expect(page.getByTestId('deleted')).toHaveText(/^Deleted run "Run to delete": 1 run, 3 answers/);
  await page.goto(`${server.url}#/settings`);
  await expect(page.getByTestId('benchmark-use').getByRole('row', { name: /NeuroEval demo/ }).locator('td').nth(4)).toHaveText('3');
});
