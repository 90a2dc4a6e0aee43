/**
 * One engine seam for every runtime, in the real app: a run evaluates a
 * transformers.js VLM (the self-test model, in the transformers.js worker), a
 * WebLLM VLM and an on-prem OpenAI-compatible endpoint side by side under the
 * NeuroVLM-Bench few-shot protocol, and is scored with a WebLLM text model as
 * judge. WebLLM cannot run a model here (no weights, no GPU), so its worker is
 * the app's own worker API and engine adapter over a stand-in MLCEngine that
 * checks every request with WebLLM's own validation
 * (test/browser/support/webllm-stand-in.worker.ts).
 *
 * Asserted at each engine, in its runtime's message format: the few-shot
 * exemplars' images reach the model in place, each between its own text
 * parts. Also: the endpoint's API key reaches the endpoint and nothing else
 * (no run record, answer, export, CSV or report holds it), only one worker
 * holds a transformers.js model, and the build ships one transformers.js
 * runtime chunk, imported by that worker alone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page, Worker } from '@playwright/test';
import type { StaticServer } from '../../scripts/serve.mjs';
import { putRows, readStore } from '../support/app-db.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai-server.ts';
import { DIST, expect, openApp, test, waitForOfflineReady } from '../support/fixtures.ts';
import { removeTempDirs } from '../support/temp-dir.ts';
import { appWithStandIn } from './support/stand-in-app.ts';

const SECRET = 'sk-test-SECRET-4d8e1f';

function workerNamed(page: Page, pattern: RegExp): Worker | undefined {
  return page.workers().find((w) => pattern.test(w.url()));
}

/** A message's content as a sequence: `T:<text>` for text, `I` for an image. */
function sequence(messages: readonly { role: string; content: string | { type: string; text?: string }[] }[]): string[] {
  return messages.flatMap((m) => (typeof m.content === 'string' ? [`T:${m.content}`] : m.content.map((p) => (p.type === 'text' ? `T:${p.text ?? ''}` : 'I'))));
}

/** Index of the first entry matching `re`, searching from `from`. */
const indexOf = (seq: readonly string[], re: RegExp, from = 0) => seq.findIndex((s, i) => i >= from && re.test(s));

/** Exemplar n's label text, then its image, then exemplar n + 1's text: in this order. */
function expectInterleaved(seq: readonly string[]): void {
  const ex1 = indexOf(seq, /Example 1\b/);
  expect(ex1, seq.join(' | ')).toBeGreaterThanOrEqual(0);
  const img1 = seq.indexOf('I', ex1);
  const ex2 = indexOf(seq, /Example 2\b/);
  const img2 = seq.indexOf('I', ex2);
  expect(img1).toBeGreaterThan(ex1);
  expect(ex2).toBeGreaterThan(img1);
  expect(img2).toBeGreaterThan(ex2);
}

