/**
 * A reader study end to end: the demo-trained model answers a held-out set,
 * two readers answer the same cases blind on the reader page (one mostly
 * right, one mostly wrong, using the drawn cases' known references), their
 * answers are scored by the models' scorer, and the benchmark's results page
 * sets each reader and their consensus beside the model with paired tests
 * whose counts and p-values are worked out here from the answers given and
 * the model's stored scores.
 */
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, openApp, test } from '../support/fixtures.ts';
import { heldOutZip, importBundle, runDemoTrained } from '../support/demo-trained-run.ts';
import { mcnemar } from '../../src/core/scoring/stats/mcnemar.ts';
import { NEUROVLM_CLASSES } from '../../src/core/protocols/neurovlm/protocol.ts';
import { readerCaseLabels } from '../../src/core/readers/study.ts';
import { modelDisplayName } from '../../src/core/results/model-names.ts';
import { readStore } from '../support/app-db.ts';

const CASES = 8;
const METRIC = 'neurovlm.diagnosis_name';

interface Stored {
  benchmarkId: string;
  gold: Record<string, string>;
  model: Record<string, number | null>;
}

/** The references of the drawn cases and the model's stored score per case. */
async function stored(page: Page, runId: string): Promise<Stored> {
  return page.evaluate(async ({ id, metric }) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('neuroeval');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const get = <T,>(store: string, index: string | null, key: IDBValidKey) =>
      new Promise<T[]>((resolve, reject) => {
        const s = db.transaction(store).objectStore(store);
        const req = index ? s.index(index).getAll(key) : s.getAll(key);
        req.onsuccess = () => resolve(req.result as T[]);
        req.onerror = () => reject(req.error);
      });
    const [run] = await get<{ benchmarkId: string }>('runs', null, id);
    const cases = await get<{ id: string; questions: { reference?: { labels?: Record<string, string> } }[] }>('cases', 'benchmarkId', run!.benchmarkId);
    const scores = await get<{ caseId: string; metrics: Record<string, { value: number | null }> }>('scores', 'runId', id);
    db.close();
    return {
      benchmarkId: run!.benchmarkId,
      gold: Object.fromEntries(cases.map((c) => [c.id, c.questions[0]!.reference!.labels!.diagnosis_name!])),
      model: Object.fromEntries(scores.map((s) => [s.caseId, s.metrics[metric]?.value ?? null])),
    };
  }, { id: runId, metric: METRIC });
}

/** A reader answers every case on the reader page; `right(i)` says whether the i-th case shown is answered with its reference. */
async function read(page: Page, url: string, runId: string, benchmarkId: string, pseudonym: string, role: string, gold: Record<string, string>, right: (i: number) => boolean): Promise<Record<string, string>> {
  await page.goto(`${url}#/readers`);
  const form = page.getByTestId('reader-start');
  await form.locator('select[name="benchmark"]').selectOption({ label: await form.locator('select[name="benchmark"] option', { hasText: 'seed 7' }).innerText() });
  await form.locator('select[name="source"]').selectOption(runId);
  await form.locator('input[name="pseudonym"]').fill(pseudonym);
  await form.locator('input[name="role"]').fill(role);
  await form.getByRole('button', { name: 'Start reading' }).click();
  const answers: Record<string, string> = {};
  // The key from the neutral labels the reader sees to the cases (the study's case set is the run's).
  const caseOf = new Map([...readerCaseLabels(benchmarkId, Object.keys(gold))].map(([id, label]) => [label, id]));
  for (let i = 0; i < CASES; i++) {
    const heading = page.getByTestId('reader-case');
    await expect(page.getByTestId('reader-progress')).toHaveText(`${i} of ${CASES} answered`);
    // The count can show the stored answer before the page moves on: the position says which question is shown.
    await expect(page.getByTestId('reader-position')).toHaveText(`Question ${i + 1} of ${CASES}`);
    const caseId = caseOf.get((await heading.textContent())!)!;
    expect(caseId).toBeDefined();
    // Blind: neither the model's answer nor the reference is on the page.
    await expect(page.getByText('Answer key')).toHaveCount(0);
    await expect(page.getByText(/Model [A-Z]\b|machine/i)).toHaveCount(0);
    const truth = gold[caseId]!;
    const answer = right(i) ? truth : NEUROVLM_CLASSES[(NEUROVLM_CLASSES.indexOf(truth as (typeof NEUROVLM_CLASSES)[number]) + 1) % NEUROVLM_CLASSES.length]!;
    answers[caseId] = answer;
    await page.getByTestId('reader-form').getByRole('radio', { name: answer, exact: true }).check();
    await page.getByTestId('reader-form').getByRole('button', { name: 'Save and next' }).click();
  }
  await expect(page.getByTestId('reader-progress')).toHaveText(`${CASES} of ${CASES} answered`);
  await page.getByTestId('reader-score').click();
  await expect(page.getByTestId('reader-scored')).toBeVisible({ timeout: 60_000 });
  return answers;
}

