/**
 * Node side: how fast the deterministic scorer gets through a large run, and
 * how many answer/reference pairs the local encoder scores per second. Both
 * run the same modules the scoring worker runs in the browser
 * (`src/core/scoring/run`; transformers.js on onnxruntime-web's wasm backend).
 */
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { TransformersEmbedder } from '../../../src/core/engines/transformers/embedder.ts';
import { scoreRun } from '../../../src/core/scoring/run/score-run.ts';
import { encoderFromEmbedder, SimilarityService } from '../../../src/core/scoring/run/similarity.ts';
import { summariseArms } from '../../../src/core/scoring/run/summary.ts';
import { loadNodeTransformers } from '../../support/transformers-node.ts';
import { largeRun } from '../fixtures/large-run.ts';
import { type BenchResult, type BenchSuite, median } from '../harness.ts';

const RESPONSES = 100_000;
const MODELS = 4;
const RESAMPLES = 1000;
const SAMPLES = 3;
const PAIRS = 200;

const WORDS = ['lesion', 'enhancing', 'frontal', 'periventricular', 'white', 'matter', 'oedema', 'necrosis', 'haemorrhage', 'restricted', 'diffusion', 'midline', 'shift', 'temporal', 'hyperintense', 'FLAIR', 'ring', 'mass', 'effect', 'cortex'];

/** A deterministic rationale-length text (≈ 45 words). */
function text(i: number): string {
  const out: string[] = [];
  for (let k = 0; k < 45; k++) out.push(WORDS[(i * 7 + k * (i % 5 + 3)) % WORDS.length]!);
  return `${out.join(' ')}.`;
}

async function deterministic(ctx: { log(m: string): void }): Promise<BenchResult[]> {
  const { cases, responses } = largeRun(RESPONSES, MODELS);
  const totals: number[] = [];
  const items: number[] = [];
  for (let s = 0; s < SAMPLES; s++) {
    ctx.log(`scoring ${RESPONSES.toLocaleString('en')} responses, sample ${s + 1} of ${SAMPLES}`);
    const t0 = performance.now();
    const r = await scoreRun({ protocolId: 'auto', cases, responses }, { seed: s, resamples: RESAMPLES });
    totals.push(performance.now() - t0);
    if (r.items.length !== RESPONSES) throw new Error(`scored ${r.items.length} of ${RESPONSES} responses`);
    // Item scoring alone: the same run summarised with one resample, minus a one-resample summary.
    const t1 = performance.now();
    const quick = await scoreRun({ protocolId: 'auto', cases, responses }, { seed: s, resamples: 1 });
    const t2 = performance.now();
    summariseArms(quick.items, responses, cases, { seed: s, resamples: 1 });
    items.push(t2 - t1 - (performance.now() - t2));
  }
  const total = median(totals);
  return [
    {
      name: `Score ${RESPONSES.toLocaleString('en')} responses (every metric, ${RESAMPLES.toLocaleString('en')} bootstrap resamples)`,
      value: RESPONSES / (total / 1000),
      unit: 'responses/s',
      digits: 0,
      how: `median of ${SAMPLES}: scoreRun over ${MODELS} models × ${(RESPONSES / MODELS).toLocaleString('en')} cases of four protocols (NeuroVLM-style classification, differential, lesion, paired multiple choice), rules only, with every per-arm interval and the NeuroVLM-Bench report; ${(total / 1000).toFixed(1)} s in all`,
      samples: totals,
    },
    {
      name: 'Item scoring alone (no intervals)',
      value: RESPONSES / (median(items) / 1000),
      unit: 'responses/s',
      digits: 0,
      how: 'the same run scored with one resample, minus the time of summarising it: normalisation, rule equivalence, lesion matching, MCQ per answer',
      samples: items,
    },
  ];
}

async function similarity(ctx: { log(m: string): void }): Promise<BenchResult[]> {
  const dir = fileURLToPath(new URL('../../../public/models/self-test-embed/', import.meta.url));
  const embedder = await TransformersEmbedder.load(await loadNodeTransformers(), { source: { kind: 'folder', location: dir } });
  try {
    const encoder = encoderFromEmbedder(embedder, 'self-test-embed');
    const warm = new SimilarityService(encoder);
    await warm.score(text(1), text(2));
    const rates: number[] = [];
    for (let s = 0; s < SAMPLES; s++) {
      ctx.log(`similarity: ${PAIRS} pairs, sample ${s + 1} of ${SAMPLES}`);
      const service = new SimilarityService(encoder); // a fresh cache: every pair embeds both texts
      const t0 = performance.now();
      for (let i = 0; i < PAIRS; i++) await service.score(text(1000 * s + 2 * i), text(1000 * s + 2 * i + 1));
      rates.push(PAIRS / ((performance.now() - t0) / 1000));
    }
    return [
      {
        name: 'Embedding similarity (BERTScore P/R/F + sentence cosine)',
        value: median(rates),
        unit: 'pairs/s',
        how: `median of ${SAMPLES} × ${PAIRS} pairs of ≈45-word texts, each side embedded twice (mean-pooled sentence vector, token vectors), self-test encoder (BERT layout, 2 layers, hidden 32) on onnxruntime-web wasm in Node; a real encoder is slower in proportion to its size`,
        digits: 0,
        samples: rates,
      },
    ];
  } finally {
    await embedder.dispose();
  }
}

export const scoringSuite: BenchSuite = {
  id: 'scoring',
  title: 'Scoring throughput (Node, the scoring worker\'s modules)',
  description: 'How long scores take for a large run, and how many answer/reference pairs the local encoder compares per second.',
  async run(ctx) {
    return [...(await deterministic(ctx)), ...(await similarity(ctx))];
  },
};
