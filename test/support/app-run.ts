/**
 * The steps browser tests take through the real app to get a run scored:
 * confirm an import's preview, open the Runs page's form on a benchmark, and
 * start the run, wait for it, and score it. Each test checks what it is about
 * around them; these only drive the pages as a user would.
 */
import type { Locator, Page } from '@playwright/test';

/** Clicks "Import N cases" once the preview offers it, and waits for the import to finish. */
export async function confirmImport(page: Page, count: number): Promise<void> {
  const button = page.getByTestId('import-preview').getByRole('button', { name: new RegExp(`^Import ${count} cases$`) });
  await button.waitFor({ timeout: 60_000 });
  await button.click();
  await page.getByTestId('import-done').waitFor({ timeout: 60_000 });
}

export interface RunFormChoice {
  readonly device: 'wasm' | 'webgpu';
  /** The models to run (the others unchecked); absent: as the form has them. */
  readonly models?: readonly string[];
}

/** Opens the Runs page's form with the benchmark whose name holds `benchmark`, and the models and device chosen; the caller adds the rest. */
export async function openRunForm(page: Page, url: string, benchmark: string, choice: RunFormChoice): Promise<Locator> {
  await page.goto(`${url}#/runs`);
  const form = page.getByTestId('new-run');
  await form.getByTestId('run-plan').waitFor({ timeout: 30_000 });
  const value = await form.locator('select[name="benchmark"] option', { hasText: benchmark }).getAttribute('value');
  await form.locator('select[name="benchmark"]').selectOption(value!);
  if (choice.models) {
    for (const box of await form.locator('input[name="model"]').all()) {
      if (choice.models.includes((await box.getAttribute('value'))!)) await box.check();
      else await box.uncheck();
    }
  }
  await form.locator('select[name="device"]').selectOption(choice.device);
  return form;
}

/** Starts the run the form holds, waits until it is done, opens its scores and scores it; the run's id. */
export async function runAndScore(page: Page, form: Locator, timeoutMs = 300_000): Promise<string> {
  await form.getByRole('button', { name: 'Start the run' }).click();
  await page.getByTestId('run-status').filter({ hasText: /^done$/ }).waitFor({ timeout: timeoutMs });
  const runId = decodeURIComponent(new URL(page.url()).hash.split('/').pop()!);
  await page.getByTestId('run-scores-link').click();
  await page.getByTestId('score-run').click();
  await page.locator('[data-testid="score-summary"][data-version="1"]').waitFor({ timeout: 120_000 });
  return runId;
}
