/**
 * Vite plugin that writes `sw.js` after the build: it lists every file in the
 * output folder (so wasm, worker chunks and public files are all precached),
 * hashes each one, and inlines that manifest into the transpiled service worker.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { transformWithOxc, type Plugin, type ResolvedConfig } from 'vite';
import type { BuildInfo } from './build-info.ts';

export interface PwaPluginOptions {
  readonly swSource: string;
  readonly buildInfo: BuildInfo;
}

/** Files that must not be precached: the worker itself and source maps. */
const SKIP = [/^sw\.js$/, /\.map$/];

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listFiles(full));
    else out.push(full);
  }
  return out;
}

export function pwaPlugin(options: PwaPluginOptions): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'neuroeval-pwa',
    apply: 'build',
    configResolved(c) {
      config = c;
    },
    async closeBundle() {
      const outDir = config.build.outDir;
      const entries = listFiles(outDir)
        .map((file) => {
          const url = relative(outDir, file).split(sep).join('/');
          const bytes = readFileSync(file);
          return { url, rev: createHash('sha256').update(bytes).digest('hex').slice(0, 16), bytes: bytes.length };
        })
        .filter((e) => !SKIP.some((re) => re.test(e.url)))
        .sort((a, b) => a.url.localeCompare(b.url));
      const buildId = createHash('sha256')
        .update(JSON.stringify(entries.map((e) => [e.url, e.rev])))
        .digest('hex')
        .slice(0, 16);
      const manifest = { buildId, version: options.buildInfo.version, commit: options.buildInfo.commit, entries };
      const source = readFileSync(options.swSource, 'utf8');
      const js = await transformWithOxc(source, options.swSource, { lang: 'ts' });
      // The worker is registered as a classic script, so the module marker must go.
      const classic = js.code.replace(/^export\s*\{\s*\};?\s*$/m, '');
      const code = classic.replace('__PRECACHE_MANIFEST__', JSON.stringify(manifest));
      if (code === classic) throw new Error('pwa-plugin: manifest placeholder not found in the service worker');
      writeFileSync(join(outDir, 'sw.js'), code);
      writeFileSync(join(outDir, 'precache-manifest.json'), JSON.stringify(manifest, null, 2));
    },
  };
}
