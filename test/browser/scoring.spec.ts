/**
 * Scoring in the real app: a run of the demo benchmark whose answers are
 * known (written into IndexedDB as the runner writes them) is scored from
 * the Results page in the scoring worker, rules only; then re-scored with the
 * bundled self-test judge and encoder on WASM, which adds version 2 and keeps
 * version 1, still viewable.
 */
import type { Page } from '@playwright/test';
import { putRows, readStore, seededProvenance } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';

const RUN_ID = 'seeded-run';

interface SeedCase {
  id: string;
  benchmarkId: string;
  taskFamily: string;
  questions: { id: string; reference?: { diagnosis?: string; rationale?: string; rubric?: { id: string }[] } }[];
}

/** Adds a finished run with hand-written answers to the demo benchmark; returns what the scores must be. */
async function seedRun(page: Page): Promise<{ differential: number; correct: number; rationale: number; rubricItems: number }> {
  const benchmark = (await readStore<{ id: string; name: string }>(page, 'benchmarks')).find((b) => b.name.includes('demo'))!;
  const cases = (await readStore<SeedCase>(page, 'cases')).filter((c) => c.benchmarkId === benchmark.id);
  const differential = cases.filter((c) => c.taskFamily === 'differential-diagnosis' && c.questions[0]?.reference?.diagnosis).slice(0, 4);
  const rationale = cases.filter((c) => c.taskFamily === 'rationale-generation' && c.questions[0]?.reference?.rationale).slice(0, 2);
  const rubric = cases.find((c) => c.id === 'rubric-hemorrhage-01')!;
  const usage = { promptTokens: 50, completionTokens: 20, ttftMs: 10, prefillTps: 500, decodeTps: 40 };
  const row = (c: SeedCase, parsed: unknown) => {
    const itemKey = `${c.id}#${c.questions[0]!.id}|self-test|none|s0`;
    return { id: `${RUN_ID}/${itemKey}`, runId: RUN_ID, itemKey, caseId: c.id, questionId: c.questions[0]!.id, cacheKey: '', modelId: 'self-test', variant: 'none', sample: 0, rawText: JSON.stringify(parsed), parsed, parseError: null, usage, latencyMs: 120, finishReason: 'stop', createdAt: Date.now() };
  };
  // Half the differentials name the reference first; the rest a diagnosis no reference uses.
  const responses = [
    // The reply that comes with each list is the reference rationale word for word, so every BERTScore is 1.
    ...differential.map((c, i) => row(c, { hypotheses: [{ rank: 1, diagnosis: i % 2 === 0 ? c.questions[0]!.reference!.diagnosis! : 'Vestibular migraine', confidence: 0.8, evidence: null }], ...(c.questions[0]!.reference!.rationale ? { text: c.questions[0]!.reference!.rationale } : {}) })),
    ...rationale.map((c) => row(c, { text: c.questions[0]!.reference!.rationale! })),
    row(rubric, { text: 'Non-contrast CT now; reverse the anticoagulant; no thrombolysis.' }),
  ];
  const run = {
    id: RUN_ID, benchmarkId: benchmark.id, name: 'Seeded scoring run', status: 'done', createdAt: Date.now(), updatedAt: Date.now(),
    config: null,
    provenance: seededProvenance(benchmark, ['self-test']),
    plan: { cases: responses.length, models: 1, variants: 1, samples: 1, items: responses.length },
  };
  await putRows(page, { runs: [run], responses });
  return { differential: differential.length, correct: Math.ceil(differential.length / 2), rationale: rationale.length, rubricItems: rubric.questions[0]!.reference!.rubric!.length };
}

async function scoreSetCount(page: Page): Promise<number> {
  return (await readStore<{ runId: string }>(page, 'scoreSets')).filter((s) => s.runId === RUN_ID).length;
}

