/**
 * Importing a large benchmark through the real UI: a generated bundle ZIP of
 * 1,000 cases and 3,000 distinct PNG slices (fixtures/large-bundle.ts) is set
 * on the import panel's file input of the production build, in a fresh
 * on-disk Chromium profile. Timed in the page (performance.now()): file
 * chosen → preview shown (read and check in the import worker), and "Import
 * 1000 cases" click → done banner (storage in one transaction). Main-thread
 * long tasks come from a `longtask` PerformanceObserver, attributed with
 * long-animation-frame entries; memory is the VmRSS of the browser's
 * processes, read from /proc every ~100 ms.
 */
import type { Page } from '@playwright/test';
import { readFileSync, readdirSync } from 'node:fs';
import { startServer } from '../../../scripts/serve.mjs';
import { LARGE_BUNDLE_NAME, type LargeBundle, writeLargeBundle } from '../fixtures/large-bundle.ts';
import { type BenchResult, type BenchSuite, diskProfile } from '../harness.ts';
import { LONG_TASK_MS, describeLoaf, loafOf, readMainThreadLog, startMainThreadCollectors, tasksByPhase } from '../main-thread.ts';

const PROFILE_PREFIX = 'neuroeval-bench-import-profile-';
/** Longest wait for one phase before the suite gives up and says where it stopped. */
const PHASE_TIMEOUT_MS = 150_000;
const RSS_INTERVAL_MS = 100;
/** Quiet time after the list shows the new benchmark, so late work (live queries, GC) is still observed. */
const SETTLE_MS = 1500;
const MB = 1e6;
const MIB = 1024 * 1024;

// ---------------------------------------------------------------- memory (/proc)

interface ProcInfo {
  pid: number;
  ppid: number;
  cmdline: string;
}

function listProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      out.push({ pid: Number(name), ppid, cmdline });
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

