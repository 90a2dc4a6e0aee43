/**
 * The demo-trained model (public/models/demo-trained/) on a held-out set the
 * demo generator draws with seed 7, through the production build's real UI
 * (import, run form, runner, model host, NeuroEval's NeuroVLM scorer), on
 * WASM and on the browser's WebGPU adapter: its accuracy, JSON validity and
 * calibration as NeuroEval computes them, and how fast it answers.
 */
import { startServer } from '../../../scripts/serve.mjs';
import { heldOutZip, importBundle, runDemoTrained, type RunFigures } from '../../support/demo-trained-run.ts';
import { removeTempDirs } from '../../support/temp-dir.ts';
import { type BenchContext, type BenchResult, type BenchSuite, freshContext } from '../harness.ts';

const CASES = { wasm: 100, webgpu: 20 } as const;

async function measure(ctx: BenchContext, device: 'wasm' | 'webgpu'): Promise<RunFigures> {
  const server = await startServer({ root: ctx.dist });
  const context = await freshContext(ctx.browser);
  try {
    const page = await context.newPage();
    await page.goto(`${server.url}#/benchmarks`);
    await page.waitForSelector('html[data-ready="true"]');
    await page.getByTestId('benchmark-list').getByText('NeuroEval demo (synthetic)').waitFor({ timeout: 30_000 });
    await importBundle(page, heldOutZip(CASES[device]), CASES[device]);
    ctx.log(`  demo-trained: ${CASES[device]} held-out cases on ${device}`);
    return await runDemoTrained(page, server.url, { device, timeoutMs: 540_000 });
  } finally {
    await context.close();
    await server.close();
    removeTempDirs();
  }
}

function rows(device: 'wasm' | 'webgpu', r: RunFigures): BenchResult[] {
  const arm = r.arms.find((a) => a.variant === 'none');
  if (!arm || arm.scored !== CASES[device]) throw new Error(`the ${device} run scored ${arm?.scored ?? 0} of ${CASES[device]} cases`);
  const on = device === 'wasm' ? 'WASM' : 'WebGPU (this browser’s adapter)';
  const how = `${CASES[device]} cases drawn with seed 7, NeuroVLM-Bench protocol (zero-shot), greedy`;
  return [
    { name: `${on}: diagnosis_name accuracy (NeuroEval, plain)`, value: arm.accuracy, unit: '', how: `${how}; share of answers naming the right class; chance 0.2`, digits: 3 },
    { name: `${on}: answers that parsed as JSON (NeuroEval)`, value: arm.jsonValid, unit: '', how: `${how}; parsed ÷ successful calls`, digits: 3 },
    { name: `${on}: ECE of diagnosis_confidence (NeuroEval)`, value: arm.ece, unit: '', how: '10 equal-width bins on the evaluator’s edges', digits: 3 },
    { name: `${on}: time to first token, median`, value: r.medianTtftMs ?? NaN, unit: 'ms', how: 'per answer, as the engine measured it (prompt of about 200 tokens, 64 of them the image)', digits: 0 },
    { name: `${on}: decode speed, median`, value: r.medianDecodeTps ?? NaN, unit: 'tokens/s', how: 'per answer, after the first token', digits: 0 },
    { name: `${on}: answers per second`, value: r.answers / (r.spanMs / 1000), unit: '/s', how: 'stored answers ÷ time from the first request to the last answer, model load excluded', digits: 2 },
  ];
}

export const demoTrainedSuite: BenchSuite = {
  id: 'demo-trained',
  title: 'Demo-trained model on a held-out set',
  description:
    'The model bundled as "Demo-trained model (synthetic phantoms only; not a medical model)" answering the NeuroVLM-Bench prompt on images the demo generator drew with a seed absent from its training, through the real app. The quality figures are NeuroEval’s (plain accuracy, parsed-JSON rate), not the benchmark evaluator’s own (it reports balanced accuracy and counts JSON validity over all calls); they say nothing about clinical performance.',
  async run(ctx) {
    return [...rows('wasm', await measure(ctx, 'wasm')), ...rows('webgpu', await measure(ctx, 'webgpu'))];
  },
};
