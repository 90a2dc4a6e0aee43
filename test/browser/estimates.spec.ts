/**
 * Run-time estimates as a user meets them: the first run of a model has no
 * measured speed (the form says so and the live view times the run from its
 * own answers); the next run's form states an estimate with its basis, and
 * its live view starts from that record and blends in the run's own rate. A
 * run adding a model never measured shows the measured model's part and names
 * the other's as not known.
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

  // 3. Two models, the self-test model never measured: the form and the live view add up the demo-trained model's part
  //    and say the self-test model's is not known, instead of pricing one model at the other's speed.
  const both = await demoTrainedForm(page, server.url);
  await both.locator('input[name="model"][value="self-test"]').check();
  await both.locator('[data-facet="diseaseGroup"] label', { hasText: 'stroke' }).locator('input').check();
  await expect(both.getByTestId('estimate')).toHaveText(/^about \d+ (s|min)[^,]* for Demo-trained model \(synthetic phantoms only; not a medical model\), plus Self-test \(random weights\)'s part \(not known yet\)$/);
  await expect(both.getByTestId('estimate')).toHaveAttribute('data-seconds', '');
  await both.getByRole('button', { name: 'Start the run' }).click();
  await expect(page.getByTestId('run-eta')).toContainText(/^about \d+ (s|min)[^(]* left \(from earlier answers on this machine; updated once answers arrive\), plus Self-test \(random weights\)'s part: not known yet/, { timeout: 60_000 });
  // That is what this step is about: the self-test model's answers would take minutes here.
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('run-status')).toHaveText('cancelled', { timeout: 60_000 });
});
