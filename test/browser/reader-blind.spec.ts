/**
 * A reader study a clinician would accept: every case is shown under a
 * neutral label (never its stored id, which often names the answer), with a
 * question for a person (never a model's JSON instruction), and its own
 * images: at each step the pixels on screen are the stored images of the case
 * the label stands for. A reader's session is not a model run: it is not
 * listed or counted as one.
 */
import type { Page } from '@playwright/test';
import { readStore } from '../support/app-db.ts';
import { expect, openApp, test } from '../support/fixtures.ts';
import { shownImageHashes, storedCaseImageHashes } from '../support/shown-images.ts';
import { readerCaseLabels } from '../../src/core/readers/study.ts';

interface StoredCase {
  id: string;
  benchmarkId: string;
  images: { sha256: string }[];
  questions: { id: string; text: string; options?: { key: string }[]; followUps?: { images?: number[] }[] }[];
}

/** Fills whatever the form asks (a class, an option, a diagnosis, a lesion, free text) and submits; a dialogue turn by turn, checking its images grow. */
async function answerOnScreen(page: Page, checkImages: (turn: number) => Promise<void>): Promise<void> {
  const form = page.getByTestId('reader-form');
  for (let turn = 0; ; turn++) {
    await checkImages(turn);
    if (await form.locator('input[name="class"]').count()) await form.getByRole('radio', { name: 'stroke', exact: true }).check();
    if (await form.locator('input[name="choice"]').count()) await form.locator('input[name="choice"]').first().check();
    if (await form.locator('input[name="diagnosis"]').count()) await form.locator('input[name="diagnosis"]').fill('acute ischemic stroke');
    if (await form.locator('input[name="lesion-type"]').count()) await form.locator('input[name="lesion-type"]').fill('infarct');
    if (await form.locator('textarea[name="text"]').count()) await form.locator('textarea[name="text"]').fill('An infarct in the left MCA territory.');
    const next = form.getByRole('button', { name: 'Answer and see what follows' });
    if (await next.count()) {
      await next.click();
      continue;
    }
    await form.getByRole('button', { name: 'Save and next' }).click();
    return;
  }
}

test("a reader sees each case under a neutral label with its own images and a question for a person, and the session is not a model run", async ({ page, server }) => {
  test.setTimeout(240_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });
  await page.goto(`${server.url}#/readers`);
  const start = page.getByTestId('reader-start');
  await start.locator('input[name="pseudonym"]').fill('R1');
  await start.locator('input[name="role"]').fill('neuroradiologist');
  await start.getByRole('button', { name: 'Start reading' }).click();
  await expect(page.getByTestId('reader-name')).toHaveText('Reader: R1 (neuroradiologist)');

  const cases = await readStore<StoredCase>(page, 'cases');
  const benchmarkId = cases[0]!.benchmarkId;
  const byId = new Map(cases.filter((c) => c.benchmarkId === benchmarkId).map((c) => [c.id, c]));
  // The key: which case each neutral label stands for.
  const caseOf = new Map([...readerCaseLabels(benchmarkId, [...byId.keys()])].map(([id, label]) => [label, id]));
  const heading = page.getByTestId('reader-case');
  const caseSection = page.locator('section[aria-label="Case"]');
  const seen: string[] = [];

  async function check(position: number, turn = 0): Promise<void> {
    await expect(page.getByTestId('reader-position')).toHaveText(`Question ${position} of ${byId.size}`);
    const label = (await heading.textContent())!.replace(/ · question .*$/, '');
    expect(label).toMatch(/^Case \d+$/);
    const caseId = caseOf.get(label)!;
    const kase = byId.get(caseId)!;
    // Blind: no stored id, no model instruction, nothing about JSON anywhere on the page.
    const text = await page.locator('main').innerText();
    for (const id of byId.keys()) expect(text, `the page names case ${id}`).not.toContain(id);
    expect(text).not.toMatch(/JSON|Answer with/);
    // The images are the case's own: in a dialogue, those revealed up to this turn.
    const later = new Set(kase.questions[0]!.followUps?.flatMap((f) => f.images ?? []) ?? []);
    const revealed = new Set(kase.questions[0]!.followUps?.slice(0, turn).flatMap((f) => f.images ?? []) ?? []);
    const all = await storedCaseImageHashes(page, benchmarkId, caseId);
    const expected = all.filter((_, i) => !later.has(i) || revealed.has(i));
    await expect(caseSection.locator('img')).toHaveCount(expected.length);
    await expect.poll(() => shownImageHashes(caseSection), { message: `the images shown as ${label} (${caseId}), turn ${turn + 1}` }).toEqual(expected);
    if (turn === 0) seen.push(caseId);
  }

  await check(1);
  await page.getByRole('button', { name: 'Next →' }).click();
  await answerOnScreen(page, (turn) => check(2, turn));
  await expect(page.getByTestId('reader-progress')).toHaveText(`1 of ${byId.size} answered`);
  await check(3);
  await page.getByRole('button', { name: 'Next →' }).click();
  await answerOnScreen(page, (turn) => check(4, turn));
  await check(5);
  expect(new Set(seen).size, 'five steps, five cases').toBe(5);

  // The stored answers are the reader's, for the cases the labels stood for.
  const responses = (await readStore<{ runId: string; caseId: string; modelId: string }>(page, 'responses')).filter((r) => r.modelId === 'reader:R1');
  expect(responses.map((r) => r.caseId).sort()).toEqual([seen[1]!, seen[3]!].sort());
  const readerRunId = responses[0]!.runId;

  // Not a model run: not in the runs list, not on Home, listed with the readers on Results.
  await page.goto(`${server.url}#/runs`);
  await expect(page.getByTestId('reader-sessions-note')).toContainText('1 reader session');
  await expect(page.locator(`a[href$="${readerRunId}"]`)).toHaveCount(0);
  await page.goto(`${server.url}#/`);
  await expect(page.getByTestId('first-run-path')).toContainText('Choose a benchmark and models, then start a run.');
  await expect(page.getByTestId('recent-runs')).toContainText('No runs yet.');
  await page.goto(`${server.url}#/results`);
  await expect(page.getByTestId('results-readers')).toContainText('Reader: R1 (neuroradiologist)');
  await expect(page.getByTestId('results-runs')).not.toContainText('R1');
});
