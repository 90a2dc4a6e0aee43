/**
 * The layering check that `npm run lint` runs: it finds an import that runs up
 * the layers and a circle between folders in a tree written here, ignores an
 * import-shaped line in a comment, and finds neither in the repository itself.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importSpecifiers, readImportGraph, readmeProblems, reportGraph, testMirrorProblems } from '../../../scripts/import-graph.ts';
import { layerViolation } from '../../../scripts/layers.mjs';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

afterAll(removeTempDirs);

function tree(files: Record<string, string>): string {
  const root = makeTempDir('import-graph');
  mkdirSync(join(root, 'workers'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('import graph', () => {
  it('reads static, multi-line, re-export and dynamic imports, and none from comments', () => {
    const specs = importSpecifiers(
      [
        "import { a } from './a.ts';",
        'import {',
        '  b,',
        "} from '../b.ts';",
        "export * from './c.ts';",
        "const d = await import('./d.ts');",
        "// import { e } from './e.ts';",
        "/* import { f } from './f.ts'; */",
        " * import { g } from './g.ts';",
      ].join('\n'),
    );
    expect(specs).toEqual(['./a.ts', '../b.ts', './c.ts', './d.ts']);
  });

  it('names an upward import and a circle across two folders; a circle inside one folder is not one', () => {
    const root = tree({
      // The runner reaching up into storage.
      'src/core/runner/run.ts': "import type { Repo } from '../db/repo.ts';\nexport const run = 1;\n",
      'src/core/db/repo.ts': "import { run } from '../runner/run.ts';\nexport type Repo = typeof run;\n",
      // Two scoring folders importing each other round a loop.
      'src/core/scoring/a/x.ts': "import { y } from '../b/y.ts';\nexport const x = y;\n",
      'src/core/scoring/b/y.ts': "import { x } from '../a/x.ts';\nexport const y = () => x;\n",
      // A loop inside one folder.
      'src/core/text/p.ts': "import { q } from './q.ts';\nexport const p = q;\n",
      'src/core/text/q.ts': "import { p } from './p.ts';\nexport const q = () => p;\n",
    });
    const r = reportGraph(readImportGraph(root));
    expect(r.upward).toEqual([{ from: 'src/core/runner/run.ts', to: 'src/core/db/repo.ts', why: null }]);
    const spanning = r.circles.filter((c) => c.folders.length > 1);
    // runner ↔ db is a circle across folders too.
    expect(spanning.map((c) => c.files)).toEqual(
      expect.arrayContaining([
        ['src/core/scoring/a/x.ts', 'src/core/scoring/b/y.ts'],
        ['src/core/db/repo.ts', 'src/core/runner/run.ts'],
      ]),
    );
    expect(r.circles.filter((c) => c.folders.length === 1).map((c) => c.files)).toEqual([['src/core/text/p.ts', 'src/core/text/q.ts']]);
  });

  it('keeps the model layer importing nothing, and lets a layer import those below it', () => {
    expect(layerViolation('src/core/model/answer.ts', 'src/core/errors.ts')).toMatch(/model layer, which imports nothing/);
    expect(layerViolation('src/core/results/overview.ts', 'src/core/scoring/run/types.ts')).toBeNull();
    expect(layerViolation('src/core/imaging/render.ts', 'src/core/bundle/types.ts')).toMatch(/layer "media"\) imports src\/core\/bundle\/types.ts \(layer "benchmarks"/);
    expect(layerViolation('src/features/runs/x.ts', 'src/core/db/index.ts')).toBeNull();
  });

  it('finds no upward import, no circle across folders and no file outside a layer in the repository', () => {
    const r = reportGraph(readImportGraph());
    expect(r.files).toBeGreaterThan(400);
    expect(r.unplaced).toEqual([]);
    expect(r.upward.filter((u) => u.why === null)).toEqual([]);
    expect(r.upward.length).toBeLessThanOrEqual(3);
    expect(r.circles.filter((c) => c.folders.length > 1)).toEqual([]);
    expect(readmeProblems()).toEqual([]);
    expect(testMirrorProblems()).toEqual([]);
  });

  it('asks every unit test to sit in the folder that mirrors its source', () => {
    const root = tree({
      'src/core/runner/run.ts': '',
      'workers/runtime/x.ts': '',
      'test/unit/core/runner/run.test.ts': '',
      'test/unit/workers/runtime/x.test.ts': '',
      'test/unit/runner/run.test.ts': '',
      'test/unit/top.test.ts': '',
    });
    expect(testMirrorProblems(root)).toEqual([
      'test/unit/runner/run.test.ts mirrors no source folder: move it to test/unit/<the path of what it tests under src/>',
      'test/unit/top.test.ts mirrors no source folder: move it to test/unit/<the path of what it tests under src/>',
    ]);
  });

  it('asks every core folder for a README that names its layer', () => {
    const root = tree({ 'src/core/runner/README.md': '# runner\n\nLayer: runner.\n', 'src/core/hash/README.md': '# hash\n', 'src/core/text/x.ts': '' });
    expect(readmeProblems(root)).toEqual(['src/core/hash/README.md does not say "Layer: ground"', 'src/core/text has no README.md saying what lives there and what it may import']);
  });
});
