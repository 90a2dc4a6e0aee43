/**
 * How close the run form's time estimate comes to the run it estimates: the
 * demo-trained model on WASM over the built-in demo benchmark, through the
 * real app. A first run measures the model (its form has no estimate); each
 * later run records the estimate the form shows before it starts and the
 * time from "Start the run" to "done", and reports estimate ÷ actual.
 */
import type { Page } from '@playwright/test';
import { startServer } from '../../../scripts/serve.mjs';
import { type BenchContext, type BenchResult, type BenchSuite, freshContext } from '../harness.ts';

interface Config {
  readonly name: string;
  readonly how: string;
  readonly protocol?: string;
  readonly taskFamilies?: readonly string[];
  readonly samples?: number;
}

/** The first run only measures; the others are estimated from the runs before them. */
const CONFIGS: readonly Config[] = [
  { name: 'first run (measures the model)', how: 'every demo case, each case’s own protocol' },
  { name: 'every case, each case’s own protocol', how: 'every demo case, each case’s own protocol (protocols by task family)' },
  { name: 'every case, NeuroVLM-Bench structured JSON', how: 'every demo case under one protocol', protocol: 'neurovlm-structured' },
  { name: 'classification cases, 3 samples', how: 'the classification cases, 3 samples each at temperature 0.7', taskFamilies: ['classification'], samples: 3 },
];

interface Measured {
  readonly requests: number;
  readonly estimateS: number | null;
  readonly basis: string;
  readonly actualS: number;
}

async function runOnce(page: Page, url: string, c: Config): Promise<Measured> {
  await page.goto(`${url}#/runs`);
  const form = page.getByTestId('new-run');
  await form.getByTestId('run-plan').waitFor({ timeout: 30_000 });
  await form.locator('select[name="benchmark"]').selectOption({ label: 'NeuroEval demo (synthetic)' });
  await form.locator('input[name="model"][value="self-test"]').uncheck();
  await form.locator('input[name="model"][value="demo-trained"]').check();
  await form.locator('select[name="device"]').selectOption('wasm');
  if (c.protocol) await form.locator('select[name="protocol"]').selectOption(c.protocol);
  for (const f of c.taskFamilies ?? []) await form.locator(`[data-facet="taskFamily"] label`, { hasText: f }).locator('input').check();
  if (c.samples) {
    await form.locator('input[name="samples"]').fill(String(c.samples));
    await form.locator('input[name="temperature"]').fill('0.7');
  }
  // Every request is asked: an answer reused from an earlier run takes no time and would flatter the estimate.
  await form.locator('input[name="force"]').check();
  // The speed records load after the form: wait for the basis to name them (or to say there are none).
  await form.getByTestId('estimate-basis').filter({ hasText: /from \d+ answers|no measured speed yet/ }).waitFor({ timeout: 30_000 });
  const requests = Number((await form.getByTestId('run-plan').locator('strong').first().textContent())?.trim());
  const seconds = await form.getByTestId('estimate').getAttribute('data-seconds');
  const basis = ((await form.getByTestId('estimate-basis').textContent()) ?? '').replace(/\s+/g, ' ').replace(/^\s*—\s*/, '').trim();
  const t0 = performance.now();
  await form.getByRole('button', { name: 'Start the run' }).click();
  await page.getByTestId('run-status').filter({ hasText: /^done$/ }).waitFor({ timeout: 540_000 });
  const actualS = (performance.now() - t0) / 1000;
  return { requests, estimateS: seconds ? Number(seconds) : null, basis, actualS };
}

async function measure(ctx: BenchContext): Promise<BenchResult[]> {
  // A build of another folder can be measured (NEUROEVAL_DIST, as the browser tests take it).
  const server = await startServer({ root: process.env.NEUROEVAL_DIST ?? ctx.dist });
  const context = await freshContext(ctx.browser);
  try {
    const page = await context.newPage();
    await page.goto(`${server.url}#/benchmarks`);
    await page.waitForSelector('html[data-ready="true"]');
    await page.getByTestId('benchmark-list').getByText('NeuroEval demo (synthetic)').waitFor({ timeout: 30_000 });
    const out: BenchResult[] = [];
    for (const [i, c] of CONFIGS.entries()) {
      const m = await runOnce(page, server.url, c);
      ctx.log(`  estimates: ${c.name}: ${m.requests} requests, estimate ${m.estimateS?.toFixed(1) ?? 'none'} s, actual ${m.actualS.toFixed(1)} s — ${m.basis}`);
      if (i === 0) {
        if (m.estimateS !== null) throw new Error(`the first run showed an estimate (${m.basis}) with nothing measured`);
        out.push({ name: `${c.name}: duration`, value: m.actualS, unit: 's', how: `${m.requests} requests, ${c.how}; the form said: ${m.basis}`, digits: 1 });
        continue;
      }
      if (m.estimateS === null) throw new Error(`no estimate for "${c.name}": ${m.basis}`);
      out.push({
        name: `${c.name}: estimate ÷ actual`,
        value: m.estimateS / m.actualS,
        unit: '',
        how: `${m.requests} requests, ${c.how}; estimated ${m.estimateS.toFixed(1)} s, took ${m.actualS.toFixed(1)} s from "Start the run" to done; target 0.75–1.25`,
        digits: 2,
        detail: { estimateS: m.estimateS, actualS: m.actualS, basis: m.basis },
      });
    }
    return out;
  } finally {
    await context.close();
    await server.close();
  }
}

export const estimatesSuite: BenchSuite = {
  id: 'estimates',
  title: 'Run-time estimates against the runs they estimate',
  description:
    'The demo-trained model on WASM over the built-in demo benchmark, one run after another in one browser profile: the estimate the run form shows before each run (from the answers of the runs before it on this machine) divided by the time the run took. 1.00 is exact; the target is 0.75–1.25.',
  run: measure,
};
