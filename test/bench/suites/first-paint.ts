/**
 * Bytes the production build ships before the first paint: which JS and CSS
 * responses the browser had started receiving by first-contentful-paint, and
 * their gzip size (gzipped here from dist/, so the figure does not depend on
 * whether the server compresses).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { startServer } from '../../../scripts/serve.mjs';
import { type BenchResult, type BenchSuite, KIB, freshContext, gzipSize } from '../harness.ts';

interface PageTimings {
  paint: { name: string; startTime: number }[];
  navigation: { name: string; responseStart: number } | null;
  resources: { name: string; initiatorType: string; responseStart: number }[];
}

interface FileSizes {
  files: string[];
  raw: number;
  gzip: number;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const full = join(dir, name);
      return statSync(full).isDirectory() ? listFiles(full) : [full];
    })
    .sort();
}

function sizes(dist: string, files: readonly string[]): FileSizes {
  let raw = 0;
  let gzip = 0;
  for (const file of files) {
    const bytes = readFileSync(join(dist, file));
    raw += bytes.length;
    gzip += gzipSize(bytes);
  }
  return { files: [...files].sort(), raw, gzip };
}

const kib = (bytes: number) => bytes / KIB;

export const firstPaintSuite: BenchSuite = {
  id: 'first-paint-bytes',
  title: 'Production bytes before first paint',
  description:
    'A first visit to the production build (`dist/`) in a fresh context: the JS and CSS whose responses had started by first-contentful-paint, gzipped at level 9 from the built files. What a user must download before seeing anything.',
  async run(ctx) {
    const server = await startServer({ root: ctx.dist });
    const context = await freshContext(ctx.browser);
    let timings: PageTimings;
    try {
      const page = await context.newPage();
      await page.goto(server.url, { waitUntil: 'load' });
      await page.waitForSelector('html[data-ready="true"]');
      timings = await page.evaluate(async (): Promise<PageTimings> => {
        const hasFcp = () => performance.getEntriesByType('paint').some((e) => e.name === 'first-contentful-paint');
        if (!hasFcp()) {
          // Paint entries arrive after the frame is presented; wait for them (at most 5 s).
          await new Promise<void>((resolve) => {
            const observer = new PerformanceObserver(() => {
              if (hasFcp()) {
                observer.disconnect();
                resolve();
              }
            });
            observer.observe({ type: 'paint', buffered: true });
            setTimeout(() => {
              observer.disconnect();
              resolve();
            }, 5000);
          });
        }
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
        return {
          paint: performance.getEntriesByType('paint').map((e) => ({ name: e.name, startTime: e.startTime })),
          navigation: nav ? { name: nav.name, responseStart: nav.responseStart } : null,
          resources: (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((r) => ({
            name: r.name,
            initiatorType: r.initiatorType,
            responseStart: r.responseStart,
          })),
        };
      });
    } finally {
      await context.close();
      await server.close();
    }

    const fcp = timings.paint.find((p) => p.name === 'first-contentful-paint')?.startTime;
    const fp = timings.paint.find((p) => p.name === 'first-paint')?.startTime;
    const cutoff = fcp ?? fp;
    if (cutoff === undefined) throw new Error('the page reported no first-paint or first-contentful-paint entry');
    if (!timings.navigation) throw new Error('the page reported no navigation timing entry');

    // Map each response URL under the server's base back to its file in dist/.
    const base = new URL(timings.navigation.name);
    const toFile = (url: string): string | null => {
      const u = new URL(url);
      if (u.origin !== base.origin) return null;
      const path = decodeURIComponent(u.pathname).replace(/^\//, '');
      const file = path === '' || path.endsWith('/') ? `${path}index.html` : path;
      try {
        return statSync(join(ctx.dist, file)).isFile() ? file : null;
      } catch {
        return null;
      }
    };
    const early = timings.resources.filter((r) => r.responseStart > 0 && r.responseStart <= cutoff);
    const earlyFiles = (ext: string) =>
      [...new Set(early.map((r) => toFile(r.name)).filter((f): f is string => f !== null && f.endsWith(ext)))];
    const js = sizes(ctx.dist, earlyFiles('.js'));
    const css = sizes(ctx.dist, earlyFiles('.css'));
    const htmlFile = toFile(timings.navigation.name);
    if (!htmlFile) throw new Error(`no dist file for the document ${timings.navigation.name}`);
    const html = sizes(ctx.dist, [htmlFile]);
    if (js.files.length === 0) throw new Error('no JS response started before first paint: is the build empty?');

    const allJs = sizes(
      ctx.dist,
      listFiles(ctx.dist)
        .map((f) => relative(ctx.dist, f).split(sep).join('/'))
        .filter((f) => f.endsWith('.js')),
    );

    const earlyHow = (kind: string, n: number) =>
      `gzip -9 (zlib) of the dist/ files of the ${n} ${kind} response(s) with responseStart ≤ first-contentful-paint; one cold load`;
    const results: BenchResult[] = [
      { name: 'JS before first paint (gzip)', value: kib(js.gzip), unit: 'KiB', how: earlyHow('JS', js.files.length), detail: { files: js.files } },
      { name: 'JS before first paint (raw)', value: kib(js.raw), unit: 'KiB', how: 'same files, uncompressed' },
      { name: 'JS files before first paint', value: js.files.length, unit: 'files', how: 'entry chunk plus its static imports and modulepreloads' },
      { name: 'CSS before first paint (gzip)', value: kib(css.gzip), unit: 'KiB', how: earlyHow('CSS', css.files.length), detail: { files: css.files } },
      { name: 'CSS before first paint (raw)', value: kib(css.raw), unit: 'KiB', how: 'same files, uncompressed' },
      { name: 'HTML document (gzip)', value: kib(html.gzip), unit: 'KiB', how: 'gzip -9 of dist/index.html (the navigation response)' },
      {
        name: 'All JS in dist (gzip)',
        value: kib(allJs.gzip),
        unit: 'KiB',
        how: `context, not shipped up front: all ${allJs.files.length} .js files in dist/ (lazy chunks, workers, sw.js), each gzipped -9`,
        detail: { files: allJs.files },
      },
      { name: 'All JS in dist (raw)', value: kib(allJs.raw), unit: 'KiB', how: 'same files, uncompressed' },
      {
        name: 'First contentful paint',
        value: cutoff,
        unit: 'ms',
        how: `${fcp !== undefined ? 'first-contentful-paint' : 'first-paint'} entry of the same cold load (single sample)`,
        detail: { firstPaint: fp ?? null, firstContentfulPaint: fcp ?? null },
      },
    ];
    return results;
  },
};
