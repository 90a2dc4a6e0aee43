/**
 * Node side: how long the `neuroeval` CLI takes to start, i.e. to load the
 * TypeScript core through tsx, measured as `neuroeval --help` end to end.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type BenchSuite, median, spread } from '../harness.ts';

const SAMPLES = 5;

/** Wall time of one child process run, in ms; throws unless it exits 0. */
function timeRun(args: readonly string[], cwd: string, expect?: RegExp): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  const ms = performance.now() - t0;
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr.trim()}`);
  if (expect && !expect.test(r.stdout)) throw new Error(`node ${args.join(' ')} printed unexpected output: ${r.stdout.slice(0, 200)}`);
  return ms;
}

export const cliStartupSuite: BenchSuite = {
  id: 'cli-startup',
  title: 'CLI start-up (Node)',
  description: 'Wall time of `node bin/neuroeval.js --help` as a child process: Node start, tsx registration and loading the CLI\'s TypeScript modules.',
  async run(ctx) {
    const bin = join(ctx.root, 'bin', 'neuroeval.js');
    const cli = (): number => timeRun([bin, '--help'], ctx.root, /Usage: neuroeval/);
    cli(); // unmeasured: fills the OS file cache and tsx's transform cache
    const samples = Array.from({ length: SAMPLES }, cli);
    const baseline = Array.from({ length: SAMPLES }, () => timeRun(['-e', '0'], ctx.root));
    return [
      ...spread('`neuroeval --help`', samples, 'ms', `${SAMPLES} runs via child_process.spawnSync after one unmeasured warm-up`),
      {
        name: 'Bare `node -e 0` (baseline)',
        value: median(baseline),
        unit: 'ms',
        how: `median of ${SAMPLES}: Node start-up alone, for comparison`,
        digits: 1,
        samples: baseline,
      },
    ];
  },
};
