/**
 * Marks chunks for eager compilation with V8's explicit compile hints
 * (Chrome 136+): a file that starts with the magic comment
 * `//# allFunctionsCalledOnLoad` has every function compiled when the file
 * loads, off the main thread while it streams in, instead of each one on the
 * main thread the first time it is called.
 *
 * Why: the results page's code is loaded when the app is idle
 * (app/Shell.svelte), but its functions were still compiled lazily, on the
 * first open, in the tasks that draw the leaderboard and the charts: on a
 * 2-core machine that made those tasks 55–70 ms on the first open after the
 * browser starts (docs/BENCHMARKS.md). Other engines read the line as a
 * plain comment.
 *
 * Added in `generateBundle`, after minification (which would drop it) and
 * before the files are written, so the service worker's precache manifest
 * (build/pwa-plugin.ts, from the written files) hashes what is served.
 */
import type { Plugin } from 'vite';

export const COMPILE_HINT = '//# allFunctionsCalledOnLoad\n';

export function compileHintsPlugin(chunkNames: readonly string[]): Plugin {
  return {
    name: 'neuroeval-compile-hints',
    apply: 'build',
    generateBundle(_options, bundle) {
      const found = new Set<string>();
      for (const file of Object.values(bundle)) {
        if (file.type !== 'chunk' || !chunkNames.includes(file.name)) continue;
        file.code = COMPILE_HINT + file.code;
        found.add(file.name);
      }
      // A page whose chunk was renamed must not silently lose its hint; a build
      // of this config without the page at all (the smoke harness) has nothing to mark.
      const stem = (id: string) => id.replace(/^.*\//, '').replace(/\.[^.]*$/, '');
      const modules = Object.values(bundle).flatMap((f) => (f.type === 'chunk' ? f.moduleIds.map(stem) : []));
      const missing = chunkNames.filter((n) => !found.has(n) && modules.includes(n));
      if (missing.length) this.error(`compile hints: no chunk named ${missing.join(', ')}, though the build has its module: was the chunk renamed?`);
    },
  };
}
