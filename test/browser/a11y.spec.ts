/**
 * Accessibility: axe-core (WCAG 2 A and AA rules) on every main page,
 * including the results, drill-down and review pages with real scored data.
 * No violation of serious or critical impact is allowed; the failure lists
 * each one with its elements.
 */
import type { Page } from '@playwright/test';
import { createRequire } from 'node:module';
import { putRows, readStore, seededProvenance } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: unknown): Promise<{ violations: Violation[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

/** A finished run of the demo's differential cases with known answers by two models, scored through the UI. */
async function seedScoredRun(page: Page, url: string): Promise<{ runId: string; benchmarkId: string; caseId: string }> {
  type C = { id: string; benchmarkId: string; taskFamily: string; questions: { id: string; reference?: { diagnosis?: string } }[] };
  const cases = (await readStore<C>(page, 'cases')).filter((c) => c.taskFamily === 'differential-diagnosis' && c.questions[0]?.reference?.diagnosis);
  const runId = 'a11y-run';
  const usage = { promptTokens: 50, completionTokens: 20, ttftMs: 10, prefillTps: 500, decodeTps: 40 };
  const responses = cases.flatMap((c, i) => ['model-x', 'model-y'].map((m, k) => {
    const itemKey = `${c.id}#${c.questions[0]!.id}|${m}|none|s0`;
    const dx = (i + k) % 3 === 0 ? 'Migraine' : c.questions[0]!.reference!.diagnosis!;
    const parsed = { hypotheses: [{ rank: 1, diagnosis: dx, confidence: 0.7, evidence: null }] };
    return { id: `${runId}/${itemKey}`, runId, itemKey, caseId: c.id, questionId: c.questions[0]!.id, cacheKey: '', modelId: m, variant: 'none', sample: 0, rawText: JSON.stringify(parsed), parsed, parseError: null, usage, latencyMs: 100, finishReason: 'stop', createdAt: Date.now() };
  }));
  const run = { id: runId, benchmarkId: cases[0]!.benchmarkId, name: 'Accessibility run', status: 'done', createdAt: Date.now(), updatedAt: Date.now(), config: null, provenance: seededProvenance({ id: cases[0]!.benchmarkId }, ['model-x', 'model-y']), plan: { cases: cases.length, models: 2, variants: 1, samples: 1, items: responses.length } };
  // A reviewer name too, so the review page opens the queue.
  await putRows(page, { runs: [run], responses, settings: [{ key: 'reviewer.name', value: 'dr-a11y', updatedAt: Date.now() }] });
  await page.goto(`${url}#/results/run/${runId}`);
  await page.getByTestId('score-run').click();
  await expect(page.getByTestId('score-summary')).toHaveAttribute('data-version', '1', { timeout: 60_000 });
  return { runId, benchmarkId: cases[0]!.benchmarkId, caseId: cases[0]!.id };
}

test('the main pages have no serious or critical accessibility violations', async ({ sharedBrowser, server }) => {
  test.setTimeout(180_000);
  // The app's CSP allows only its own scripts; axe is injected by the test, so this context bypasses CSP.
  const context = await sharedBrowser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  try {
    await openApp(page, server.url, '#/benchmarks');
    await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
    const { runId, benchmarkId, caseId } = await seedScoredRun(page, server.url);
    const pages: { hash: string; ready: (p: Page) => Promise<void> }[] = [
      { hash: '#/', ready: (p) => expect(p.locator('[data-check="offline"]')).toBeVisible() },
      { hash: '#/benchmarks', ready: (p) => expect(p.getByTestId('benchmark-list')).toBeVisible() },
      { hash: `#/benchmarks/${benchmarkId}/${caseId}`, ready: (p) => expect(p.getByTestId('case-view')).toBeVisible() },
      { hash: '#/models', ready: (p) => expect(p.getByTestId('catalogue')).toBeVisible() },
      { hash: '#/runs', ready: (p) => expect(p.getByTestId('run-plan')).toContainText('requests') },
      { hash: '#/results', ready: (p) => expect(p.getByTestId('results-runs')).toBeVisible() },
      { hash: `#/results/b/${benchmarkId}`, ready: (p) => expect(p.getByTestId('leaderboard')).toBeVisible() },
      { hash: `#/results/run/${runId}`, ready: (p) => expect(p.getByTestId('score-summary')).toBeVisible() },
      { hash: `#/results/case/${runId}/${caseId}`, ready: (p) => expect(p.getByTestId('side-by-side').first()).toBeVisible() },
      { hash: `#/review/${runId}`, ready: (p) => expect(p.getByTestId('review-form')).toBeVisible() },
      { hash: '#/settings', ready: (p) => expect(p.locator('main h1')).toHaveText('Settings') },
    ];
    const problems: string[] = [];
    for (const { hash, ready } of pages) {
      await page.goto(`${server.url}${hash}`);
      await ready(page);
      await page.waitForTimeout(300);
      for (const v of await seriousViolations(page)) problems.push(`${hash}: ${v}`);
    }
    expect(problems).toEqual([]);
  } finally {
    await context.close();
  }
});
