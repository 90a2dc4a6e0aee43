/**
 * `npm run bench`: builds (in package.json), then runs every suite in
 * headless Chromium and Node and writes docs/BENCHMARKS.md and
 * docs/benchmarks.json. Not part of `npm test`.
 *
 *   npm run bench                          all suites, writes the report
 *   npx tsx test/bench/run.ts --only idb-write,navigation
 *                                          some suites, prints the report, writes nothing
 *   npx tsx test/bench/run.ts --only idb-write --update
 *                                          some suites, their figures replace theirs in the report
 *
 * Every browser, server and temporary profile is closed at the end, also on
 * failure; a failure exits 1 with the suite that failed.
 */
import { type Browser, chromium } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.ts';
import { startServer } from '../../scripts/serve.mjs';
import { type BenchContext, type BenchSuite, DEFAULT_SUITE_BUDGET_MINUTES, DIST_DIR, DOCS_DIR, REPO_ROOT, freshContext } from './harness.ts';
import { type BenchReport, type MachineInfo, type SuiteReport, formatValue, renderJson, renderMarkdown } from './report.ts';
import { cliStartupSuite } from './suites/cli-startup.ts';
import { cliOverheadSuite } from './suites/cli-overhead.ts';
import { demoTrainedSuite } from './suites/demo-trained.ts';
import { engineBoundarySuite } from './suites/engine-boundary.ts';
import { estimatesSuite } from './suites/estimates.ts';
import { firstPaintSuite } from './suites/first-paint.ts';
import { idbWriteSuite } from './suites/idb-write.ts';
import { importThroughputSuite } from './suites/import-throughput.ts';
import { navigationSuite } from './suites/navigation.ts';
import { realSizeSuite } from './suites/real-size.ts';
import { realSizeRunSuite } from './suites/real-size-run.ts';
import { runnerSuite } from './suites/runner.ts';
import { resultsPageSuite } from './suites/results-page.ts';
import { scoringSuite } from './suites/scoring.ts';

/** Report order. Add new suites here. */
const SUITES: readonly BenchSuite[] = [firstPaintSuite, navigationSuite, idbWriteSuite, importThroughputSuite, engineBoundarySuite, realSizeSuite, realSizeRunSuite, runnerSuite, scoringSuite, resultsPageSuite, demoTrainedSuite, estimatesSuite, cliStartupSuite, cliOverheadSuite];

const COMMAND = 'npm run bench';

class BenchFailure extends Error {}

const log = (message: string) => process.stderr.write(`${message}\n`);

/**
 * `--only a,b` runs some suites and leaves docs/ alone; with `--update` their
 * figures replace those suites' in docs/ (each marked with its own date and
 * command), the other suites' figures are kept as they were measured.
 */
function selectedSuites(argv: readonly string[]): { suites: readonly BenchSuite[]; partial: boolean } {
  const i = argv.indexOf('--only');
  if (argv.includes('--update') && i < 0) throw new BenchFailure('--update goes with --only: it replaces the figures of the suites run');
  if (i < 0) return { suites: SUITES, partial: false };
  const ids = (argv[i + 1] ?? '').split(',').filter(Boolean);
  const unknown = ids.filter((id) => !SUITES.some((s) => s.id === id));
  if (ids.length === 0 || unknown.length > 0) {
    throw new BenchFailure(`--only takes a comma-separated list of: ${SUITES.map((s) => s.id).join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`);
  }
  return { suites: SUITES.filter((s) => ids.includes(s.id)), partial: true };
}

function osName(): string {
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];
    if (pretty) return pretty;
  } catch {
    // Not Linux, or no os-release: fall back to Node's description.
  }
  return `${os.type()} ${os.version()}`;
}

/** The WebGPU adapter as a page of the app sees it (secure context on 127.0.0.1). */
async function webgpuAdapter(browser: Browser): Promise<string> {
  const server = await startServer({ root: DIST_DIR });
  const context = await freshContext(browser);
  try {
    const page = await context.newPage();
    await page.goto(server.url);
    const info = await page.evaluate(async () => {
      if (!('gpu' in navigator)) return null;
      const adapter = await navigator.gpu.requestAdapter();
      if (!adapter) return { architecture: '', vendor: '', fallback: false, none: true };
      const i = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
      return { architecture: i.architecture, vendor: i.vendor, fallback: i.isFallbackAdapter === true, none: false };
    });
    if (info === null) return 'none (navigator.gpu missing)';
    if (info.none) return 'none (requestAdapter() returned null)';
    const parts = [info.architecture || 'unknown architecture', info.vendor && `vendor ${info.vendor}`, info.fallback && 'fallback adapter'];
    return parts.filter(Boolean).join(', ');
  } finally {
    await context.close();
    await server.close();
  }
}

async function machineInfo(browser: Browser): Promise<MachineInfo> {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    ramGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    os: osName(),
    kernel: `${os.type()} ${os.release()} (${os.arch()})`,
    node: process.version,
    chromium: browser.version(),
    webgpu: await webgpuAdapter(browser),
  };
}

