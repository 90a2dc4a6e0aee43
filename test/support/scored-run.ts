/**
 * A finished run of the demo's differential-diagnosis cases with known answers,
 * seeded straight into the app's database and scored through the UI (rules
 * only): the results, drill-down and review pages with real scores, without
 * running a model.
 */
import type { Page } from '@playwright/test';
import { putRows, readStore, seededProvenance } from './app-db.ts';
import { expect } from './fixtures.ts';

interface SeedOptions {
  readonly runId?: string;
  readonly models?: readonly string[];
  /** Whether model `k` answers case `i` right; by default every third answer is wrong. */
  readonly right?: (i: number, k: number) => boolean;
  readonly reviewer?: string;
}

export async function seedScoredRun(page: Page, url: string, options: SeedOptions = {}): Promise<{ runId: string; benchmarkId: string; caseId: string; caseIds: string[]; answers: number }> {
  type C = { id: string; benchmarkId: string; taskFamily: string; questions: { id: string; reference?: { diagnosis?: string } }[] };
  const cases = (await readStore<C>(page, 'cases')).filter((c) => c.taskFamily === 'differential-diagnosis' && c.questions[0]?.reference?.diagnosis);
  const runId = options.runId ?? 'seeded-run';
  const models = options.models ?? ['model-x', 'model-y'];
  const right = options.right ?? ((i: number, k: number) => (i + k) % 3 !== 0);
  const usage = { promptTokens: 50, completionTokens: 20, ttftMs: 10, prefillTps: 500, decodeTps: 40 };
  const responses = cases.flatMap((c, i) => models.map((m, k) => {
    const itemKey = `${c.id}#${c.questions[0]!.id}|${m}|none|s0`;
    const dx = right(i, k) ? c.questions[0]!.reference!.diagnosis! : 'Migraine';
    const parsed = { hypotheses: [{ rank: 1, diagnosis: dx, confidence: 0.7, evidence: null }] };
    return { id: `${runId}/${itemKey}`, runId, itemKey, caseId: c.id, questionId: c.questions[0]!.id, cacheKey: '', modelId: m, variant: 'none', sample: 0, rawText: JSON.stringify(parsed), parsed, parseError: null, usage, latencyMs: 100, finishReason: 'stop', createdAt: Date.now() };
  }));
  const run = { id: runId, benchmarkId: cases[0]!.benchmarkId, name: 'Seeded run', status: 'done', createdAt: Date.now(), updatedAt: Date.now(), config: null, provenance: seededProvenance({ id: cases[0]!.benchmarkId }, models), plan: { cases: cases.length, models: models.length, variants: 1, samples: 1, items: responses.length } };
  // A reviewer name too, so the review page opens the queue.
  await putRows(page, { runs: [run], responses, settings: [{ key: 'reviewer.name', value: options.reviewer ?? 'dr-seed', updatedAt: Date.now() }] });
  await page.goto(`${url}#/results/run/${runId}`);
  await page.getByTestId('score-run').click();
  await expect(page.getByTestId('score-summary')).toHaveAttribute('data-version', '1', { timeout: 60_000 });
  return { runId, benchmarkId: cases[0]!.benchmarkId, caseId: cases[0]!.id, caseIds: cases.map((c) => c.id), answers: responses.length };
}
