/**
 * Bench seed for the results page: writes a benchmark with 25,000 cases, a
 * run with 100,000 answers of four models and its scores (computed here with
 * the app's scorer) into the app's own IndexedDB database. Bundled by the
 * results-page suite and loaded from the app's origin, so the app then reads
 * exactly these rows.
 */
import { createRepositories, openDatabase } from '../../../src/core/db/index.ts';
import { buildProvenance } from '../../../src/core/runner/provenance.ts';
import { scoreRun } from '../../../src/core/scoring/run/score-run.ts';
import { largeRun } from '../fixtures/large-run.ts';

declare global {
  interface Window {
    seedResults(count: number, options?: { runName?: string }): Promise<{ benchmarkId: string; runId: string; ms: number }>;
  }
}

window.seedResults = async (count: number, options: { runName?: string } = {}) => {
  const t0 = performance.now();
  const runId = 'bench-results-run';
  const benchmarkId = 'bench-results';
  const { cases, responses } = largeRun(count, 4, 7, runId);
  const repos = createRepositories(await openDatabase());
  await repos.settings.set('demo.loadedOnce', true); // keep the first-start demo import out of the measurement
  const hash = 'b'.repeat(64);
  await repos.benchmarks.putWithContent({
    id: benchmarkId, name: `Generated benchmark (${count.toLocaleString('en')} simulated answers)`, version: '1', license: 'CC0', description: 'generated', contentHash: hash, source: 'bench', synthetic: true,
    caseCount: cases.length, createdAt: Date.now(), files: [],
    manifest: { format: 'neuroeval-bundle', formatVersion: 1, id: benchmarkId, name: 'Results bench', version: '1', license: 'CC0', contentHash: hash, caseCount: cases.length, imageCount: 0 },
  }, cases);
  await repos.runs.put({
    id: runId, benchmarkId, name: options.runName ?? 'Results bench run', status: 'done', createdAt: Date.now(), updatedAt: Date.now(),
    config: null,
    provenance: buildProvenance({
      app: { version: 'bench', commit: 'bench' },
      environment: { userAgent: navigator.userAgent, crossOriginIsolated: false },
      models: [1, 2, 3, 4].map((m) => ({ id: `model-${m}`, runtime: 'transformers', files: [] })),
      protocol: { id: 'auto', version: '1', templateHashes: {} },
      sampling: { temperature: 0, topP: 1, seed: 0, maxTokens: 256 },
      samples: 1,
      variants: ['none'],
      benchmark: { id: benchmarkId, contentHash: hash },
    }),
    plan: { cases: cases.length, models: 4, variants: 1, samples: 1, items: responses.length },
  });
  for (let i = 0; i < responses.length; i += 5000) await repos.responses.putBatch(responses.slice(i, i + 5000));
  const scored = await scoreRun({ protocolId: 'auto', cases, responses }, { seed: 0, resamples: 1000 });
  // As the scoring worker does: the set, its rows and its results digest in one transaction.
  await repos.scores.saveVersion(runId, { durationMs: 0, config: scored.config, summary: scored.summary }, scored.items, cases);
  return { benchmarkId, runId, ms: performance.now() - t0 };
};