function checkResults(suite: BenchSuite, results: SuiteReport['results']): void {
  if (results.length === 0) throw new BenchFailure(`suite "${suite.id}" returned no results`);
  const names = new Set<string>();
  for (const r of results) {
    if (!Number.isFinite(r.value)) throw new BenchFailure(`suite "${suite.id}": "${r.name}" is not a finite number (${r.value})`);
    if (names.has(r.name)) throw new BenchFailure(`suite "${suite.id}": duplicate result name "${r.name}"`);
    names.add(r.name);
  }
}

async function main(): Promise<number> {
  const { suites, partial } = selectedSuites(process.argv.slice(2));
  if (!existsSync(join(DIST_DIR, 'index.html'))) {
    throw new BenchFailure('no production build in dist/: run "npm run bench" (which builds first) or "npm run build"');
  }
  const executablePath = await findChromium();
  if (!executablePath) throw new BenchFailure('no Chromium found: run "node scripts/setup-chromium.mjs" or set CHROME_PATH');

  const date = new Date().toISOString();
  const started = performance.now();
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, headless: true });
  // Hard stop per suite, so a hung page can never keep the bench (and its browsers) alive.
  let watchdog: NodeJS.Timeout | undefined;
  const watch = (suite: BenchSuite) => {
    clearTimeout(watchdog);
    const minutes = suite.budgetMinutes ?? DEFAULT_SUITE_BUDGET_MINUTES;
    watchdog = setTimeout(() => {
      log(`\nbench FAILED: suite "${suite.id}" still running after ${minutes} minutes; giving up.`);
      void browser.close().finally(() => process.exit(1));
    }, minutes * 60_000);
    watchdog.unref();
  };

  const reports: SuiteReport[] = [];
  let machine: MachineInfo;
  try {
    log(`Chromium ${browser.version()} (${executablePath})`);
    machine = await machineInfo(browser);
    const ctx: BenchContext = {
      root: REPO_ROOT,
      dist: DIST_DIR,
      browser,
      chromium: { executablePath, args: CHROMIUM_ARGS },
      log,
    };
    for (const suite of suites) {
      log(`▶ ${suite.id}: ${suite.title}`);
      watch(suite);
      const t0 = performance.now();
      let results: SuiteReport['results'];
      try {
        results = await suite.run(ctx);
      } catch (err) {
        const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
        throw new BenchFailure(`suite "${suite.id}" failed: ${message}`);
      }
      checkResults(suite, results);
      for (const r of results) log(`    ${r.name}: ${formatValue(r)} ${r.unit}`);
      log(`  done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      reports.push({ id: suite.id, title: suite.title, description: suite.description, results });
    }
  } finally {
    clearTimeout(watchdog);
    await browser.close();
  }

  const report: BenchReport = {
    schema: 1,
    date,
    command: COMMAND,
    durationS: Math.round((performance.now() - started) / 100) / 10,
    machine,
    suites: reports,
  };
  const update = partial && process.argv.includes('--update');
  if (update) {
    const previous = JSON.parse(readFileSync(join(DOCS_DIR, 'benchmarks.json'), 'utf8')) as BenchReport;
    // The suites' NEUROEVAL_* settings (case counts, answer lengths) are part of the command: the figures depend on them.
    const settings = Object.entries(process.env).filter(([k]) => k.startsWith('NEUROEVAL_')).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v} `).join('');
    const fresh = new Map(reports.map((r) => [r.id, { ...r, measured: { date, command: `${settings}npx tsx test/bench/run.ts ${process.argv.slice(2).join(' ')}` } }]));
    // The stored order, then suites new since (in SUITES order).
    const ids = [...previous.suites.map((s) => s.id), ...SUITES.map((s) => s.id).filter((id) => fresh.has(id) && !previous.suites.some((s) => s.id === id))];
    const merged: BenchReport = { ...previous, suites: ids.map((id) => fresh.get(id) ?? previous.suites.find((s) => s.id === id)!).filter(Boolean) };
    writeFileSync(join(DOCS_DIR, 'BENCHMARKS.md'), renderMarkdown(merged));
    writeFileSync(join(DOCS_DIR, 'benchmarks.json'), renderJson(merged));
    log(`\nUpdated ${reports.map((r) => r.id).join(', ')} in docs/BENCHMARKS.md and docs/benchmarks.json; other suites kept from ${previous.date}.`);
    return 0;
  }
  const markdown = renderMarkdown(report);
  if (partial) {
    process.stdout.write(markdown);
    log('\n--only: partial run, docs/ left unchanged.');
  } else {
    mkdirSync(DOCS_DIR, { recursive: true });
    writeFileSync(join(DOCS_DIR, 'BENCHMARKS.md'), markdown);
    writeFileSync(join(DOCS_DIR, 'benchmarks.json'), renderJson(report));
    log(`\nWrote docs/BENCHMARKS.md and docs/benchmarks.json (${report.durationS.toFixed(1)} s).`);
  }
  return 0;
}

/** Sets the exit code and lets output flush; a handle left open (it should not be) cannot keep the process alive. */
function finish(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 2000).unref();
}

main().then(finish, (err: unknown) => {
  const message = err instanceof BenchFailure ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  log(`\nbench FAILED: ${message}`);
  finish(1);
});
