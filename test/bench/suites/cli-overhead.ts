/**
 * Node side: what `neuroeval run` costs per item beside the engine's own
 * time, against an OpenAI-compatible endpoint. The test server
 * (test/support/fake-openai-server.ts, which checks requests as vLLM does)
 * answers deterministically after a fixed latency: 0 ms (an instant engine)
 * or 50 ms (an engine with known time). The CLI runs in this process
 * (`main()`) over the demo benchmark; each item goes through everything a
 * real run does: PNG read from the bundle, request built with data URLs,
 * HTTP and SSE, parse, an fsync'ed journal line. Per-item time is the slope
 * between a short and a long run, so start-up, benchmark loading and the
 * final export drop out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { main } from '../../../src/cli/main.ts';
import { startFakeOpenAi } from '../../support/fake-openai-server.ts';
import { type BenchResult, type BenchSuite, median } from '../harness.ts';

const MODEL = 'bench-vlm';
/** Short and long runs: demo cases × 2 samples. */
const SHORT = { cases: 10, samples: 2 };
const LONG = { cases: 50, samples: 2 };
const REPEATS = 3;
const LATENCY_MS = 50;

const items = (r: { cases: number; samples: number }) => r.cases * r.samples;

/** Wall time (ms) of one `neuroeval run` in this process; throws unless it answers every item. */
async function timeRun(demo: string, dir: string, baseUrl: string, size: { cases: number; samples: number }, concurrency: number, tag: string): Promise<number> {
  const out = join(dir, `${tag}.json`);
  let err = '';
  const io = { out: { write: () => true }, err: { write: (t: string) => (err += t) } };
  const args = ['run', '--benchmark', demo, '--endpoint', baseUrl, '--endpoint-model', MODEL, '--protocol', 'neurovlm-structured',
    '--limit', String(size.cases), '--samples', String(size.samples), '--concurrency', String(concurrency), '--out', out, '--json'];
  const t0 = performance.now();
  const code = await main(args, io);
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`neuroeval run (${tag}) exited ${code}: ${err.slice(-400)}`);
  return ms;
}

export const cliOverheadSuite: BenchSuite = {
  id: 'cli-overhead',
  title: 'CLI overhead per item against an endpoint (Node)',
  description:
    '`neuroeval run --endpoint` against the vLLM-like test server, in process, NeuroVLM-Bench protocol on the demo benchmark. ' +
    'Per-item time is the slope between a 20-item and a 100-item run; NeuroEval\'s overhead per item is that slope minus the server\'s fixed latency.',
  async run(ctx) {
    const demo = join(ctx.root, 'public', 'demo', 'neuroeval-demo.zip');
    const dir = mkdtempSync(join(tmpdir(), 'neuroeval-cli-overhead-'));
    const instant = await startFakeOpenAi([MODEL], { answers: 'deterministic' });
    const timed = await startFakeOpenAi([MODEL], { answers: 'deterministic', latencyMs: LATENCY_MS });
    let n = 0;
    const slope = async (baseUrl: string, concurrency: number, what: string): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < REPEATS; i++) {
        ctx.log(`${what}: repeat ${i + 1}/${REPEATS}`);
        const short = await timeRun(demo, dir, baseUrl, SHORT, concurrency, `r${n++}`);
        const long = await timeRun(demo, dir, baseUrl, LONG, concurrency, `r${n++}`);
        out.push((long - short) / (items(LONG) - items(SHORT)));
      }
      return out;
    };
    try {
      await timeRun(demo, dir, instant.baseUrl, SHORT, 1, 'warm-up'); // unmeasured: module loading and JIT
      const zero = await slope(instant.baseUrl, 1, 'instant engine');
      const fixed = await slope(timed.baseUrl, 1, `${LATENCY_MS} ms engine`);
      const parallel = await slope(timed.baseUrl, 4, `${LATENCY_MS} ms engine, 4 in flight`);
      const overhead = fixed.map((ms) => ms - LATENCY_MS);
      const how = `median of ${REPEATS} slopes, (t(${items(LONG)} items) − t(${items(SHORT)} items)) ÷ ${items(LONG) - items(SHORT)}`;
      const results: BenchResult[] = [
        { name: 'Per item, instant engine (0 ms), 1 in flight', value: median(zero), unit: 'ms', how: `${how}: all of it is NeuroEval's (request, local HTTP, parse, journal fsync)`, digits: 2, samples: zero },
        { name: `Per item, ${LATENCY_MS} ms engine, 1 in flight`, value: median(fixed), unit: 'ms', how, digits: 2, samples: fixed },
        { name: `Overhead per item beside a ${LATENCY_MS} ms engine`, value: median(overhead), unit: 'ms', how: `the line above minus the server's ${LATENCY_MS} ms`, digits: 2, samples: overhead },
        { name: `Overhead as a share of engine time (${LATENCY_MS} ms)`, value: (median(overhead) / LATENCY_MS) * 100, unit: '%', how: 'overhead per item ÷ engine time per item', digits: 1 },
        { name: `Per item, ${LATENCY_MS} ms engine, --concurrency 4`, value: median(parallel), unit: 'ms', how: `${how}; ${LATENCY_MS / 4} ms would be a perfect 4× overlap`, digits: 2, samples: parallel },
      ];
      return results;
    } finally {
      await instant.close();
      await timed.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
