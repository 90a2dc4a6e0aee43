/**
 * The layers of the code in src/ and workers/, lowest first. A file may import
 * files of its own layer and of layers below it, never above: the words
 * everything shares sit at the bottom, storage and the realms that wire it up
 * sit above the logic they store, pages on top. `npm run lint` enforces this
 * twice: the ESLint rule `neuroeval/layers` (eslint.config.js) on each import
 * as it is written, and `scripts/import-graph.ts --check` on the whole graph
 * (upward imports and circles between folders). docs/architecture.md draws it.
 *
 * A path names a folder (everything under it) or a file; the longest match
 * wins, so a file can sit in another layer than its folder.
 */
export const LAYERS = [
  { name: 'model', paths: ['src/core/model'], what: 'the shared words: answers, ids, progress, reviews, criteria, planes, intervals; imports nothing' },
  {
    name: 'ground',
    paths: ['src/core/errors.ts', 'src/core/random', 'src/core/python', 'src/core/text', 'src/core/security', 'src/core/chat', 'src/core/env', 'src/core/hash', 'src/core/rpc', 'src/core/criteria'],
    what: 'typed errors and tools that know nothing of benchmarks: text, hashing, Python semantics, chat turns, the worker contract, criteria parsing',
  },
  { name: 'media', paths: ['src/core/imaging', 'src/core/engines', 'src/core/models'], what: 'images (DICOM, NIfTI, codecs, degradations) and the engines that run models' },
  { name: 'benchmarks', paths: ['src/core/bundle', 'src/core/demo'], what: 'the bundle format, its importers and the demo benchmark' },
  { name: 'protocols', paths: ['src/core/protocols'], what: 'what each protocol asks and how it parses the answer' },
  { name: 'runner', paths: ['src/core/runner'], what: 'planning and driving a run over engines, behind a store interface' },
  { name: 'scoring', paths: ['src/core/scoring'], what: 'metrics, statistics, the benchmarks’ own evaluators and run scoring' },
  {
    name: 'importers',
    paths: ['src/core/importers'],
    what: 'reading other formats into bundles, which checks that what they import can be scored',
  },
  { name: 'results', paths: ['src/core/results', 'src/core/readers', 'src/core/interchange'], what: 'leaderboards, comparisons, safety, reports, reader studies and other harnesses’ formats: pure, no repository' },
  { name: 'storage', paths: ['src/core/db', 'src/core/stored'], what: 'the database adapter, and the code that reads and writes through its repositories' },
  { name: 'realms', paths: ['workers', 'src/lib', 'src/cli'], what: 'the workers, the page’s wiring to them and to storage, and the command line' },
  { name: 'ui', paths: ['src/features', 'src/app', 'src/smoke', 'src/service-worker', 'src/App.svelte', 'src/main.ts', 'src/vite-env.d.ts'], what: 'pages, the shell and the service worker' },
];

/**
 * Upward imports kept on purpose, each with its reason (docs/architecture.md
 * lists them too). `from` and `to` are paths from the repository root.
 */
export const ALLOWED_UPWARD = [];

/** The layer index of a repository-relative path, or -1 when no layer holds it. */
export function layerIndex(path) {
  let best = -1;
  let bestLength = -1;
  LAYERS.forEach((layer, i) => {
    for (const p of layer.paths) {
      if ((path === p || path.startsWith(`${p}/`)) && p.length > bestLength) {
        best = i;
        bestLength = p.length;
      }
    }
  });
  return best;
}

/** Why an import from `from` to `to` (repository-relative paths) breaks the layering; null when it does not. */
export function layerViolation(from, to) {
  const a = layerIndex(from);
  const b = layerIndex(to);
  if (a < 0 || b < 0) return null;
  if (a === 0 && b !== 0) return `${from} is in the model layer, which imports nothing outside it (${to})`;
  if (b <= a) return null;
  if (ALLOWED_UPWARD.some((x) => x.from === from && x.to === to)) return null;
  return `${from} (layer "${LAYERS[a].name}") imports ${to} (layer "${LAYERS[b].name}", above it)`;
}
