/**
 * The production build served together with a seed page that can fill the
 * app's own database with a large generated run (test/bench/pages/seed-results.ts,
 * bundled here with esbuild): the results-page bench and the documentation
 * screenshots use it. Same origin as the app, so the app reads those rows.
 */
import { build } from 'esbuild';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve.mjs';

export interface SeededServer {
  /** Base URL of the app (ends with `/`); the seed page is `${url}bench-seed.html`. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startSeededServer(dist: string, repoRoot: string): Promise<SeededServer> {
  const root = mkdtempSync(join(tmpdir(), 'neuroeval-seeded-'));
  try {
    cpSync(dist, root, { recursive: true });
    await build({ entryPoints: [join(repoRoot, 'test/bench/pages/seed-results.ts')], bundle: true, format: 'esm', outfile: join(root, 'bench-seed.js'), platform: 'browser', logLevel: 'warning' });
    writeFileSync(join(root, 'bench-seed.html'), '<!doctype html><meta charset="utf-8"><title>seed</title><script type="module" src="./bench-seed.js"></script>');
    const server = await startServer({ root });
    return {
      url: server.url,
      async close() {
        await server.close();
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
}