function vmRssBytes(pid: number): number {
  try {
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

interface RssSample {
  /** ms since the sampler started. */
  t: number;
  total: number;
  renderer: number;
  processes: number;
}

/**
 * The launched browser's processes: those whose command line names the
 * profile folder (a persistent context has no `browser.process()`), and all
 * their descendants (zygotes, renderers, GPU and utility processes).
 */
function browserProcesses(profileDir: string): ProcInfo[] {
  const all = listProcesses();
  const children = new Map<number, ProcInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const found = new Map<number, ProcInfo>();
  const stack = all.filter((p) => p.cmdline.includes(profileDir));
  while (stack.length) {
    const p = stack.pop()!;
    if (found.has(p.pid)) continue;
    found.set(p.pid, p);
    stack.push(...(children.get(p.pid) ?? []));
  }
  return [...found.values()];
}

function sampleRss(profileDir: string, t0: number): RssSample {
  let total = 0;
  let renderer = 0;
  const procs = browserProcesses(profileDir);
  for (const p of procs) {
    const rss = vmRssBytes(p.pid);
    total += rss;
    if (p.cmdline.includes('--type=renderer')) renderer += rss;
  }
  return { t: performance.now() - t0, total, renderer, processes: procs.length };
}

/** Samples RSS every ~100 ms until stopped. */
function startRssSampler(profileDir: string): { stop(): RssSample[] } {
  const t0 = performance.now();
  const samples: RssSample[] = [];
  let timer: NodeJS.Timeout | null = null;
  const tick = () => {
    samples.push(sampleRss(profileDir, t0));
    timer = setTimeout(tick, RSS_INTERVAL_MS);
  };
  tick();
  return {
    stop() {
      if (timer) clearTimeout(timer);
      samples.push(sampleRss(profileDir, t0));
      return samples;
    },
  };
}

// ---------------------------------------------------------------- in-page collectors

interface PageLog {
  marks: Partial<Record<'chosen' | 'reading' | 'preview' | 'click' | 'done' | 'listed', number>>;
  listedCases: string | null;
  summary: string | null;
  doneText: string | null;
}

/**
 * Installs a MutationObserver that stamps when each step of the import shows
 * up (the long-task collectors are installed next to it).
 * Runs in the page (no closures over Node values but `name`).
 */
function installCollectors(name: string): void {
  const log: PageLog = { marks: {}, listedCases: null, summary: null, doneText: null };
  (window as unknown as { __importBench: PageLog }).__importBench = log;
  const stamp = (key: keyof PageLog['marks']) => {
    log.marks[key] ??= performance.now();
  };
  document.addEventListener(
    'change',
    (e) => {
      if ((e.target as Element | null)?.matches?.('[data-testid="import-files"]')) stamp('chosen');
    },
    true,
  );
  document.addEventListener(
    'click',
    (e) => {
      const button = (e.target as Element | null)?.closest?.('[data-testid="import-preview"] button');
      if (button && /^Import \d+ cases$/.test(button.textContent?.trim() ?? '')) stamp('click');
    },
    true,
  );
  new MutationObserver(() => {
    const m = log.marks;
    if (m.chosen === undefined) return;
    if (m.reading === undefined && document.querySelector('[data-testid="import-panel"] [role="status"]')?.textContent?.includes('Reading and checking')) stamp('reading');
    if (m.preview === undefined && document.querySelector('[data-testid="import-preview"] button.primary')) {
      stamp('preview');
      log.summary = document.querySelector('[data-testid="import-summary"]')?.textContent?.replace(/\s+/g, ' ').trim() ?? null;
    }
    if (m.done === undefined && document.querySelector('[data-testid="import-done"]')) {
      stamp('done');
      log.doneText = document.querySelector('[data-testid="import-done"]')?.textContent?.replace(/\s+/g, ' ').trim() ?? null;
    }
    if (m.listed === undefined) {
      for (const row of document.querySelectorAll('[data-testid="benchmark-list"] tbody tr')) {
        if (row.querySelector('td a')?.textContent?.trim() === name) {
          stamp('listed');
          log.listedCases = row.querySelectorAll('td')[2]?.textContent?.trim() ?? null;
        }
      }
    }
  }).observe(document.body, { childList: true, subtree: true, characterData: true });
}

// ---------------------------------------------------------------- the run


/** Waits for one of the selectors; an import error (banner or error list) ends the wait with its text. */
async function waitForStep(page: Page, selector: string, step: string): Promise<void> {
  const problem = '[data-testid="import-error"], [data-testid="import-errors"]';
  try {
    await page.waitForSelector(`${selector}, ${problem}`, { timeout: PHASE_TIMEOUT_MS });
  } catch {
    throw new Error(`${step}: nothing after ${PHASE_TIMEOUT_MS / 1000} s (the import did not finish in time; the workload was not reduced)`);
  }
  const error = await page.locator(problem).first().textContent({ timeout: 100 }).catch(() => null);
  if (error) throw new Error(`${step}: the app reported: ${error.replace(/\s+/g, ' ').trim().slice(0, 500)}`);
}

type Phase = 'choose → detected' | 'read + check' | 'preview render' | 'preview idle' | 'store' | 'done → listed' | 'after listed';

function phaseOf(task: { startTime: number; duration: number }, m: Required<PageLog['marks']>): Phase {
  const end = task.startTime + task.duration;
  if (task.startTime <= m.preview && end >= m.preview) return 'preview render';
  if (end <= m.reading) return 'choose → detected';
  if (end <= m.preview) return 'read + check';
  if (end <= m.click) return 'preview idle';
  if (end <= m.done) return 'store';
  if (end <= m.listed) return 'done → listed';
  return 'after listed';
}

export const importThroughputSuite: BenchSuite = {
  id: 'import-throughput',
  title: 'Benchmark import throughput',
  description:
    'A generated NeuroEval bundle ZIP with 1,000 cases (classification, multiple choice, lesion recognition, rationale, differential diagnosis with 3–5 images) and 3,000 distinct 256×256 grayscale PNG slices is imported through the real import panel of the production build, in a fresh on-disk Chromium profile after the demo benchmark has loaded. Phases are timed in the page; throughput is ZIP bytes (1 MB = 10^6 bytes) or cases ÷ phase time. Target for the main thread: no long task (> 50 ms) at any point of the import.',
  async run(ctx) {
    ctx.log('  import-throughput: generating the bundle (1,000 cases, 3,000 images)');
    const bundle: LargeBundle = await writeLargeBundle();
    ctx.log(`  import-throughput: ${(bundle.zipBytes / MB).toFixed(1)} MB ZIP in ${(bundle.generateMs / 1000).toFixed(1)} s (${bundle.threads} threads)`);
    let server: Awaited<ReturnType<typeof startServer>> | null = null;
    let profile: Awaited<ReturnType<typeof diskProfile>> | null = null;
    let sampler: { stop(): RssSample[] } | null = null;
    try {
      if (bundle.cases !== 1000 || bundle.imageRefs !== 3000 || bundle.distinctImages !== 3000) {
        throw new Error(`the generated bundle has ${bundle.cases} cases, ${bundle.imageRefs} image references, ${bundle.distinctImages} distinct images`);
      }
      server = await startServer({ root: ctx.dist });
      profile = await diskProfile(ctx, PROFILE_PREFIX);
      const page = profile.page;
      await page.goto(`${server.url}#/benchmarks`);
      await page.waitForSelector('html[data-ready="true"]');
      // The demo benchmark is imported on first start: wait until the list shows it.
      await page.getByTestId('benchmark-list').getByText('NeuroEval demo (synthetic)').first().waitFor({ timeout: 60_000 });
      await startMainThreadCollectors(page);
      await page.evaluate(installCollectors, LARGE_BUNDLE_NAME);
      await page.waitForTimeout(1000);

      const baseline = sampleRss(profile.dir, performance.now());
      if (baseline.processes === 0) throw new Error('found no Chromium process for the profile folder in /proc');
      sampler = startRssSampler(profile.dir);

      ctx.log('  import-throughput: choosing the file');
      await page.getByTestId('import-files').setInputFiles(bundle.path);
      await waitForStep(page, '[data-testid="import-preview"] button.primary', 'waiting for the preview');
      const button = page.getByTestId('import-preview').getByRole('button', { name: /^Import \d+ cases$/ });
      const label = (await button.textContent())?.trim();
      if (label !== 'Import 1000 cases') throw new Error(`the preview offers "${label}", expected "Import 1000 cases"`);
      ctx.log('  import-throughput: preview shown; importing');
      await button.click();
      await waitForStep(page, '[data-testid="import-done"]', 'waiting for the done banner');
      await page.waitForFunction(() => (window as unknown as { __importBench: PageLog }).__importBench.marks.listed !== undefined, undefined, {
        timeout: PHASE_TIMEOUT_MS,
        polling: 100,
      });
      await page.waitForTimeout(SETTLE_MS);
      const rss = sampler.stop();
      sampler = null;
      const log = await page.evaluate(() => (window as unknown as { __importBench: PageLog }).__importBench);
      const mainThread = await readMainThreadLog(page);

      const m = log.marks;
      if (m.chosen === undefined || m.preview === undefined || m.click === undefined || m.done === undefined || m.listed === undefined) {
        throw new Error(`missing timing marks: ${JSON.stringify(m)}`);
      }
      // `reading` (the "Reading and checking…" status) only splits detection from reading; without it, detection counts as reading.
      const marks = { ...m, reading: m.reading ?? m.chosen } as Required<PageLog['marks']>;
      if (log.doneText?.startsWith('Imported 1000 cases.') !== true) throw new Error(`the done banner says "${log.doneText}"`);
      if (log.listedCases !== '1000') throw new Error(`the benchmark list shows ${log.listedCases} cases for "${LARGE_BUNDLE_NAME}", expected 1000`);
      if (!log.summary?.includes('1000 cases') || !log.summary.includes('3000 images')) throw new Error(`the preview summary says "${log.summary}"`);

      const readMs = marks.preview - marks.chosen;
      const storeMs = marks.done - marks.click;
      const totalMs = readMs + storeMs;
      const windowEnd = marks.listed + SETTLE_MS;
      const tasks = mainThread.longTasks
        .filter((t) => t.startTime + t.duration > marks.chosen && t.startTime < windowEnd && t.duration > LONG_TASK_MS)
        .map((t) => {
          const loaf = loafOf(mainThread.loafs, t);
          return {
            ...t,
            phase: phaseOf(t, marks),
            at: t.startTime - marks.chosen,
            cause: describeLoaf(loaf),
            loaf,
          };
        });
      const frames = mainThread.loafs
        .filter((f) => f.startTime + f.duration > marks.chosen && f.startTime < windowEnd)
        .map((f) => ({ at: f.startTime - marks.chosen, duration: f.duration, blockingDuration: f.blockingDuration, phase: phaseOf(f, marks), cause: describeLoaf(f) }));
      for (const f of frames) ctx.log(`    long animation frame ${f.duration.toFixed(0)} ms (blocking ${f.blockingDuration.toFixed(0)} ms) at +${(f.at / 1000).toFixed(2)} s [${f.phase}]: ${f.cause}`);
      const longest = tasks.reduce((n, t) => Math.max(n, t.duration), 0);
      const byPhase = tasksByPhase(tasks);
      for (const t of tasks) ctx.log(`    long task ${t.duration.toFixed(0)} ms at +${(t.at / 1000).toFixed(2)} s [${t.phase}]: ${t.cause}`);

      const peak = rss.reduce((a, s) => (s.total > a.total ? s : a), rss[0]!);
      const peakRenderer = rss.reduce((n, s) => Math.max(n, s.renderer), 0);
      const mib = (b: number) => b / MIB;
      const zipMB = bundle.zipBytes / MB;
      const timeline = {
        chosenToDetectedMs: marks.reading - marks.chosen,
        detectedToPreviewMs: marks.preview - marks.reading,
        previewToClickMs: marks.click - marks.preview,
        doneToListedMs: marks.listed - marks.done,
      };
      ctx.log(`  import-throughput: detect ${timeline.chosenToDetectedMs.toFixed(0)} ms, read + check ${timeline.detectedToPreviewMs.toFixed(0)} ms, store ${storeMs.toFixed(0)} ms, list ${(marks.listed - marks.click).toFixed(0)} ms after the click`);
      const how = {
        read: 'file chosen (input change event) → preview with the "Import 1000 cases" button in the DOM; includes format detection, reading the ZIP, checking and hashing every image in the import worker, and rendering the preview',
        store: '"Import 1000 cases" click → done banner in the DOM; the worker writes benchmark, cases and assets in one IndexedDB transaction',
      };
      const results: BenchResult[] = [
        {
          name: 'Bundle: cases',
          value: bundle.cases,
          unit: 'cases',
          how: Object.entries(bundle.byFamily).map(([k, v]) => `${v} ${k}`).join(', '),
          detail: { byFamily: bundle.byFamily, contentHash: bundle.contentHash },
        },
        {
          name: 'Bundle: images',
          value: bundle.distinctImages,
          unit: 'images',
          how: `${bundle.imageRefs.toLocaleString('en-US')} image references, all distinct 256×256 grayscale PNG slices, ${(bundle.imageBytes / MB).toFixed(1)} MB in all`,
          detail: { imageRefs: bundle.imageRefs, imageBytes: bundle.imageBytes },
        },
        { name: 'Bundle ZIP size', value: zipMB, unit: 'MB', how: 'generated deterministically in Node (fixtures/large-bundle.ts) via finalizeBundle + writeBundleZip', detail: { bytes: bundle.zipBytes } },
        {
          name: 'Bundle generation (Node, not part of the import)',
          value: bundle.generateMs / 1000,
          unit: 's',
          how: `render + encodePng in ${bundle.threads} worker threads, finalizeBundle, writeBundleZip, write to the temp dir; once per bench run`,
          digits: 1,
        },
        { name: 'Import total', value: totalMs / 1000, unit: 's', how: 'read + check phase + store phase (the wait between preview and click is left out); single run', digits: 2 },
        { name: 'Import total, cases', value: bundle.cases / (totalMs / 1000), unit: 'cases/s', how: '1,000 cases ÷ import total', digits: 0 },
        { name: 'Import total, data', value: zipMB / (totalMs / 1000), unit: 'MB/s', how: 'ZIP bytes ÷ import total' },
        { name: 'Read + check (file chosen → preview)', value: readMs / 1000, unit: 's', how: how.read, digits: 2, detail: timeline },
        { name: 'Read + check, cases', value: bundle.cases / (readMs / 1000), unit: 'cases/s', how: '1,000 cases ÷ read + check time', digits: 0 },
        { name: 'Read + check, data', value: zipMB / (readMs / 1000), unit: 'MB/s', how: 'ZIP bytes ÷ read + check time' },
        { name: 'Store (Import click → done banner)', value: storeMs / 1000, unit: 's', how: how.store, digits: 2 },
        { name: 'Store, cases', value: bundle.cases / (storeMs / 1000), unit: 'cases/s', how: '1,000 cases ÷ store time', digits: 0 },
        { name: 'Store, data', value: zipMB / (storeMs / 1000), unit: 'MB/s', how: 'ZIP bytes ÷ store time' },
        {
          name: 'Import click → benchmark list shows 1,000 cases',
          value: marks.listed - marks.click,
          unit: 'ms',
          how: `the list's Dexie liveQuery after the commit (done banner at ${(marks.done - marks.click).toFixed(0)} ms); the suite fails unless the new row shows 1000 cases`,
          digits: 0,
          detail: { listedCases: log.listedCases, doneToListedMs: marks.listed - marks.done },
        },
        {
          name: 'Main-thread long tasks during the import',
          value: tasks.length,
          unit: 'tasks',
          how: `target: 0. longtask PerformanceObserver (> ${LONG_TASK_MS} ms), from the file input's change event until ${SETTLE_MS / 1000} s after the list shows the new benchmark; phases and long-animation-frame script attribution in benchmarks.json`,
          detail: { observedInPage: mainThread.longTasks.length, longAnimationFrames: frames, byPhase, tasks: tasks.map(({ loaf, ...t }) => ({ ...t, loafScripts: loaf?.scripts ?? [] })) },
        },
        { name: 'Longest main-thread task during the import', value: longest, unit: 'ms', how: 'target: none over 50 ms; 0 when there was no long task', digits: 0 },
        {
          name: 'Peak RSS, all browser processes',
          value: mib(peak.total),
          unit: 'MiB',
          how: `Σ VmRSS (/proc/<pid>/status) of every process of the launched Chromium (found by its profile folder, plus descendants), sampled every ~${RSS_INTERVAL_MS} ms; shared pages count once per process`,
          digits: 0,
          detail: { samples: rss.length, processes: peak.processes, atMs: peak.t },
        },
        { name: 'RSS increase, all browser processes', value: mib(peak.total - baseline.total), unit: 'MiB', how: `peak − baseline taken just before the file was chosen (${mib(baseline.total).toFixed(0)} MiB)`, digits: 0, detail: { baselineBytes: baseline.total } },
        { name: 'Peak RSS, renderer processes', value: mib(peakRenderer), unit: 'MiB', how: 'same samples, processes with --type=renderer only (the page and its import worker)', digits: 0 },
        { name: 'RSS increase, renderer processes', value: mib(peakRenderer - baseline.renderer), unit: 'MiB', how: `peak − baseline (${mib(baseline.renderer).toFixed(0)} MiB)`, digits: 0, detail: { baselineBytes: baseline.renderer } },
      ];
      return results;
    } finally {
      sampler?.stop();
      try {
        await profile?.close();
      } finally {
        await server?.close();
        bundle.cleanup();
      }
    }
  },
};
