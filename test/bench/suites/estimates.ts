/**
 * How close the run form's time estimate comes to the run it estimates: the
 * demo-trained model on WASM over the built-in demo benchmark, then the
 * self-test and demo-trained models together, through the real app. A first
 * run measures a model (its form has no estimate for it); each later run
 * records the estimate the form shows before it starts and the time from
 * "Start the run" to "done", and reports estimate ÷ actual, for the run and
 * for each model's part of it (from its first request, its load included,
 * to its last answer, read from the stored answers).
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
  /** The models ticked (default: the demo-trained model alone). */
  readonly models?: readonly string[];
  /** This run measures a model: the form may have no estimate, or one for some models only. */
  readonly measures?: boolean;
}

/** The first run only measures; the others are estimated from the runs before them. */
const BOTH = ['self-test', 'demo-trained'];
const CONFIGS: readonly Config[] = [
  // Measured under one protocol first, as a first demo run often is: the next run's other protocols are priced from it.
  { name: 'first run (measures the model)', how: 'the classification cases, their own protocol (NeuroVLM-Bench structured JSON)', taskFamilies: ['classification'], measures: true },
  { name: 'every case, most protocols not measured yet', how: 'every demo case, each case’s own protocol; 29 of them under protocols the first run did not use' },
  { name: 'every case, each case’s own protocol', how: 'every demo case, each case’s own protocol (protocols by task family)' },
  { name: 'every case, NeuroVLM-Bench structured JSON', how: 'every demo case under one protocol', protocol: 'neurovlm-structured' },
  { name: 'classification cases, 3 samples', how: 'the classification cases, 3 samples each at temperature 0.7', taskFamilies: ['classification'], samples: 3 },
  // Two models in one run: the self-test model first (measured here for the first time), then the demo-trained model, as the run form offers them.
  { name: 'two models, first run of the self-test model', how: 'self-test then demo-trained, the classification cases', taskFamilies: ['classification'], models: BOTH, measures: true },
  { name: 'two models', how: 'self-test then demo-trained, the classification cases', taskFamilies: ['classification'], models: BOTH },
  { name: 'demo-trained alone after the two-model runs', how: 'the classification cases', taskFamilies: ['classification'] },
];

interface Part {
  readonly modelId: string;
  /** The form's estimate of this model's part; null when not known. */
  readonly estimateS: number | null;
  /** From the end of the part before it (the run's start for the first) to its last answer. */
  readonly actualS: number;
}

interface Measured {
  readonly requests: number;
  readonly estimateS: number | null;
  readonly basis: string;
  readonly actualS: number;
  readonly parts: readonly Part[];
}

/** Each model's part of a finished run, in the order the run asked them, read from the stored answers. */
async function actualParts(page: Page, runId: string): Promise<{ modelId: string; actualS: number }[]> {
  return page.evaluate(async (id) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('neuroeval');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const all = <T,>(store: string, index: string | null, key: IDBValidKey) =>
      new Promise<T[]>((resolve, reject) => {
        const s = db.transaction(store).objectStore(store);
        const req = index ? s.index(index).getAll(key) : s.getAll(key);
        req.onsuccess = () => resolve(req.result as T[]);
        req.onerror = () => reject(req.error);
      });
    const [run] = await all<{ provenance: { startedAt: number } }>('runs', null, id);
    const answers = (await all<{ modelId: string; createdAt: number }>('responses', 'runId', id)).sort((a, b) => a.createdAt - b.createdAt);
    db.close();
    const last = new Map<string, number>();
    for (const a of answers) last.set(a.modelId, a.createdAt);
    let from = run!.provenance.startedAt;
    return [...last].map(([modelId, end]) => {
      const part = { modelId, actualS: (end - from) / 1000 };
      from = end;
      return part;
    });
  }, runId);
}

async function runOnce(page: Page, url: string, c: Config): Promise<Measured> {
  await page.goto(`${url}#/runs`);
  const form = page.getByTestId('new-run');
  await form.getByTestId('run-plan').waitFor({ timeout: 30_000 });
  await form.locator('select[name="benchmark"]').selectOption({ label: 'NeuroEval demo (synthetic)' });
  for (const id of BOTH) {
    const box = form.locator(`input[name="model"][value="${id}"]`);
    if ((c.models ?? ['demo-trained']).includes(id)) await box.check();
    else await box.uncheck();
  }
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
  // Each model's part of the estimate, "model=seconds" (empty where not known).
  const estimated = new Map(((await form.getByTestId('estimate').getAttribute('data-parts')) ?? '').split(' ').filter(Boolean).map((p) => {
    const [id, s] = p.split('=');
    return [id!, s ? Number(s) : null] as const;
  }));
  const basis = ((await form.getByTestId('estimate-basis').textContent()) ?? '').replace(/\s+/g, ' ').replace(/^\s*—\s*/, '').trim();
  const t0 = performance.now();
  await form.getByRole('button', { name: 'Start the run' }).click();
  await page.getByTestId('run-status').filter({ hasText: /^done$/ }).waitFor({ timeout: 1_800_000 });
  const actualS = (performance.now() - t0) / 1000;
  const runId = decodeURIComponent(new URL(page.url()).hash.split('/').pop()!);
  const parts = (await actualParts(page, runId)).map((p) => ({ ...p, estimateS: estimated.get(p.modelId) ?? null }));
  return { requests, estimateS: seconds ? Number(seconds) : null, basis, actualS, parts };
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
      const parts = m.parts.map((p) => `${p.modelId} ${p.estimateS?.toFixed(1) ?? '?'} s / ${p.actualS.toFixed(1)} s`).join(', ');
      ctx.log(`  estimates: ${c.name}: ${m.requests} requests, estimate ${m.estimateS?.toFixed(1) ?? 'none'} s, actual ${m.actualS.toFixed(1)} s (per model, estimate / actual: ${parts}) — ${m.basis}`);
      // Each model's part with an estimate, in runs of several models: where an estimate goes wrong.
      if (m.parts.length > 1) {
        for (const p of m.parts) {
          if (p.estimateS === null) continue;
          out.push({ name: `${c.name}: ${p.modelId}'s part, estimate ÷ actual`, value: p.estimateS / p.actualS, unit: '', how: `estimated ${p.estimateS.toFixed(1)} s, took ${p.actualS.toFixed(1)} s (its load and answers)`, digits: 2, detail: p });
        }
      }
      if (i === 0 && m.estimateS !== null) throw new Error(`the first run showed an estimate (${m.basis}) with nothing measured`);
      if (c.measures && m.estimateS === null) {
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
    'The demo-trained model on WASM over the built-in demo benchmark, then the self-test and demo-trained models in one run, one run after another in one browser profile: the estimate the run form shows before each run (from the answers of the runs before it on this machine) divided by the time the run took, and in runs of two models each model\'s part (its load and answers). 1.00 is exact; the target is 0.75–1.25.',
  // Runs of the self-test model take minutes each on a busy two-core machine.
  budgetMinutes: 60,
  run: measure,
};