test('a reader study with two readers produces reader-vs-model paired tests on the cases both answered', async ({ page, server }) => {
  test.setTimeout(600_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await importBundle(page, heldOutZip(CASES), CASES);
  const run = await runDemoTrained(page, server.url, { device: 'wasm' });
  const { benchmarkId, gold, model } = await stored(page, run.runId);
  expect(Object.keys(gold)).toHaveLength(CASES);

  // One reader right on all but the first two cases they see; the other wrong on all but the first two.
  const a = await read(page, server.url, run.runId, benchmarkId, 'AB', 'neurologist', gold, (i) => i >= 2);
  const b = await read(page, server.url, run.runId, benchmarkId, 'CD', 'medical student', gold, (i) => i < 2);

  // Each reader is scored only on what they were asked: the class and the subtype, never JSON validity or the imaging fields.
  type Arm = { modelId: string; metrics: { metric: string }[]; neurovlm?: unknown };
  const arms = (await readStore<{ summary: { arms: Arm[] } }>(page, 'scoreSets')).flatMap((s) => s.summary.arms).filter((arm) => arm.modelId.startsWith('reader:'));
  expect(arms).toHaveLength(2);
  for (const arm of arms) {
    expect(arm.metrics.map((m) => m.metric).sort()).toEqual(['neurovlm.diagnosis_detailed', 'neurovlm.diagnosis_name']);
    expect(arm.neurovlm).toBeUndefined();
  }

  await page.goto(`${server.url}#/results/b/${encodeURIComponent(benchmarkId)}`);
  const table = page.getByTestId('reader-tests');
  await expect(table).toBeVisible({ timeout: 60_000 });

  const modelLabel = (await table.locator('tbody tr').first().getAttribute('data-model'))!;
  expect(modelLabel).toBe(modelDisplayName('demo-trained'));
  // Readers are named on the leaderboard, beside the model.
  await expect(page.getByTestId('leaderboard')).toContainText('Reader: AB (neurologist)');
  const expectRow = async (readerLabel: string, given: Record<string, string | null>) => {
    const shared = Object.keys(given).filter((c) => given[c] !== null && model[c] !== null && model[c] !== undefined);
    const r = shared.map((c) => given[c] === gold[c]);
    const m = shared.map((c) => model[c] === 1);
    const test = mcnemar(r, m);
    const row = table.locator(`tr[data-reader="${readerLabel}"][data-model="${modelLabel}"]`);
    await expect(row.locator('[data-col="n"]')).toHaveText(String(shared.length));
    await expect(row.locator('[data-col="reader"]')).toHaveText(`${((100 * r.filter(Boolean).length) / shared.length).toFixed(1)}%`);
    await expect(row.locator('[data-col="model"]')).toHaveText(`${((100 * m.filter(Boolean).length) / shared.length).toFixed(1)}%`);
    await expect(row.locator('[data-col="discordant"]')).toHaveText(`${test.b} / ${test.c}`);
    await expect(row.locator('[data-col="p"]')).toHaveText(test.pValue.toPrecision(2));
  };
  await expectRow('Reader: AB (neurologist)', a);
  await expectRow('Reader: CD (medical student)', b);
  // Consensus: a case has one where both readers gave the same answer; where they differ it is a tie.
  const consensus = Object.fromEntries(Object.keys(gold).map((c) => [c, a[c] === b[c] ? a[c]! : null]));
  await expectRow('Readers’ consensus', consensus);
  const ties = Object.values(consensus).filter((v) => v === null).length;
  await expect(page.getByTestId('consensus-rule')).toContainText(`${CASES - ties} questions have a consensus, ${ties} are ties.`);
  await expect(page.getByTestId('reader-agreement')).toContainText(`${(100 * (CASES - ties) / CASES).toFixed(0)}%`);

  // The HTML report carries the same comparisons.
  const [report] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-html').click()]);
  const html = readFileSync(await report.path(), 'utf8');
  expect(html).toContain('<h2>Readers vs models</h2>');
  const esc = (t: string) => t.replace(/[()]/g, '\\$&');
  for (const label of ['Reader: AB (neurologist)', 'Reader: CD (medical student)']) expect(html).toMatch(new RegExp(`<tr><td>${esc(label)}</td><td>${esc(modelDisplayName('demo-trained'))}</td><td class="num">\\d+</td>`));
  expect(html).toContain(`Consensus ties: ${ties}.`);
});
