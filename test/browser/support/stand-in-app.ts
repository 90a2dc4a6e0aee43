/**
 * The built app with its WebLLM worker replaced by the stand-in
 * (./webllm-stand-in.worker.ts, bundled here with esbuild), served from a
 * temporary copy of dist/ so the service worker precaches it like any build.
 */
import { build } from 'esbuild';
import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type StaticServer } from '../../../scripts/serve.mjs';
import { DIST } from '../../support/fixtures.ts';
import { makeTempDir } from '../../support/temp-dir.ts';

const STAND_IN = new URL('./webllm-stand-in.worker.ts', import.meta.url).pathname;

export async function appWithStandIn(): Promise<StaticServer> {
  const root = makeTempDir('dist-webllm');
  cpSync(DIST, root, { recursive: true });
  const assets = join(root, 'assets');
  const worker = readdirSync(assets).find((f) => /^webllm\.worker-.*\.js$/.test(f));
  if (!worker) throw new Error('The build has no WebLLM worker chunk.');
  const out = await build({ entryPoints: [STAND_IN], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
  writeFileSync(join(assets, worker), out.outputFiles[0]!.text);
  return startServer({ root });
}
