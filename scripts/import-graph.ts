/**
 * The import graph of src/ and workers/, counted from the code's own imports:
 * files, imports between them, imports that run up the layers of
 * scripts/layers.mjs, and circles (files that import each other round a loop).
 *
 *   npx tsx scripts/import-graph.ts            prints the counts and every finding
 *   npx tsx scripts/import-graph.ts --check    the same, and fails on an upward
 *                                              import not allowed in layers.mjs, a
 *                                              circle spanning two folders, a file
 *                                              no layer holds, a core folder whose
 *                                              README does not name its layer, or a
 *                                              unit test whose folder mirrors no
 *                                              source folder
 *
 * `npm run lint` runs the check, so CI does.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALLOWED_UPWARD, LAYERS, layerIndex, layerViolation } from './layers.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = ['src', 'workers'];
const SOURCE = /\.(ts|mts|js|mjs|svelte)$/;

export interface ImportGraph {
  readonly files: readonly string[];
  /** `from` → the files it imports (repository-relative paths). */
  readonly edges: ReadonlyMap<string, ReadonlySet<string>>;
}

function walk(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.test(name)) out.push(path);
  }
  return out;
}

/**
 * Import specifiers of a file: static imports and re-exports (also over
 * several lines) and `import('…')`. Comments are blanked first, so an
 * import-shaped line in a comment draws no arrow.
 */
export function importSpecifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' ')).replace(/^\s*\/\/.*$/gm, '');
  const out: string[] = [];
  for (const m of code.matchAll(/^\s*(?:import|export)\b[^;'"`]*?\bfrom\s*['"]([^'"]+)['"]/gm)) out.push(m[1]!);
  for (const m of code.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)) out.push(m[1]!);
  for (const m of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  return out;
}

/** The repository file a relative specifier names, or null (a package, or a file that does not exist). */
function resolveSpecifier(root: string, from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = resolve(root, dirname(from), spec.split('?')[0]!);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate);
  }
  return null;
}

export function readImportGraph(root = ROOT): ImportGraph {
  const files = SOURCE_DIRS.flatMap((d) => walk(join(root, d), [])).map((f) => relative(root, f)).sort();
  const edges = new Map<string, Set<string>>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const spec of importSpecifiers(readFileSync(join(root, file), 'utf8'))) {
      const target = resolveSpecifier(root, file, spec);
      if (target && target !== file) targets.add(target);
    }
    edges.set(file, targets);
  }
  return { files, edges };
}

/** Strongly connected components with more than one file (Tarjan's algorithm): each is a circle of imports. */
export function circles(graph: ImportGraph): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.edges.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const f of graph.files) if (!indexOf.has(f)) visit(f);
  return found;
}

export interface GraphReport {
  readonly files: number;
  readonly imports: number;
  /** Files no layer holds. */
  readonly unplaced: readonly string[];
  /** Upward imports, allowed ones included (with their reason). */
  readonly upward: readonly { readonly from: string; readonly to: string; readonly why: string | null }[];
  readonly circles: readonly { readonly files: readonly string[]; readonly folders: readonly string[] }[];
}

/** Folders of src/core whose README.md is missing or does not name the folder's layer (`Layer: <name>`). */
export function readmeProblems(root = ROOT): string[] {
  const core = join(root, 'src/core');
  const problems: string[] = [];
  for (const name of readdirSync(core).sort()) {
    if (!statSync(join(core, name)).isDirectory()) continue;
    const layer = LAYERS[layerIndex(`src/core/${name}`)];
    const readme = join(core, name, 'README.md');
    if (!existsSync(readme)) problems.push(`src/core/${name} has no README.md saying what lives there and what it may import`);
    else if (layer && !readFileSync(readme, 'utf8').includes(`Layer: ${layer.name}`)) problems.push(`src/core/${name}/README.md does not say "Layer: ${layer.name}"`);
  }
  return problems;
}

/**
 * Unit tests whose folder mirrors no source folder: `test/unit/<path>` tests
 * `src/<path>`, or `<path>` for the folders outside src (workers, scripts,
 * build), or `test/<path>` for the bench's own code (test/bench).
 */
export function testMirrorProblems(root = ROOT): string[] {
  const tests = walk(join(root, 'test/unit'), []).map((f) => relative(root, f)).filter((f) => f.endsWith('.test.ts'));
  return tests
    .filter((t) => {
      const folder = dirname(relative('test/unit', t));
      return ![join('src', folder), folder, join('test', folder)].some((d) => folder !== '.' && existsSync(join(root, d)) && statSync(join(root, d)).isDirectory() && !d.startsWith('test/unit'));
    })
    .sort()
    .map((t) => `${t} mirrors no source folder: move it to test/unit/<the path of what it tests under src/>`);
}

export function reportGraph(graph: ImportGraph): GraphReport {
  const upward: { from: string; to: string; why: string | null }[] = [];
  let imports = 0;
  for (const [from, targets] of graph.edges) {
    for (const to of targets) {
      imports++;
      const a = layerIndex(from);
      const b = layerIndex(to);
      if (a < 0 || b < 0) continue;
      const allowed = ALLOWED_UPWARD.find((x: { from: string; to: string }) => x.from === from && x.to === to) as { why: string } | undefined;
      if (allowed) upward.push({ from, to, why: allowed.why });
      else if (layerViolation(from, to)) upward.push({ from, to, why: null });
    }
  }
  return {
    files: graph.files.length,
    imports,
    unplaced: graph.files.filter((f) => layerIndex(f) < 0),
    upward,
    circles: circles(graph).map((files) => ({ files, folders: [...new Set(files.map((f) => dirname(f)))].sort() })),
  };
}

function main(): void {
  const check = process.argv.includes('--check');
  const r = reportGraph(readImportGraph());
  const problems: string[] = [];
  console.log(`${r.files} files, ${r.imports} imports between them, ${LAYERS.length} layers (scripts/layers.mjs).`);
  const allowed = r.upward.filter((u) => u.why !== null);
  const wrong = r.upward.filter((u) => u.why === null);
  console.log(`Upward imports: ${r.upward.length} (${allowed.length} allowed with a reason).`);
  for (const u of allowed) console.log(`  allowed: ${u.from} -> ${u.to}: ${u.why}`);
  for (const u of wrong) problems.push(`upward import: ${layerViolation(u.from, u.to)}`);
  const spanning = r.circles.filter((c) => c.folders.length > 1);
  console.log(`Circles: ${r.circles.length} (${spanning.length} spanning more than one folder).`);
  for (const c of r.circles.filter((x) => x.folders.length === 1)) console.log(`  within ${c.folders[0]}: ${c.files.join(', ')}`);
  for (const c of spanning) problems.push(`circle across ${c.folders.join(', ')}: ${c.files.join(', ')}`);
  for (const f of r.unplaced) problems.push(`no layer holds ${f}: add its folder to scripts/layers.mjs`);
  problems.push(...readmeProblems());
  problems.push(...testMirrorProblems());
  for (const p of problems) console.log(`  ${p}`);
  if (check && problems.length) {
    console.error(`import-graph: ${problems.length} problem(s); see docs/architecture.md for the layers.`);
    process.exit(1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
