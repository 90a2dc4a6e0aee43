/**
 * The shared prompt computed once and several cases per decode step, in the
 * app: a few-shot NeuroVLM-Bench run of the demo-trained model on WASM keeps
 * the system prompt and the exemplars (with their images) for every case and
 * decodes four cases at a time; its answers are exactly those of the same run
 * asked one request at a time through transformers.js' own `generate` (the
 * worker's test-only switch), each answer says how much of its prompt was
 * reused; and the run, killed in the middle of a batch, resumes with every
 * item stored once and the same answers.
 */
import type { Page } from '@playwright/test';
import { expect, openApp, test } from '../support/fixtures.ts';
import { demoTrainedRunForm, fewShotZip, importBundle } from '../support/demo-trained-run.ts';

const CASES = 10;
const SEED = 13;

interface StoredAnswer {
  itemKey: string;
  rawText: string;
  usage: { batch?: number; prompt?: { reusedTokens: number; imageTokens: number } };
}

async function answersOf(page: Page, runId: string): Promise<StoredAnswer[]> {
  return page.evaluate(async (id) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('neuroeval');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const rows = await new Promise<StoredAnswer[]>((resolve, reject) => {
      const req = db.transaction('responses').objectStore('responses').index('runId').getAll(id);
      req.onsuccess = () => resolve(req.result as StoredAnswer[]);
      req.onerror = () => reject(req.error);
    });
    db.close();
    return rows;
  }, runId);
}

/** Sets the transformers worker's decoding switch (cached decoder or transformers.js' generate, a fixed batch size). */
async function decoding(page: Page, d: { cachedDecoding?: boolean; batch?: number }): Promise<void> {
  const worker = page.workers().find((w) => /transformers/.test(w.url()));
  expect(worker, 'the transformers worker is running').toBeDefined();
  await worker!.evaluate((x) => {
    (globalThis as unknown as { neuroevalDiagnostics: { decoding: object } }).neuroevalDiagnostics.decoding = x;
  }, d);
}

/** Starts a few-shot run of the demo-trained model on the few-shot set; returns its id (the run page is open). */
async function startFewShotRun(page: Page, url: string, force: boolean): Promise<string> {
  const form = await demoTrainedRunForm(page, url, 'wasm', 'with few-shot exemplars');
  await form.locator('input[name="few-shot"]').check();
  if (force) await form.locator('input[name="force"]').check();
  await form.getByRole('button', { name: 'Start the run' }).click();
  await expect(page.getByTestId('run-detail')).toBeVisible();
  return decodeURIComponent(new URL(page.url()).hash.split('/').pop()!);
}

const texts = (rows: readonly StoredAnswer[]) => Object.fromEntries(rows.map((r) => [r.itemKey.replace(/\|.*$/, ''), r.rawText]));

test('a few-shot run keeps the shared prompt and batches cases, with the answers of one request at a time; killed mid-batch it resumes with each item once', async ({ page, server, context }) => {
  test.setTimeout(600_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await importBundle(page, fewShotZip(CASES, 2, SEED), CASES);

  // 1. Batches of four on the kept few-shot prompt (the worker starts with the first run; the switch applies from its next load).
  const warm = await startFewShotRun(page, server.url, false);
  await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 240_000 });
  await decoding(page, { batch: 4 });
  const batchedId = await startFewShotRun(page, server.url, true);
  await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 240_000 });
  const batched = await answersOf(page, batchedId);
  expect(batched).toHaveLength(CASES);
  expect(texts(await answersOf(page, warm))).toEqual(texts(batched));
  expect(batched.filter((a) => a.usage.batch === 4).length).toBeGreaterThanOrEqual(8);
  // Every answer took the system prompt and both exemplars (64 image tokens each) from the kept prefix.
  const reused = batched.map((a) => a.usage.prompt?.reusedTokens ?? 0);
  expect(Math.min(...reused)).toBeGreaterThan(2 * 64);
  // The run's answers say so beside their speed.
  await expect(page.getByTestId('answer-speed').first()).toContainText('from the shared prompt');

  // 2. The same run through transformers.js' generate, one request at a time, each prompt from nothing.
  await decoding(page, { cachedDecoding: false });
  const plainId = await startFewShotRun(page, server.url, true);
  await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 300_000 });
  const plain = await answersOf(page, plainId);
  expect(plain.every((a) => !a.usage.prompt && !a.usage.batch)).toBe(true);
  expect(texts(plain)).toEqual(texts(batched));
  expect(new Set(Object.values(texts(plain))).size).toBeGreaterThan(1);

  // 3. Batched again, the tab closed in the middle of the run, resumed in a new tab.
  await decoding(page, { batch: 4 });
  const killedId = await startFewShotRun(page, server.url, true);
  await expect(async () => {
    const n = (await answersOf(page, killedId)).length;
    expect(n).toBeGreaterThanOrEqual(1);
    expect(n).toBeLessThan(CASES);
  }).toPass({ timeout: 120_000, intervals: [50] });
  await page.close();
  const reopened = await context.newPage();
  await openApp(reopened, server.url, `#/runs/${encodeURIComponent(killedId)}`);
  const partial = await answersOf(reopened, killedId);
  expect(partial.length).toBeLessThan(CASES);
  await reopened.getByTestId('run-resume').click();
  await expect(reopened.getByTestId('run-status')).toHaveText('done', { timeout: 240_000 });
  const resumed = await answersOf(reopened, killedId);
  expect(resumed).toHaveLength(CASES);
  expect(new Set(resumed.map((a) => a.itemKey)).size).toBe(CASES);
  expect(texts(resumed)).toEqual(texts(batched));
});
