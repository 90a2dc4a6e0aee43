/**
 * Run-time estimates as a user meets them: the first run of a model has no
 * measured speed (the form says so and the live view times the run from its
 * own answers); the next run's form states an estimate with its basis, and
 * its live view starts from that record and blends in the run's own rate.
 */
import type { Locator, Page } from '@playwright/test';
import { expect, openApp, test } from '../support/fixtures.ts';

async function demoTrainedForm(page: Page, url: string): Promise<Locator> {
  await page.goto(`${url}#/runs`);
  const form = page.getByTestId('new-run');
  await expect(form.getByTestId('run-plan')).toContainText('requests');
  await form.locator('input[name="model"][value="self-test"]').uncheck();
  await form.locator('input[name="model"][value="demo-trained"]').check();
  await form.locator('select[name="device"]').selectOption('wasm');
  await form.locator('[data-facet="taskFamily"] label', { hasText: 'classification' }).locator('input').check();
  // Asked again, not reused from the first run: a reused answer takes no time.
  await form.locator('input[name="force"]').check();
  return form;
}

test('the second run’s estimate states its basis, and the live view times what is left from the run’s own rate', async ({ page, server }) => {
  test.setTimeout(300_000);
  await openApp(page, server.url, '#/benchmarks');
  await expect(page.getByTestId('benchmark-list')).toContainText('NeuroEval demo (synthetic)', { timeout: 30_000 });

  // 1. Nothing measured yet: no figure, and a plain reason.
  const first = await demoTrainedForm(page, server.url);
  await expect(first.getByTestId('estimate-basis')).toContainText(/no measured speed yet for Demo-trained model .* on WASM: the estimate will appear after the first answers/);
  await expect(first.getByTestId('estimate')).toHaveText('not known yet');
  await first.getByRole('button', { name: 'Start the run' }).click();
  // The live view finds the time left from the run's own answers.
  await expect(page.getByTestId('run-eta')).toContainText(/left \(at this run's rate over \d+ answers\)/, { timeout: 120_000 });
  await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 240_000 });

  // 2. The next run: an estimate from those answers, with its basis.
  const second = await demoTrainedForm(page, server.url);
  await expect(second.getByTestId('estimate-basis')).toContainText(/from \d+ answers of Demo-trained model .* on WASM with this protocol on this machine/);
  await expect(second.getByTestId('estimate')).toHaveText(/^about \d+ (s|min)/);
  expect(Number(await second.getByTestId('estimate').getAttribute('data-seconds'))).toBeGreaterThan(0);
  // A device with no answers yet has no figure.
  await second.locator('select[name="device"]').selectOption('webgpu');
  await expect(second.getByTestId('estimate-basis')).toContainText('no measured speed yet for Demo-trained model');
  await expect(second.getByTestId('estimate-basis')).toContainText('on WebGPU');
  await second.locator('select[name="device"]').selectOption('wasm');
  await expect(second.getByTestId('estimate-basis')).toContainText('on WASM with this protocol');
  await second.getByRole('button', { name: 'Start the run' }).click();
  // Once answers arrive, the run's own rate is blended with the record.
  await expect(page.getByTestId('run-eta')).toContainText(/left \(this run's rate over \d+ answers, blended with earlier answers on this machine\)/, { timeout: 120_000 });
  await expect(page.getByTestId('run-status')).toHaveText('done', { timeout: 240_000 });
});
