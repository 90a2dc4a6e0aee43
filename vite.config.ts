import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { readBuildInfo } from './build/build-info.ts';
import { compileHintsPlugin } from './build/compile-hints-plugin.ts';
import { pwaPlugin } from './build/pwa-plugin.ts';
import { buildCsp } from './src/core/security/csp.ts';

const root = fileURLToPath(new URL('.', import.meta.url));
const buildInfo = readBuildInfo(root);

/**
 * Base path. The default `./` makes every URL relative, so one build works
 * from any folder of any static server. Set NEUROEVAL_BASE to an absolute
 * path such as `/neuroeval/` (GitHub Pages project sites) to pin it.
 */
function basePath(): string {
  const base = process.env.NEUROEVAL_BASE ?? './';
  if (base !== './' && (!base.startsWith('/') || !base.endsWith('/'))) {
    throw new Error(`NEUROEVAL_BASE must be "./" or start and end with "/", got "${base}"`);
  }
  return base;
}

/** Extra origins the built app may connect to (space-separated), e.g. an on-prem model mirror. */
function extraConnectSrc(): string[] {
  return (process.env.NEUROEVAL_CONNECT_SRC ?? '').split(/\s+/).filter(Boolean);
}

/** Puts the CSP into index.html at build time (the dev server needs inline scripts, so not there). */
function cspPlugin(): Plugin {
  return {
    name: 'neuroeval-csp',
    apply: 'build',
    transformIndexHtml(html) {
      const csp = buildCsp({ connectSrc: extraConnectSrc() });
      return html.replace('<!--CSP-->', `<meta http-equiv="Content-Security-Policy" content="${csp}" />`);
    },
  };
}

/** Headers our own servers send; the service worker adds the same ones on static hosts. */
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  base: basePath(),
  plugins: [
    svelte(),
    cspPlugin(),
    // The results page's code, loaded when the app is idle: compiled then, not on its first open.
    compileHintsPlugin(['ResultsView']),
    pwaPlugin({ swSource: `${root}src/service-worker/sw.ts`, buildInfo }),
  ],
  define: {
    __APP_VERSION__: JSON.stringify(buildInfo.version),
    __APP_COMMIT__: JSON.stringify(buildInfo.commit),
    __APP_BUILT_AT__: JSON.stringify(buildInfo.builtAt),
  },
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    sourcemap: false,
    // Workers and wasm are split out; the shell itself stays small.
    chunkSizeWarningLimit: 1024,
  },
  server: { headers: isolationHeaders },
  preview: { headers: isolationHeaders },
});