test.describe('the engine seam', () => {
  let app: StaticServer;
  let endpoint: FakeOpenAi;

  test.beforeAll(async () => {
    app = await appWithStandIn();
    endpoint = await startFakeOpenAi(['medgemma-4b-it']);
  });
  test.afterAll(async () => {
    await app.close();
    await endpoint.close();
    removeTempDirs();
  });

  test('a run answers with transformers.js, WebLLM and an endpoint side by side, few-shot images in place, scored by a WebLLM judge; the API key stays in the settings', async ({ page }) => {
    test.setTimeout(240_000);

    // The build: one transformers.js runtime chunk, imported only by the transformers.js worker.
    const assets = readdirSync(join(DIST, 'assets')).filter((f) => f.endsWith('.js'));
    expect(assets.filter((f) => /^transformers\.web-/.test(f))).toHaveLength(1);
    const importers = assets.filter((f) => readFileSync(join(DIST, 'assets', f), 'utf8').includes('transformers.web-'));
    // The content hash is 8 characters of [A-Za-z0-9_-]: it may itself hold a dash.
    expect(importers.map((f) => f.replace(/-[\w-]{8}\.js$/, ''))).toEqual(['transformers.worker']);

    // 1. An endpoint with an API key, and two WebLLM models loaded once on the Models page.
    await openApp(page, app.url, '#/models');
    await waitForOfflineReady(page);
    const box = page.getByTestId('endpoints');
    await box.locator('input[name="endpoint-url"]').fill(endpoint.baseUrl);
    await box.locator('input[name="endpoint-model"]').fill('medgemma-4b-it');
    await box.locator('input[name="endpoint-key"]').fill(SECRET);
    page.once('dialog', (d) => void d.accept());
    await box.getByRole('button', { name: 'Add server…' }).click();
    await box.getByRole('button', { name: 'Reload to allow the connection' }).click();
    await page.waitForSelector('html[data-ready="true"]');

    const panel = page.getByTestId('webllm');
    for (const id of ['phi-3.5-vision-q4f32', 'smollm2-360m-q4f32']) {
      await panel.locator('select[name="webllm-model"]').selectOption(id);
      await panel.getByRole('button', { name: 'Load' }).click();
      await expect(panel.getByTestId('webllm-info')).toContainText('Loaded', { timeout: 30_000 });
    }
    // The host holds one WebLLM model: the judge replaced the VLM.
    await expect(page.getByTestId('resident-models')).toContainText('SmolLM2');
    await expect(page.getByTestId('resident-models')).not.toContainText('Phi-3.5');

    // 2. The demo benchmark with two few-shot exemplars (one per class), as a NeuroVLM-Bench bundle would list them.
    type Bench = { id: string; name: string; manifest: { protocolDefaults?: Record<string, unknown> } };
    type Case = { benchmarkId: string; id: string; taskFamily: string; diseaseGroup?: string; images: unknown[] };
    const bench = (await readStore<Bench>(page, 'benchmarks')).find((b) => b.name.includes('demo'))!;
    const cases = (await readStore<Case>(page, 'cases')).filter((c) => c.benchmarkId === bench.id);
    const classification = cases.filter((c) => c.taskFamily === 'classification' && c.images.length > 0);
    const exemplars = [...new Map(classification.map((c) => [c.diseaseGroup, c.id])).values()].slice(0, 2);
    expect(exemplars).toHaveLength(2);
    await putRows(page, { benchmarks: [{ ...bench, manifest: { ...bench.manifest, protocolDefaults: { ...bench.manifest.protocolDefaults, fewShotCaseIds: exemplars } } }] });

    // 3. The run: three runtimes, each case's own protocol (NeuroVLM-Bench with few-shot for classification, the
    //    ranked differential otherwise), classification and differential cases of one disease group.
    await page.goto(`${app.url}#/runs`);
    const form = page.getByTestId('new-run');
    await form.locator('select[name="device"]').selectOption('wasm');
    await form.locator('[data-facet="taskFamily"] label', { hasText: 'classification' }).locator('input').check();
    await form.locator('[data-facet="taskFamily"] label', { hasText: 'differential-diagnosis' }).locator('input').check();
    const group = cases.find((c) => c.id === exemplars[0])!.diseaseGroup!;
    await form.locator('[data-facet="diseaseGroup"] label', { hasText: new RegExp(`^${group}$`) }).locator('input').check();
    await form.locator('input[name="few-shot"]').check();
    await form.locator('input[name="model"][value="webllm:phi-3.5-vision-q4f32"]').check();
    await form.locator('input[name="model"][value^="endpoint:"]').check();
    await form.locator('input[name="max-tokens"]').fill('24');
    await form.getByRole('button', { name: 'Start the run' }).click();
    await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 150_000 });
    const runId = decodeURIComponent(new URL(page.url()).hash.split('/').pop()!);

    type Answer = { runId: string; modelId: string; caseId: string; rawText: string; finishReason: string };
    const answers = (await readStore<Answer>(page, 'responses')).filter((r) => r.runId === runId);
    const byModel = (id: string) => answers.filter((a) => a.modelId === id);
    expect(byModel('self-test').length).toBeGreaterThan(0);
    expect(byModel('webllm:phi-3.5-vision-q4f32').map((a) => a.finishReason)).not.toContain('error');
    expect(byModel('webllm:phi-3.5-vision-q4f32').length).toBe(byModel('self-test').length);
    expect(answers.filter((a) => a.modelId.startsWith('endpoint:')).length).toBe(byModel('self-test').length);

    // 4. At each engine, in its runtime's format: exemplar text, its image, the next exemplar's text, its image.
    const webllm = workerNamed(page, /webllm\.worker/);
    expect(webllm).toBeDefined();
    type Seen = { model: string; messages: { role: string; content: string | { type: string; text?: string }[] }[] };
    const seen = await webllm!.evaluate(() => (globalThis as unknown as { neuroevalWebLlmStandIn: { requests: Seen[] } }).neuroevalWebLlmStandIn.requests);
    const vlmRequests = seen.filter((r) => r.model.startsWith('Phi-3.5-vision'));
    expect(vlmRequests.length).toBe(byModel('webllm:phi-3.5-vision-q4f32').length);
    const fewShot = (messages: Seen['messages']) => sequence(messages).some((s) => /Example 1\b/.test(s));
    const classificationCases = answers.filter((a) => a.modelId === 'self-test' && classification.some((c) => c.id === a.caseId)).length;
    expect(classificationCases).toBeGreaterThan(0);
    expect(vlmRequests.filter((r) => fewShot(r.messages))).toHaveLength(classificationCases);
    for (const r of vlmRequests.filter((r) => fewShot(r.messages))) expectInterleaved(sequence(r.messages));

    const openai = endpoint.received.filter((b) => Array.isArray(b.messages)).map((b) => b.messages as Seen['messages']);
    expect(openai.filter(fewShot)).toHaveLength(classificationCases);
    for (const messages of openai.filter(fewShot)) expectInterleaved(sequence(messages));
    // The key went to the endpoint, as a bearer token, and nowhere else (below).
    expect(endpoint.authorizations.length).toBeGreaterThan(0);
    expect(endpoint.authorizations.every((a) => a === `Bearer ${SECRET}`)).toBe(true);

    const tf = workerNamed(page, /transformers\.worker/);
    expect(tf).toBeDefined();
    const prompts = await tf!.evaluate(() => (globalThis as unknown as { neuroevalDiagnostics: { prompts: string[] } }).neuroevalDiagnostics.prompts);
    const fewShotPrompts = prompts.filter((p) => p.includes('Example 1'));
    expect(fewShotPrompts).toHaveLength(classificationCases);
    for (const p of fewShotPrompts) {
      const ex1 = p.indexOf('Example 1');
      const img1 = p.indexOf('<image>', ex1);
      const ex2 = p.indexOf('Example 2');
      expect(img1).toBeGreaterThan(ex1);
      expect(ex2).toBeGreaterThan(img1);
      expect(p.indexOf('<image>', ex2)).toBeGreaterThan(ex2);
    }

    // 5. Scored with a judge from another runtime (WebLLM), through the same host.
    const judgeCallsBefore = seen.filter((r) => r.model.startsWith('SmolLM2')).length;
    await page.goto(`${app.url}#/results/run/${encodeURIComponent(runId)}`);
    const scorePanel = page.getByTestId('score-panel');
    await scorePanel.getByTestId('score-judge').selectOption('webllm:smollm2-360m-q4f32');
    await scorePanel.getByTestId('score-run').click();
    await expect(page.getByTestId('score-summary')).toHaveAttribute('data-version', '1', { timeout: 90_000 });
    const scoreSets = await readStore<{ runId: string; config: { judge?: string | null } }>(page, 'scoreSets');
    expect(scoreSets.find((s) => s.runId === runId)?.config.judge).toBe('webllm:smollm2-360m-q4f32');
    const seenAfter = await webllm!.evaluate(() => (globalThis as unknown as { neuroevalWebLlmStandIn: { requests: Seen[] } }).neuroevalWebLlmStandIn.requests);
    // The WebLLM VLM's differential names another diagnosis than the reference: the rule says no, so the judge is asked (text only).
    const judgeCalls = seenAfter.filter((r) => r.model.startsWith('SmolLM2')).slice(judgeCallsBefore);
    expect(judgeCalls.length).toBeGreaterThan(0);
    expect(judgeCalls.every((r) => r.messages.every((m) => typeof m.content === 'string'))).toBe(true);
    await expect(page.getByTestId('judge-caveat').first()).toBeVisible();

    // 6. Only one worker holds a transformers.js model, and no other worker ever loaded the runtime.
    const holders: string[] = [];
    for (const w of page.workers()) {
      const asked = w.evaluate(() => {
        const d = (globalThis as { neuroevalDiagnostics?: { models: () => (string | null)[] } }).neuroevalDiagnostics;
        return d ? d.models().filter(Boolean) : null;
      });
      // onnxruntime-web's own thread workers (the transformers worker's WASM threads) wait on shared memory between jobs
      // and never answer; none of the app's workers may be that busy.
      const held = await Promise.race([asked, new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), 5_000))]);
      if (held === 'no answer') {
        expect(w.url(), 'an app worker that does not answer').not.toMatch(/\.worker[-.]/);
        continue;
      }
      if (held !== null) holders.push(w.url());
    }
    expect(holders).toHaveLength(1);
    expect(holders[0]).toMatch(/transformers\.worker/);

    // 7. The key is in the endpoint settings only: not in the run, its answers, the exports, the CSV or the report.
    const runs = await readStore<{ id: string }>(page, 'runs');
    expect(JSON.stringify(runs)).not.toContain(SECRET);
    expect(JSON.stringify(await readStore(page, 'responses'))).not.toContain(SECRET);
    const settings = await readStore<{ key: string; value: unknown }>(page, 'settings');
    expect(JSON.stringify(settings.find((s) => s.key === 'engines.endpoints'))).toContain(SECRET);

    const text = async (click: () => Promise<void>) => {
      const [download] = await Promise.all([page.waitForEvent('download'), click()]);
      return readFileSync((await download.path())!, 'utf8');
    };
    const runJson = await text(() => page.getByTestId('export-run').click());
    expect(runJson).toContain(runId);
    expect(runJson).not.toContain(SECRET);
    await page.goto(`${app.url}#/results/b/${encodeURIComponent(bench.id)}`);
    const csv = await text(() => page.getByTestId('export-csv').click());
    expect(csv).toContain('phi-3.5-vision');
    expect(csv).not.toContain(SECRET);
    const report = await text(() => page.getByTestId('export-html').click());
    expect(report).toContain('<html');
    expect(report).not.toContain(SECRET);
  });
});
