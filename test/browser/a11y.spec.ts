/**
 * Accessibility: axe-core (WCAG 2 A and AA rules) on every main page,
 * including the results, drill-down and review pages with real scored data.
 * No violation of serious or critical impact is allowed; the failure lists
 * each one with its elements.
 */
import type { Page } from '@playwright/test';
import { createRequire } from 'node:module';
import { expect, openApp, test } from '../support/fixtures.ts';
import { seedScoredRun } from '../support/scored-run.ts';

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

test('the main pages have no serious or critical accessibility violations', async ({ sharedBrowser, server }) => {
  test.setTimeout(180_000);
  // The app's CSP allows only its own scripts; axe is injected by the test, so this context bypasses CSP.
  const context = await sharedBrowser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  try {
    await openApp(page, server.url, '#/benchmarks');
    await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
    const { runId, benchmarkId, caseId } = await seedScoredRun(page, server.url, { runId: 'a11y-run', reviewer: 'dr-a11y' });
    const pages: { hash: string; ready: (p: Page) => Promise<void> }[] = [
      { hash: '#/', ready: (p) => expect(p.locator('[data-check="offline"]')).toBeVisible() },
      { hash: '#/benchmarks', ready: (p) => expect(p.getByTestId('benchmark-list')).toBeVisible() },
      { hash: `#/benchmarks/${benchmarkId}/${caseId}`, ready: (p) => expect(p.getByTestId('case-view')).toBeVisible() },
      { hash: '#/models', ready: (p) => expect(p.getByTestId('catalogue')).toBeVisible() },
      { hash: '#/runs', ready: (p) => expect(p.getByTestId('run-plan')).toContainText('requests') },
      { hash: '#/results', ready: (p) => expect(p.getByTestId('results-runs')).toBeVisible() },
      {
        hash: `#/results/b/${benchmarkId}`,
        ready: async (p) => {
          await expect(p.getByTestId('leaderboard')).toBeVisible();
          // The Safety and Failures sections fill in once scrolled near.
          await p.getByTestId('safety').scrollIntoViewIfNeeded();
          await expect(p.getByTestId('safety-arms')).toBeVisible();
        },
      },
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
