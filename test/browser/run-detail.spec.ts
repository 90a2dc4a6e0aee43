/**
 * A finished run's page in plain words: its answers labelled by case,
 * question, model name and variant (never the runner's item keys), when it
 * finished and how long it took, and a provenance a person can read.
 */
import { putRows, readStore, seededProvenance } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';

test("a finished run shows its answers in words, its duration and a readable provenance", async ({ page, server }) => {
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  const [c] = (await readStore<{ id: string; benchmarkId: string; questions: { id: string }[] }>(page, 'cases')).filter((x) => x.questions[0]?.id === 'q1');
  const now = Date.now();
  const features = ['bgra8unorm-storage', 'float32-filterable', 'timestamp-query', 'depth-clip-control'];
  const base = seededProvenance({ id: c!.benchmarkId }, ['self-test']);
  const provenance = { ...base, variants: ['none', 'degrade:noise:2'], models: [{ ...base.models[0]!, label: 'Self-test model (random weights)' }], environment: { ...base.environment, adapter: { vendor: 'google', architecture: 'swiftshader', description: '', isFallbackAdapter: false, features } }, startedAt: now - 605_000, endedAt: now };
  const itemKey = `${c!.id}#q1|self-test|degrade:noise:2|s0`;
  const answer = { id: `r1/${itemKey}`, runId: 'r1', itemKey, caseId: c!.id, questionId: 'q1', cacheKey: '', modelId: 'self-test', variant: 'degrade:noise:2', sample: 0, rawText: 'Most likely a glioma.', parsed: null, parseError: null, usage: null, latencyMs: 100, finishReason: 'stop', createdAt: now };
  const run = { id: 'r1', benchmarkId: c!.benchmarkId, name: 'Noise check', status: 'done', createdAt: now - 700_000, updatedAt: now, config: null, provenance, plan: { cases: 1, models: 1, variants: 2, samples: 1, items: 2 } };
  await putRows(page, { runs: [run], responses: [answer] });
  await page.goto(`${server.url}#/runs/r1`);
  await page.reload();

  const answers = page.getByTestId('run-answers');
  await expect(answers).toContainText(`${c!.id} · question 1 · Self-test model (random weights) · noise, level 2 of 3`);
  await expect(answers).toContainText('Most likely a glioma.');
  await expect(answers).not.toContainText('|');
  await expect(answers.getByRole('link', { name: c!.id })).toHaveAttribute('href', `#/results/case/r1/${c!.id}`);
  await expect(page.getByTestId('run-finished')).toContainText('10 min 5 s from start to end');

  const prov = page.getByTestId('provenance');
  await expect(prov.getByRole('row', { name: /^Variants/ })).toContainText('original images; noise, level 2 of 3');
  const gpu = prov.getByRole('row', { name: /^GPU/ });
  await expect(gpu).toContainText('WebGPU: google · swiftshader (software), 4 features');
  await expect(gpu.getByText('timestamp-query')).toBeHidden();
  await gpu.getByText('Show the list').click();
  await expect(gpu.getByText('timestamp-query')).toBeVisible();
  // Local, readable times rather than ISO 8601 stamps.
  await expect(prov.getByRole('row', { name: /^Started/ })).not.toContainText(/\dT\d{2}:\d{2}:\d{2}/);
  await expect(prov.getByRole('row', { name: /^Started/ })).toContainText(new Date(now - 605_000).getFullYear().toString());
});

test('the run page and the results page show one decode speed for the same answers', async ({ page, server }) => {
  test.setTimeout(240_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await page.goto(`${server.url}#/runs`);
  const form = page.getByTestId('new-run');
  await expect(form.getByTestId('run-plan')).toContainText('requests');
  await form.locator('input[name="model"][value="self-test"]').uncheck();
  await form.locator('input[name="model"][value="demo-trained"]').check();
  await form.locator('select[name="device"]').selectOption('wasm');
  await form.locator('[data-facet="taskFamily"] label', { hasText: 'classification' }).locator('input').check();
  await form.getByRole('button', { name: 'Start the run' }).click();
  // While it runs: the same name and unit.
  await expect(page.getByTestId('run-decode-speed')).toHaveText(/^decode speed \d+\.\d tokens\/s$/, { timeout: 120_000 });
  await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 180_000 });
  const runId = decodeURIComponent(new URL(page.url()).hash.split('/').pop()!);

  // The figure is tokens after the first over the engine's decode time, summed over the stored answers.
  const answers = (await readStore<{ runId: string; usage: { completionTokens: number | null; decodeTps: number | null } }>(page, 'responses')).filter((r) => r.runId === runId);
  const timed = answers.filter((r) => (r.usage.completionTokens ?? 0) > 1 && r.usage.decodeTps);
  const expected = timed.reduce((n, r) => n + r.usage.completionTokens! - 1, 0) / timed.reduce((n, r) => n + (r.usage.completionTokens! - 1) / r.usage.decodeTps!, 0);
  const shown = page.getByTestId('run-decode-speeds').locator('li[data-model="demo-trained"]');
  await expect(shown).toHaveText(`Demo-trained model (synthetic phantoms only; not a medical model): decode speed ${expected.toFixed(1)} tokens/s`);

  // The results page, for the same answers, says the same.
  await page.getByTestId('run-scores-link').click();
  await page.getByTestId('score-run').click();
  await expect(page.getByTestId('score-summary')).toHaveAttribute('data-version', '1', { timeout: 120_000 });
  await expect(page.getByTestId('score-summary')).toContainText(`decode speed ${expected.toFixed(1)} tokens/s`);
});
