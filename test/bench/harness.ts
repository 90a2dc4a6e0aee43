/**
 * What every benchmark suite shares: the suite and result shapes, the context
 * the orchestrator (run.ts) hands to each suite, and small helpers for
 * statistics, gzip sizes and browser contexts.
 *
 * To add a benchmark, write `suites/<name>.ts` exporting a {@link BenchSuite}
 * and list it in `SUITES` in run.ts. A suite closes whatever it opens (servers,
 * contexts, profiles) in `finally`; the orchestrator closes the shared browser.
 */
import { type Browser, type BrowserContext, type Page, chromium } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createServer, type ViteDevServer } from 'vite';

/** Repository root, from this file's location (never a hard-coded path). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The production build that `npm run bench` makes before running. */
export const DIST_DIR = join(REPO_ROOT, 'dist');
/** Where the report and the raw results are written. */
export const DOCS_DIR = join(REPO_ROOT, 'docs');

/** One measured figure: one row of a suite's table. */
export interface BenchResult {
  /** What was measured, e.g. "JS before first paint (gzip)". Stable across runs, so diffs line up. */
  name: string;
  value: number;
  /** Unit of `value`, e.g. "ms", "KiB", "rows/s". */
  unit: string;
  /** Short note on how the figure was measured. */
  how: string;
  /** Decimal places shown in the report (default: 0 for integers, 1 otherwise). */
  digits?: number;
  /** Individual measurements behind an aggregate (JSON only). */
  samples?: number[];
  /** Anything else worth keeping for comparisons, e.g. file names (JSON only). */
  detail?: unknown;
}

/** How the orchestrator launched Chromium, for suites that need their own browser (persistent profiles). */
export interface ChromiumLaunch {
  executablePath: string;
  args: readonly string[];
}

export interface BenchContext {
  /** Repository root (absolute, computed at run time). */
  readonly root: string;
  /** The production build folder. */
  readonly dist: string;
  /** Headless Chromium shared by the browser suites; make a fresh context per measurement. */
  readonly browser: Browser;
  readonly chromium: ChromiumLaunch;
  /** Progress line on stderr (not part of the report). */
  log(message: string): void;
}

/** A suite's time budget unless it names its own: the longest of the quick suites takes a few minutes. */
export const DEFAULT_SUITE_BUDGET_MINUTES = 20;

export interface BenchSuite {
  /** Stable id; the key in benchmarks.json and the value for `--only`. */
  readonly id: string;
  /** Heading in the report. */
  readonly title: string;
  /** One or two sentences under the heading: what the suite tells the reader. */
  readonly description: string;
  /** How long the suite may run before the bench gives up on it as hung (default {@link DEFAULT_SUITE_BUDGET_MINUTES}). */
  readonly budgetMinutes?: number;
  run(ctx: BenchContext): Promise<BenchResult[]>;
}

/** Median of the samples (mean of the middle two for an even count). */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) throw new Error('median of no samples');
  const s = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Median, min and max rows for a set of timings. */
export function spread(name: string, samples: readonly number[], unit: string, how: string, digits = 1): BenchResult[] {
  return [
    { name: `${name}, median`, value: median(samples), unit, how, digits, samples: [...samples] },
    { name: `${name}, min`, value: Math.min(...samples), unit, how: 'same samples', digits },
    { name: `${name}, max`, value: Math.max(...samples), unit, how: 'same samples', digits },
  ];
}

/** Size of `bytes` after zlib gzip at level 9, as a bundler or CDN would ship it at best. */
export function gzipSize(bytes: Uint8Array): number {
  return gzipSync(bytes, { level: 9 }).length;
}

export const KIB = 1024;

/**
 * tsx compiles this code with esbuild's keepNames, which wraps named inner
 * functions in `__name(...)`. Functions passed to `page.evaluate` then fail in
 * the page with "__name is not defined" unless the page has one.
 */
const KEEP_NAMES_SHIM = 'globalThis.__name ??= (fn) => fn;';

/** A fresh incognito context (empty HTTP cache, no service worker, in-memory storage). */
export async function freshContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.addInitScript({ content: KEEP_NAMES_SHIM });
  return context;
}

/**
 * A new browser with a fresh on-disk profile in a temporary folder, so
 * IndexedDB and Cache Storage live on disk as for a real user (incognito
 * contexts keep them in memory). `page` is its first tab, with uncaught page
 * errors written to the bench log. `close()` closes it and deletes the profile.
 */
export async function diskProfile(
  ctx: Pick<BenchContext, 'chromium' | 'log'>,
  prefix = 'neuroeval-bench-profile-',
): Promise<{ context: BrowserContext; page: Page; dir: string; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let context: BrowserContext;
  let page: Page;
  try {
    context = await chromium.launchPersistentContext(dir, {
      executablePath: ctx.chromium.executablePath,
      args: [...ctx.chromium.args],
      headless: true,
      viewport: { width: 1280, height: 860 },
    });
    await context.addInitScript({ content: KEEP_NAMES_SHIM });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => ctx.log(`  [pageerror] ${e.message}`));
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    context,
    page,
    dir,
    close: async () => {
      try {
        await context.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * A Vite dev server for bench pages that import `src/` directly. It has its
 * own optimizer cache (a developer's `npm run dev` may use the default one),
 * pre-bundles `prebundle` at start-up so a page never triggers a
 * re-optimise-and-reload, and neither watches nor hot-reloads: edits made
 * while the bench runs must not reload the page.
 * @param mpa no index.html fallback (a missing model file must be a 404).
 */
export async function startBenchVite(root: string, prebundle: readonly string[], mpa = false): Promise<{ server: ViteDevServer; url: string }> {
  const server = await createServer({
    root,
    configFile: join(root, 'vite.config.ts'),
    cacheDir: join(root, 'node_modules', '.vite-bench'),
    logLevel: 'warn',
    clearScreen: false,
    ...(mpa ? { appType: 'mpa' as const } : {}),
    optimizeDeps: { include: [...prebundle] },
    server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false, watch: null },
  });
  try {
    await server.listen();
    const url = server.resolvedUrls?.local[0];
    if (!url) throw new Error('the Vite dev server reported no local URL');
    return { server, url };
  } catch (err) {
    await server.close();
    throw err;
  }
}
