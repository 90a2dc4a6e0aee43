/**
 * Navigation to an interactive shell: the `neuroeval:interactive` mark that
 * src/app/Shell.svelte sets once mounted, read as milliseconds since the
 * navigation started. Cold = first visit (no service worker, empty cache);
 * warm = reloads served by the installed service worker.
 */
import type { Page } from '@playwright/test';
import { startServer } from '../../../scripts/serve.mjs';
import { type BenchResult, type BenchSuite, diskProfile, freshContext, spread } from '../harness.ts';

const SAMPLES = 5;

async function interactiveAt(page: Page): Promise<{ ms: number; controlled: boolean }> {
  await page.waitForSelector('html[data-ready="true"]');
  const out = await page.evaluate(() => ({
    ms: performance.getEntriesByName('neuroeval:interactive')[0]?.startTime ?? null,
    // Whether a service worker handled this navigation (the page may be claimed later, during the load).
    controlled: ((performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.workerStart ?? 0) > 0,
  }));
  if (out.ms === null) throw new Error('the page set data-ready but has no "neuroeval:interactive" performance mark');
  return { ms: out.ms, controlled: out.controlled };
}

/** Waits until the service worker controls the page and has precached the whole build. */
async function waitForWarmCache(page: Page): Promise<void> {
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await page.evaluate(
      () =>
        new Promise<{ cached: number; total: number } | null>((resolve) => {
          const sw = navigator.serviceWorker;
          const timer = setTimeout(() => resolve(null), 2000);
          sw.addEventListener('message', (e: MessageEvent) => {
            const d = e.data as { type?: string; cached: number; total: number } | null;
            if (d?.type !== 'STATUS') return;
            clearTimeout(timer);
            resolve({ cached: d.cached, total: d.total });
          });
          sw.controller?.postMessage({ type: 'GET_STATUS' });
        }),
    );
    if (status && status.total > 0 && status.cached === status.total) return;
    if (Date.now() > deadline) throw new Error(`the service worker did not finish precaching (${JSON.stringify(status)})`);
    await page.waitForTimeout(250);
  }
}

export const navigationSuite: BenchSuite = {
  id: 'navigation',
  title: 'Navigation to interactive shell',
  description:
    'Milliseconds from navigation start to the `neuroeval:interactive` mark (set when the Svelte shell has mounted), production build on localhost.',
  async run(ctx) {
    const server = await startServer({ root: ctx.dist });
    try {
      const cold: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const context = await freshContext(ctx.browser);
        try {
          const page = await context.newPage();
          await page.goto(server.url);
          const { ms, controlled } = await interactiveAt(page);
          if (controlled) throw new Error('a cold load was served through a service worker');
          cold.push(ms);
        } finally {
          await context.close();
        }
      }

      const warm: number[] = [];
      const profile = await diskProfile(ctx);
      try {
        const page = profile.page;
        await page.goto(server.url);
        await interactiveAt(page);
        await waitForWarmCache(page);
        for (let i = 0; i < SAMPLES; i++) {
          await page.reload();
          const { ms, controlled } = await interactiveAt(page);
          if (!controlled) throw new Error('a warm reload was not served through the service worker');
          warm.push(ms);
        }
      } finally {
        await profile.close();
      }

      const results: BenchResult[] = [
        ...spread(
          'Cold load → interactive',
          cold,
          'ms',
          `${SAMPLES} fresh incognito contexts (no service worker, empty HTTP cache), one navigation each`,
        ),
        ...spread(
          'Warm reload → interactive',
          warm,
          'ms',
          `one on-disk profile, ${SAMPLES} reloads after the service worker controls the page and has precached the build`,
        ),
      ];
      return results;
    } finally {
      await server.close();
    }
  },
};
