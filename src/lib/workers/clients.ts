/**
 * The app's worker clients. Each entry under `workers/` gets one client here;
 * the rest of the app imports these, never `new Worker` directly.
 */
import type { HashApi } from '../../../workers/hash.worker.ts';
import type { ImportApi } from '../../../workers/import.worker.ts';
import type { RunnerApi } from '../../../workers/runner.worker.ts';
import type { ScoringApi } from '../../../workers/scoring.worker.ts';
import type { ResultsApi } from '../../../workers/results.worker.ts';
import type { ProbeApi } from '../../../workers/probe.worker.ts';
import { createWorkerClient } from '../../core/rpc/worker-client.ts';

export const probeWorker = createWorkerClient<ProbeApi>(
  'environment probe',
  () => new Worker(new URL('../../../workers/probe.worker.ts', import.meta.url), { type: 'module', name: 'probe' }),
  { idleMs: 15_000 },
);

export const hashWorker = createWorkerClient<HashApi>(
  'hashing',
  () => new Worker(new URL('../../../workers/hash.worker.ts', import.meta.url), { type: 'module', name: 'hash' }),
  { idleMs: 30_000 },
);

export const importWorker = createWorkerClient<ImportApi>(
  'import',
  () => new Worker(new URL('../../../workers/import.worker.ts', import.meta.url), { type: 'module', name: 'import' }),
  // Long: a preview waits in the worker while the user reads it.
  { idleMs: 15 * 60_000 },
);

export const runnerWorker = createWorkerClient<RunnerApi>(
  'runner',
  () => new Worker(new URL('../../../workers/runner.worker.ts', import.meta.url), { type: 'module', name: 'runner' }),
  // A run can last hours; the worker stays while it runs (calls in flight) and for a while after.
  { idleMs: 10 * 60_000 },
);

export const scoringWorker = createWorkerClient<ScoringApi>(
  'scoring',
  () => new Worker(new URL('../../../workers/scoring.worker.ts', import.meta.url), { type: 'module', name: 'scoring' }),
  // Holds the judge and encoder between scores; frees them after a few idle minutes.
  { idleMs: 3 * 60_000 },
);

export const resultsWorker = createWorkerClient<ResultsApi>(
  'results',
  () => new Worker(new URL('../../../workers/results.worker.ts', import.meta.url), { type: 'module', name: 'results' }),
  // Keeps a benchmark's results in memory while the user works with them.
  { idleMs: 5 * 60_000 },
);

/**
 * A second instance of the results worker for what reads every answer or
 * resamples it: paired tests, breakdowns, the reader study, the safety view
 * and the exports. A bootstrap over 100,000 answers holds a worker for
 * hundreds of milliseconds at a stretch; in the worker that serves the
 * overview and the answers table it made a filter, a sort, or opening the
 * page again wait until it ended (530 ms to open the results again in the
 * same tab, against 240 ms fresh). Each instance keeps its own cache.
 */
export const resultsBackgroundWorker = createWorkerClient<ResultsApi>(
  'results (tests and reports)',
  () => new Worker(new URL('../../../workers/results.worker.ts', import.meta.url), { type: 'module', name: 'results-background' }),
  { idleMs: 5 * 60_000 },
);
