import { describe, expect, it } from 'vitest';
import { COMPILE_HINT, compileHintsPlugin } from '../../../build/compile-hints-plugin.ts';

type Chunk = { type: 'chunk'; name: string; fileName: string; code: string; moduleIds: string[] } | { type: 'asset'; name: string; fileName: string; source: string };

/** Runs the plugin's generateBundle over a made-up bundle, as Vite would after minifying. */
function generate(names: readonly string[], bundle: Record<string, Chunk>): void {
  const hook = compileHintsPlugin(names).generateBundle as unknown as (this: { error(m: string): never }, o: object, b: Record<string, Chunk>) => void;
  hook.call({ error: (m: string) => { throw new Error(m); } }, {}, bundle);
}

describe('compile hints build plugin', () => {
  it('puts the magic comment on the first line of the named chunks only, and leaves their code as it was after it', () => {
    const bundle: Record<string, Chunk> = {
      'assets/ResultsView-abc.js': { type: 'chunk', name: 'ResultsView', fileName: 'assets/ResultsView-abc.js', code: 'import{a}from"./x.js";export{a};', moduleIds: ['/app/src/features/results/ResultsView.svelte'] },
      'assets/index-def.js': { type: 'chunk', name: 'index', fileName: 'assets/index-def.js', code: 'console.log(1);', moduleIds: ['/app/src/main.ts'] },
      'assets/ResultsView-abc.css': { type: 'asset', name: 'ResultsView', fileName: 'assets/ResultsView-abc.css', source: '.a{}' },
    };
    generate(['ResultsView'], bundle);
    const results = bundle['assets/ResultsView-abc.js'] as Extract<Chunk, { type: 'chunk' }>;
    // V8 reads the hint only as the file's very first line.
    expect(results.code.split('\n')[0]).toBe('//# allFunctionsCalledOnLoad');
    expect(results.code).toBe(`${COMPILE_HINT}import{a}from"./x.js";export{a};`);
    expect((bundle['assets/index-def.js'] as Extract<Chunk, { type: 'chunk' }>).code).toBe('console.log(1);');
    expect((bundle['assets/ResultsView-abc.css'] as Extract<Chunk, { type: 'asset' }>).source).toBe('.a{}');
  });

  it('fails the build, naming the chunk, when the page is built into a chunk of another name (a renamed chunk would lose its hint silently)', () => {
    const bundle: Record<string, Chunk> = { 'assets/index-def.js': { type: 'chunk', name: 'index', fileName: 'assets/index-def.js', code: '', moduleIds: ['/app/src/main.ts', '/app/src/features/results/ResultsView.svelte'] } };
    expect(() => generate(['ResultsView'], bundle)).toThrow(/no chunk named ResultsView/);
  });

  it('leaves a build of the same config without the page alone (the smoke harness)', () => {
    const bundle: Record<string, Chunk> = { 'assets/index-def.js': { type: 'chunk', name: 'index', fileName: 'assets/index-def.js', code: 'x', moduleIds: ['/app/src/smoke/main.ts'] } };
    generate(['ResultsView'], bundle);
    expect((bundle['assets/index-def.js'] as Extract<Chunk, { type: 'chunk' }>).code).toBe('x');
  });
});
