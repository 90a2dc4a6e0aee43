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
 * final export drop out. The engine's share is what the server measured
 * itself (arrival to last byte), so a late timer on a loaded machine counts
 * as engine time, not as NeuroEval's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { main } from '../../../src/cli/main.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../support/fake-openai-server.ts';
import { type BenchResult, type BenchSuite, median } from '../harness.ts';

const MODEL = 'bench-vlm';
/** Short and long runs: demo cases × 2 samples. */
const SHORT = { cases: 10, samples: 2 };
const LONG = { cases: 50, samples: 2 };
const REPEATS = 3;
const LATENCY_MS = 50;

const items = (r: { cases: number; samples: number }) => r.cases * r.samples;

interface Timing {
  /** Wall time of the run. */
  readonly ms: number;
  /** Of which the server spent answering. */
  readonly serverMs: number;
}

/** Times one `neuroeval run` in this process; throws unless it answers every item. */
async function timeRun(demo: string, dir: string, server: FakeOpenAi, size: { cases: number; samples: number }, concurrency: number, tag: string): Promise<Timing> {
  const baseUrl = server.baseUrl;
  const served = server.serverMs();
  const answered = server.answered();
  const out = join(dir, `${tag}.json`);
  let err = '';
  const io = { out: { write: () => true }, err: { write: (t: string) => (err += t) } };
  const args = ['run', '--benchmark', demo, '--endpoint', baseUrl, '--endpoint-model', MODEL, '--protocol', 'neurovlm-structured',
    '--limit', String(size.cases), '--samples', String(size.samples), '--concurrency', String(concurrency), '--out', out, '--json'];
  const t0 = performance.now();
  const code = await main(args, io);
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`neuroeval run (${tag}) exited ${code}: ${err.slice(-400)}`);
  // A run that asked the server less than once per item measured something else (a resumed journal, a cache).
  if (server.answered() - answered !== items(size)) throw new Error(`neuroeval run (${tag}) asked the server ${server.answered() - answered} times for ${items(size)} items`);
  return { ms, serverMs: server.serverMs() - served };
}

export const cliOverheadSuite: BenchSuite = {
  id: 'cli-overhead',
  title: 'CLI overhead per item against an endpoint (Node)',
  description:
    '`neuroeval run --endpoint` against the vLLM-like test server, in process, NeuroVLM-Bench protocol on the demo benchmark. ' +
    'Per-item time is the slope between a 20-item and a 100-item run; NeuroEval\'s part is that slope minus the time the server measured answering.',
  async run(ctx) {
    const demo = join(ctx.root, 'public', 'demo', 'neuroeval-demo.zip');
    const dir = mkdtempSync(join(tmpdir(), 'neuroeval-cli-overhead-'));
    const instant = await startFakeOpenAi([MODEL], { answers: 'deterministic' });
    const timed = await startFakeOpenAi([MODEL], { answers: 'deterministic', latencyMs: LATENCY_MS });
    let n = 0;
    const extra = items(LONG) - items(SHORT);
    /** Per repeat: wall ms per item, and NeuroEval's ms per item (wall minus the server's own time). */
    const slope = async (server: FakeOpenAi, concurrency: number, what: string): Promise<{ wall: number[]; own: number[] }> => {
      const wall: number[] = [];
      const own: number[] = [];
      for (let i = 0; i < REPEATS; i++) {
        ctx.log(`${what}: repeat ${i + 1}/${REPEATS}`);
        const short = await timeRun(demo, dir, server, SHORT, concurrency, `r${n++}`);
        const long = await timeRun(demo, dir, server, LONG, concurrency, `r${n++}`);
        wall.push((long.ms - short.ms) / extra);
        own.push((long.ms - short.ms - (long.serverMs - short.serverMs)) / extra);
      }
      return { wall, own };
    };
    try {
      await timeRun(demo, dir, instant, SHORT, 1, 'warm-up'); // unmeasured: module loading and JIT
      const zero = await slope(instant, 1, 'instant engine');
      const fixed = await slope(timed, 1, `${LATENCY_MS} ms engine`);
      const parallel = await slope(timed, 4, `${LATENCY_MS} ms engine, 4 in flight`);
      const engineMs = fixed.wall.map((w, i) => w - fixed.own[i]!);
      const how = `median of ${REPEATS} slopes, (t(${items(LONG)} items) − t(${items(SHORT)} items)) ÷ ${extra}`;
      const own = 'minus the time the server itself measured answering';
      const results: BenchResult[] = [
        { name: 'Per item, instant engine (0 ms), 1 in flight', value: median(zero.wall), unit: 'ms', how: `${how}: request, local HTTP, SSE, parse, journal fsync`, digits: 2, samples: zero.wall },
        { name: 'NeuroEval per item, instant engine', value: median(zero.own), unit: 'ms', how: `the line above ${own}`, digits: 2, samples: zero.own },
        { name: `Per item, ${LATENCY_MS} ms engine, 1 in flight`, value: median(fixed.wall), unit: 'ms', how, digits: 2, samples: fixed.wall },
        { name: `Engine time per item (${LATENCY_MS} ms asked)`, value: median(engineMs), unit: 'ms', how: 'what the server measured answering, per item (a late timer on a loaded machine adds to it)', digits: 2, samples: engineMs },
        { name: `NeuroEval per item beside a ${LATENCY_MS} ms engine`, value: median(fixed.own), unit: 'ms', how: `per item ${own}`, digits: 2, samples: fixed.own },
        { name: `NeuroEval's share of the time per item (${LATENCY_MS} ms engine)`, value: (median(fixed.own) / median(fixed.wall)) * 100, unit: '%', how: 'NeuroEval per item ÷ wall time per item', digits: 1 },
        { name: `Per item, ${LATENCY_MS} ms engine, --concurrency 4`, value: median(parallel.wall), unit: 'ms', how: `${how}; a quarter of the 1-in-flight figure would be a perfect 4× overlap`, digits: 2, samples: parallel.wall },
      ];
      return results;
    } finally {
      await instant.close();
      await timed.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
