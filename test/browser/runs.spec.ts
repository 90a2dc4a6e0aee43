/**
 * Evaluation runs in the real app: the demo benchmark with the self-test
 * model under every protocol (each case's own), with the page closed
 * mid-run and the run resumed in a new page, ending with exactly one stored
 * answer per planned (item, model, variant, sample).
 */
import type { Page } from '@playwright/test';
import { expect, openApp, test } from '../support/fixtures.ts';

/** Reads the run's stored answers and the benchmark's questions straight from IndexedDB. */
async function storedAnswers(page: Page, runId: string) {
  return page.evaluate(async (id) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('neuroeval');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const all = <T,>(store: string, index?: string, key?: IDBValidKey) =>
      new Promise<T[]>((resolve, reject) => {
        const s = db.transaction(store).objectStore(store);
        const req = index ? s.index(index).getAll(key) : s.getAll();
        req.onsuccess = () => resolve(req.result as T[]);
        req.onerror = () => reject(req.error);
      });
    const run = (await all<{ id: string; benchmarkId: string; status: string; plan: { items: number } }>('runs')).find((r) => r.id === id)!;
    const responses = await all<{ itemKey: string; caseId: string; questionId: string; turns?: unknown[]; parsed: unknown; parseError: string | null }>('responses', 'runId', id);
    const cases = await all<{ id: string; questions: { id: string }[]; taskFamily: string }>('cases', 'benchmarkId', run.benchmarkId);
    db.close();
    return {
      status: run.status,
      planned: run.plan.items,
      keys: responses.map((r) => r.itemKey),
      answered: responses.map((r) => `${r.caseId}#${r.questionId}`),
      multiTurn: responses.filter((r) => (r.turns?.length ?? 0) > 1).length,
      parsed: responses.filter((r) => r.parseError === null).length,
      questions: cases.flatMap((c) => c.questions.map((q) => `${c.id}#${q.id}`)),
      families: [...new Set(cases.map((c) => c.taskFamily))].sort(),
    };
  }, runId);
}

test('a run of the demo benchmark survives a closed tab and finishes with exactly one answer per planned item', async ({ page, server, context }) => {
  test.setTimeout(180_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await page.goto(`${server.url}#/runs`);
  const form = page.getByTestId('new-run');
  await expect(form.getByTestId('run-plan')).toContainText('requests');
  await form.locator('select[name="device"]').selectOption('wasm');
  await form.locator('input[name="variant"][value="text-only"]').check();
  await form.locator('input[name="max-tokens"]').fill('12');
  await expect(form.getByTestId('run-plan')).toContainText('× 2 variants');
  const planned = Number((await form.getByTestId('run-plan').locator('strong').first().textContent()) ?? '0');
  await form.getByRole('button', { name: 'Start the run' }).click();

  const detail = page.getByTestId('run-detail');
  await expect(detail).toBeVisible();
  const runId = decodeURIComponent(new URL(page.url()).hash.split('/').pop()!);
  // Wait for some answers, then close the tab in the middle of the run.
  await expect(async () => {
    const n = Number((await detail.getByTestId('run-count').textContent())?.split(' ')[0]);
    expect(n).toBeGreaterThanOrEqual(10);
  }).toPass({ timeout: 60_000 });
  await expect(page.getByTestId('latest-answers')).toBeVisible();
  await page.close();

  const reopened = await context.newPage();
  await openApp(reopened, server.url, `#/runs/${encodeURIComponent(runId)}`);
  const partial = await storedAnswers(reopened, runId);
  expect(partial.keys.length).toBeGreaterThan(0);
  expect(partial.keys.length).toBeLessThan(planned);
  await reopened.getByTestId('run-resume').click();
  await expect(reopened.getByTestId('run-status')).toHaveText('done', { timeout: 150_000 });

  const final = await storedAnswers(reopened, runId);
  expect(final.status).toBe('done');
  expect(final.planned).toBe(planned);
  // Exactly the plan: every question × variant once, nothing else, no duplicates.
  const expected = final.questions.flatMap((q) => ['none', 'text-only'].map((v) => `${q}|self-test|${v}|s0`)).sort();
  expect([...final.keys].sort()).toEqual(expected);
  expect(new Set(final.keys).size).toBe(final.keys.length);
  // Every answer names its case and question (schema v3), each one of the benchmark's.
  expect(new Set(final.answered)).toEqual(new Set(final.questions));
  // The demo covers every protocol family; multi-round cases stored their follow-up turns.
  expect(final.families).toEqual(['classification', 'differential-diagnosis', 'lesion-recognition', 'multi-turn', 'multiple-choice', 'open-question', 'rationale-generation']);
  expect(final.multiTurn).toBeGreaterThan(0);
  // Provenance is shown with the run.
  await expect(reopened.getByTestId('provenance')).toContainText('NeuroEval demo (synthetic)');
  await expect(reopened.getByTestId('provenance')).toContainText('transformers.js');
});

test('every protocol runs end to end on a slice of the demo benchmark', async ({ page, server }) => {
  test.setTimeout(180_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  const protocols = ['neurovlm-structured', 'nmb-differential', 'nmb-lesion', 'nmb-rationale', 'nmb-multi-round', 'structured-review', 'mcq', 'rubric', 'open-question'];
  for (const protocol of protocols) {
    await page.goto(`${server.url}#/runs`);
    const form = page.getByTestId('new-run');
    await expect(form.getByTestId('run-plan')).toContainText('requests');
    await form.locator('.chips[data-facet="split"] label', { hasText: /^rubric$/ }).locator('input').check();
    await form.locator('.chips[data-facet="split"] label', { hasText: /^multi-round$/ }).locator('input').check();
    await form.locator('select[name="device"]').selectOption('wasm');
    await form.locator('select[name="protocol"]').selectOption(protocol);
    await form.locator('input[name="max-tokens"]').fill('8');
    await form.locator('input[name="name"]').fill(`protocol ${protocol}`);
    await expect(form.getByTestId('prompt-preview')).toBeVisible();
    await expect(form.getByTestId('run-plan').locator('strong').first()).toHaveText('6');
    await form.getByRole('button', { name: 'Start the run' }).click();
    await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 60_000 });
    await expect(page.getByTestId('run-count')).toHaveText('6 of 6');
    await expect(page.getByTestId('provenance')).toContainText(protocol);
  }
});

test('after a reload, the run form says the backup folder needs permission again and asks for it', async ({ page, server }) => {
  // A real directory handle (the origin's private folder) stands in for the picked one, so it is remembered across the reload;
  // the browser's permission is "prompt" after a reload until the user allows writing again.
  await page.addInitScript(() => {
    (window as unknown as { showDirectoryPicker: () => Promise<FileSystemDirectoryHandle> }).showDirectoryPicker = () => navigator.storage.getDirectory();
    const proto = (globalThis as unknown as { FileSystemHandle: { prototype: Record<string, unknown> } }).FileSystemHandle.prototype;
    proto.queryPermission = async () => localStorage.getItem('test.permission') ?? 'prompt';
    proto.requestPermission = async () => {
      localStorage.setItem('test.permission', 'granted');
      return 'granted';
    };
  });
  await openApp(page, server.url, '#/settings');
  await page.getByTestId('backup-choose').click();
  await expect(page.getByTestId('backup-state')).toContainText('Backups go to the folder');
  await page.reload();
  await openApp(page, server.url, '#/runs');
  const storage = page.getByTestId('run-storage');
  await expect(storage).toContainText('receives nothing until the browser lets NeuroEval write there again');
  await page.getByTestId('backup-reconnect').click();
  await expect(storage).toContainText("receives this run's answers as they come");
});
