/**
 * IndexedDB write throughput of the app's real storage code: the page
 * test/bench/pages/idb-write.html (served by a Vite dev server, so it can
 * import src/core/db directly) writes response rows through
 * `createRepositories(db).responses.putBatch` in Chromium with an on-disk
 * profile, and reports on `window.__benchResult`.
 */
import { type BenchResult, type BenchSuite, diskProfile, startBenchVite } from '../harness.ts';
import type { IdbWriteResult } from '../pages/idb-write.ts';

const MAIN = { rows: 100_000, batch: 1000 };
const SWEEP_ROWS = 20_000;
const SWEEP_BATCHES = [100, 1000, 5000];
const PAGE = 'test/bench/pages/idb-write.html';


export const idbWriteSuite: BenchSuite = {
  id: 'idb-write',
  title: 'IndexedDB write throughput',
  description:
    'Realistic response rows (~1.5 KB of fenced model JSON in `rawText`, its parse, usage figures) written through the app\'s `responses.putBatch` (Dexie, one transaction per batch) into a fresh database in a fresh on-disk Chromium profile. Only the `putBatch` calls are timed.',
  async run(ctx) {
    const { server, url } = await startBenchVite(ctx.root, ['dexie']);
    const measure = async (rows: number, batch: number): Promise<IdbWriteResult> => {
      ctx.log(`  idb-write: ${rows.toLocaleString('en-US')} rows in batches of ${batch.toLocaleString('en-US')}`);
      const profile = await diskProfile(ctx);
      try {
        const page = profile.page;
        await page.goto(new URL(`${PAGE}?rows=${rows}&batch=${batch}`, url).href);
        await page.waitForFunction(() => window.__benchResult !== undefined || window.__benchError !== undefined, undefined, {
          timeout: 240_000,
          polling: 250,
        });
        const { result, error } = await page.evaluate(() => ({ result: window.__benchResult, error: window.__benchError }));
        if (error !== undefined || !result) throw new Error(`the bench page failed: ${error ?? 'no result'}`);
        if (result.counted !== rows) throw new Error(`wrote ${rows} rows but counted ${result.counted} back`);
        if (!result.deleted) throw new Error('the bench database was not deleted');
        return result;
      } finally {
        await profile.close();
      }
    };

    try {
      const main = await measure(MAIN.rows, MAIN.batch);
      const sweep: IdbWriteResult[] = [];
      for (const batch of SWEEP_BATCHES) sweep.push(await measure(SWEEP_ROWS, batch));

      const rowsLabel = `${MAIN.rows.toLocaleString('en-US')} rows`;
      const how = `${rowsLabel}, batches of ${MAIN.batch.toLocaleString('en-US')}; rows ÷ time inside putBatch`;
      const results: BenchResult[] = [
        { name: `Write throughput (${rowsLabel})`, value: main.rowsPerSec, unit: 'rows/s', how, digits: 0, detail: main },
        {
          name: `Write throughput (${rowsLabel}), data`,
          value: main.mbPerSec,
          unit: 'MB/s',
          how: `approx.: Σ JSON.stringify(row).length = ${(main.jsonBytes / 1e6).toFixed(0)} MB ÷ time inside putBatch`,
        },
        { name: `Write time (${rowsLabel})`, value: main.writeMs / 1000, unit: 's', how: 'sum of the putBatch awaits', digits: 2 },
        { name: 'Slowest batch', value: main.maxBatchMs, unit: 'ms', how: `longest single putBatch of ${main.batches} batches` },
        { name: 'Batch size', value: main.batchSize, unit: 'rows', how: 'rows per putBatch call (one transaction each)' },
        { name: 'rawText per row', value: main.rawTextChars, unit: 'chars', how: 'mean length of the stored model output', digits: 0 },
        ...sweep.map((s): BenchResult => ({
          name: `Sweep: batches of ${s.batchSize.toLocaleString('en-US')}`,
          value: s.rowsPerSec,
          unit: 'rows/s',
          how: `${SWEEP_ROWS.toLocaleString('en-US')} rows, fresh profile; rows ÷ time inside putBatch`,
          digits: 0,
          detail: s,
        })),
      ];
      return results;
    } finally {
      await server.close();
    }
  },
};
