/**
 * The run form's JSON-output setting: one choice per run, which says, for
 * the protocol chosen (or every protocol under "each case's own"), whether
 * requests will ask the engine for JSON. NeuroVLM-Bench is not forced by
 * default, as its own harness does not force it.
 */
import { expect, openApp, test } from '../support/fixtures.ts';

test('the run form shows the JSON-output setting and what it means for the chosen protocol', async ({ page, server }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openApp(page, server.url, '#/runs');
  const form = page.getByTestId('new-run');
  const control = form.getByTestId('json-output');
  const effect = form.getByTestId('json-output-effect');
  await expect(control.locator('select')).toHaveValue('benchmark');
  // Each case's own protocol: the Neural-MedBench JSON protocols ask for JSON, NeuroVLM-Bench does not.
  await expect(effect).toContainText('Requests ask the engine for JSON');
  await expect(effect).not.toContainText('NeuroVLM');
  await form.locator('select[name="protocol"]').selectOption('neurovlm-structured');
  await expect(effect).toContainText('No request asks for JSON: JSON validity is measured');
  await control.locator('select').selectOption('on');
  await expect(effect).toContainText('NeuroVLM');
  await control.scrollIntoViewIfNeeded();
  if (process.env.NEUROEVAL_SCREENSHOT_DIR) await form.screenshot({ path: `${process.env.NEUROEVAL_SCREENSHOT_DIR}/json-output.png` });
});
