/**
 * This machine's memory read bandwidth, measured by the bench itself: each
 * of `threads` worker threads compares two equal buffers of its own, far
 * larger than the caches (`Buffer.compare`, the C library's vectorised
 * memcmp, which reads both to the end), and the bytes read by all of them ÷
 * the wall time of the slowest is the figure. Best of a few rounds, as a
 * machine shared with other work only ever slows it down.
 */
import { Worker } from 'node:worker_threads';

const SCAN = `
const { parentPort, workerData } = require('node:worker_threads');
const a = Buffer.alloc(workerData.bytes / 2, 7);
const b = Buffer.alloc(workerData.bytes / 2, 7);
parentPort.on('message', (passes) => {
  let same = 0;
  for (let i = 0; i < passes; i++) same += Buffer.compare(a, b) === 0 ? 1 : 0;
  parentPort.postMessage(same);
});
parentPort.postMessage('ready');
`;

export interface Bandwidth {
  /** Bytes per second, all threads together (best round). */
  readonly bytesPerS: number;
  readonly threads: number;
  /** Every round's figure, bytes per second. */
  readonly rounds: readonly number[];
}

export async function readBandwidth(threads: number, bytesPerThread = 512 * 1024 ** 2, passes = 4, rounds = 5): Promise<Bandwidth> {
  const workers = await Promise.all(
    Array.from({ length: threads }, () =>
      new Promise<Worker>((resolve, reject) => {
        const w = new Worker(SCAN, { eval: true, workerData: { bytes: bytesPerThread } });
        w.once('message', () => resolve(w));
        w.once('error', reject);
      }),
    ),
  );
  try {
    const figures: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = performance.now();
      await Promise.all(workers.map((w) => new Promise<void>((resolve) => {
        w.once('message', () => resolve());
        w.postMessage(passes);
      })));
      const s = (performance.now() - t0) / 1000;
      figures.push((threads * bytesPerThread * passes) / s);
    }
    return { bytesPerS: Math.max(...figures), threads, rounds: figures };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
