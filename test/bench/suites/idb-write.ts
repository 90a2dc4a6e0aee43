/**
 * IndexedDB write throughput of the app's real storage code: the page
 * test/bench/pages/idb-write.html (served by a Vite dev server, so it can
 * import src/core/db directly) writes response rows through
 * `createRepositories(db).responses.putBatch` in Chromium with an on-disk
 * profile, and reports on `window.__benchResult`.
 */
import { type BenchResult, type BenchSuite, diskProfile, startBenchVite } from '../harness.ts';
import type { IdbCompareResult, IdbWriteResult } from '../pages/idb-write.ts';

const MAIN = { rows: 100_000, batch: 1000 };
const SWEEP_ROWS = 20_000;
const SWEEP_BATCHES = [100, 1000, 5000];
const PAGE = 'test/bench/pages/idb-write.html';
/**
 * The runner's writes against a bare Dexie bulkPut: rows, batch, and answers
 * then saved one at a time; in several fresh profiles, because one profile's
 * ratio moved from 0.81 to 0.99 between two runs of the same code.
 */
const COMPARE = { rows: 40_000, batch: 1000, sequential: 1000, profiles: 3 };


export const idbWriteSuite: BenchSuite = {
  id: 'idb-write',
  title: 'IndexedDB write throughput',
  description:
    'Realistic response rows (~1.5 KB of fenced model JSON in `rawText`, its parse, usage figures) written through the app\'s `responses.putBatch` (Dexie, one transaction per batch) into a fresh database in a fresh on-disk Chromium profile. Only the `putBatch` calls are timed. Then the runner\'s own answer writes (`dexieRunStore`, group commit) against a bare Dexie `bulkPut` of the same rows in the same page.',
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

    const measureCompare = async (): Promise<IdbCompareResult> => {
      ctx.log(`  idb-write: the runner's writes against a bare bulkPut, ${COMPARE.rows.toLocaleString('en-US')} rows each`);
      const profile = await diskProfile(ctx);
      try {
        const page = profile.page;
        await page.goto(new URL(`${PAGE}?mode=compare&rows=${COMPARE.rows}&batch=${COMPARE.batch}&sequential=${COMPARE.sequential}`, url).href);
        await page.waitForFunction(() => window.__benchCompare !== undefined || window.__benchError !== undefined, undefined, { timeout: 240_000, polling: 250 });
        const { result, error } = await page.evaluate(() => ({ result: window.__benchCompare, error: window.__benchError }));
        if (error !== undefined || !result) throw new Error(`the bench page failed: ${error ?? 'no result'}`);
        if (result.counted.app !== COMPARE.rows || result.counted.bare !== COMPARE.rows) throw new Error(`wrote ${COMPARE.rows} rows each but counted ${result.counted.app} (app) and ${result.counted.bare} (bare) back`);
        if (!result.deleted) throw new Error('the bench databases were not deleted');
        return result;
      } finally {
        await profile.close();
      }
    };

    try {
      const main = await measure(MAIN.rows, MAIN.batch);
      const sweep: IdbWriteResult[] = [];
      for (const batch of SWEEP_BATCHES) sweep.push(await measure(SWEEP_ROWS, batch));
      const compares: IdbCompareResult[] = [];
      for (let i = 0; i < COMPARE.profiles; i++) compares.push(await measureCompare());
      // The profile with the median ratio stands for all; the others' ratios are given beside it.
      const byRatio = [...compares].sort((x, y) => x.ratio - y.ratio);
      const cmp = byRatio[byRatio.length >> 1]!;
      const spread = byRatio.map((c) => c.ratio.toFixed(2)).join(', ');

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
        {
          name: 'Runner answer writes ÷ bare Dexie bulkPut',
          value: cmp.ratio,
          unit: '×',
          how: `throughput of \`dexieRunStore(repos).saveResponse\` (each batch of ${cmp.batchSize.toLocaleString('en-US')} answers saved together, group commit) ÷ a bare \`bulkPut\` of the same rows into a table with the same indexes, ${cmp.rows.toLocaleString('en-US')} rows each, alternating in one page; median over pairs of batches (one app first, one bare first) (from summed times: ${cmp.totalRatio.toFixed(2)}); the median of ${COMPARE.profiles} fresh profiles (their ratios: ${spread}); target ≥ 0.9`,
          digits: 2,
          detail: { ...cmp, profiles: compares.map((c) => ({ ratio: c.ratio, totalRatio: c.totalRatio })) },
        },
        { name: 'Runner answer writes, saved together', value: cmp.appRowsPerSec, unit: 'rows/s', how: 'the app side of that ratio', digits: 0 },
        { name: 'Bare Dexie bulkPut', value: cmp.bareRowsPerSec, unit: 'rows/s', how: 'the bare side of that ratio', digits: 0 },
        {
          name: 'Runner answer writes, one at a time',
          value: cmp.sequentialRowsPerSec,
          unit: 'rows/s',
          how: `${cmp.sequentialRows.toLocaleString('en-US')} answers, each save awaited before the next (the runner with one request in flight: one transaction per answer)`,
          digits: 0,
        },
      ];
      return results;
    } finally {
      await server.close();
    }
  },
};