test('a run is scored in the worker, re-scored with the local judge and encoder, and keeps its previous version', async ({ page, server }) => {
  test.setTimeout(360_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  const expected = await seedRun(page);
  expect(expected.differential).toBe(4);
  expect(expected.rationale).toBe(2);

  await page.goto(`${server.url}#/results`);
  await page.getByRole('link', { name: 'Seeded scoring run' }).click();
  const panel = page.getByTestId('score-panel');
  await expect(page.getByTestId('no-scores')).toBeVisible();
  await panel.getByTestId('score-run').click();

  const summary = page.getByTestId('score-summary');
  await expect(summary).toHaveAttribute('data-version', '1', { timeout: 60_000 });
  const pass1 = summary.locator('tr[data-metric="pass@1"]');
  await expect(pass1.locator('td').first()).toHaveText('50.0%');
  await expect(pass1).toContainText('rule 4');
  await expect(summary.locator('tr[data-metric="rougeL"] td').first()).toHaveText('1.000');
  await expect(summary.locator('tr[data-metric="bertscore.f"]')).toHaveCount(0);
  await expect(page.getByTestId('judge-caveat')).toHaveCount(0);

  // Re-score with the bundled judge and encoder (random weights) on WASM.
  await panel.getByTestId('score-judge').selectOption('self-test-text');
  await panel.getByTestId('score-encoder').selectOption('self-test-embed');
  await panel.getByTestId('score-rescale').check();
  await panel.getByLabel('F', { exact: true }).fill('0.42');
  await expect(panel.getByTestId('score-run')).toHaveText('Re-score (keeps version 1)');
  await panel.getByTestId('score-run').click();
  await expect(summary).toHaveAttribute('data-version', '2', { timeout: 300_000 });
  const bert = summary.locator('tr[data-metric="bertscore.f"]');
  await expect(bert).toContainText('encoder self-test-embed');
  await expect(bert.locator('td').first()).toHaveText('1.000'); // each answer is its reference, word for word (rescaling keeps 1 at 1)
  // The random judge cannot be read: its two verdicts are undecided, so the rule-decided pair remains.
  await expect(pass1).toContainText('pass@1 †');
  await expect(pass1.locator('td').nth(3)).toHaveText('2'); // not scorable
  await expect(page.getByTestId('judge-caveat')).toContainText('NOT equivalent to the GPT-4o rubric grader');

  const versions = page.getByTestId('score-versions');
  await expect(versions).toContainText('Version 2 (current)');
  await expect(versions).toContainText('Version 1 (previous)');
  await expect(versions).toContainText('judge: Self-test text model (random weights) · encoder: Self-test encoder (random weights)');
  await expect(versions).toContainText('rescaled (P 0, R 0, F 0.42: the baseline row of layer 2)');
  expect(await scoreSetCount(page)).toBe(2);

  await versions.getByRole('radio').nth(1).check();
  await expect(summary).toHaveAttribute('data-version', '1');
  await expect(pass1.locator('td').first()).toHaveText('50.0%');
  await expect(summary.locator('tr[data-metric="rubric"]')).toHaveCount(0); // rules only: nobody marked the rubric
  await page.screenshot({ path: test.info().outputPath('scores.png'), fullPage: true });

  // A reviewer marks the rubric answer's items; the next score takes the reviewer's marks.
  await page.goto(`${server.url}#/review`);
  await page.getByTestId('reviewer-name').fill('dr-rubric');
  await page.getByTestId('reviewer-name').press('Tab');
  await page.getByRole('link', { name: 'Start reviewing →' }).click();
  await expect(page.getByTestId('review-form')).toBeVisible();
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  for (let i = 0; i < 10 && !(await page.getByTestId('review-rubric').isVisible()); i++) await page.keyboard.press('j');
  const items = page.getByTestId('review-rubric').locator('select');
  await expect(items).toHaveCount(expected.rubricItems);
  for (let i = 0; i < expected.rubricItems; i++) await items.nth(i).selectOption(i === 0 ? 'met' : 'not-met');
  await page.getByTestId('review-form').getByLabel('Correct (c)').check();
  await page.getByTestId('review-save').click();
  // Stored: said of this answer, on the next one (or of this one when it is the last).
  await expect(page.getByTestId('review-previous').filter({ hasText: 'Stored your verdict' }).or(page.getByTestId('review-message'))).toBeVisible();
  await page.goto(`${server.url}#/results/run/${RUN_ID}`);
  await page.getByTestId('score-judge').selectOption('');
  await page.getByTestId('score-encoder').selectOption('');
  await page.getByTestId('score-run').click();
  await expect(summary).toHaveAttribute('data-version', '3', { timeout: 60_000 });
  await expect(summary.locator('tr[data-metric="rubric"]')).toContainText('reviewer 1');
});
