/**
 * Reads NeuroEval bundles: a ZIP, or a folder (or loose files) holding
 * manifest.json, cases.jsonl, images/ and optional prompts/. Paths inside the
 * bundle are relative to the folder that holds manifest.json.
 */
import { InvalidInputError, throwIfAborted } from '../errors.ts';
import { decodeText, extensionOf, type ImportContext, type ImportDraft, type ImportIssue, type Importer, type InputFile } from '../bundle/importer.ts';
import { checkDeclaredImageHashes, type CaseAtLine } from '../bundle/declared-hashes.ts';
import { expandZips } from './support.ts';
import { nonFiniteField, nonFiniteMessage } from '../bundle/json-values.ts';
import { validateCase, validateManifest } from '../bundle/validate.ts';
import type { BenchCase } from '../bundle/types.ts';

/** Finds manifest.json (at the top, or one folder down as when a folder is zipped) and returns the bundle root prefix. */
function bundleRoot(paths: readonly string[]): string | null {
  const manifests = paths.filter((p) => p === 'manifest.json' || p.endsWith('/manifest.json')).sort((a, b) => a.split('/').length - b.split('/').length);
  const top = manifests[0];
  return top === undefined ? null : top.slice(0, top.length - 'manifest.json'.length);
}

export const bundleImporter: Importer = {
  kind: 'neuroeval-bundle',
  label: 'NeuroEval bundle (ZIP or folder)',

  async detect(files) {
    if (bundleRoot(files.map((f) => f.path)) !== null) return 1;
    const zips = files.filter((f) => extensionOf(f.path) === 'zip');
    if (zips.length !== 1 || files.length !== 1) return 0;
    // Look for the manifest's file name in the ZIP's central directory without inflating anything.
    const bytes = await zips[0]!.bytes();
    const tail = decodeText(bytes.subarray(Math.max(0, bytes.length - 65_536 * 4)));
    return tail.includes('manifest.json') ? 0.95 : 0.05;
  },

  async read(inputs: readonly InputFile[], ctx: ImportContext): Promise<ImportDraft> {
    const files = await expandZips(inputs, ctx);
    const root = bundleRoot(files.map((f) => f.path));
    const source = inputs.length === 1 ? inputs[0]!.path : 'the selected folder';
    if (root === null) throw new InvalidInputError('This is not a NeuroEval bundle: manifest.json is missing.', { file: source });
    const byPath = new Map(files.filter((f) => f.path.startsWith(root)).map((f) => [f.path.slice(root.length), f]));

    const manifestFile = byPath.get('manifest.json')!;
    let manifestJson: unknown;
    try {
      manifestJson = JSON.parse(await manifestFile.text());
    } catch (error) {
      throw new InvalidInputError(`manifest.json is not valid JSON: ${error instanceof Error ? error.message : String(error)}`, { file: 'manifest.json' });
    }
    const infinite = nonFiniteField(manifestJson);
    if (infinite !== null) throw new InvalidInputError(`manifest.json: ${nonFiniteMessage(infinite)}`, { file: 'manifest.json', field: infinite });
    const { manifest, issues: manifestIssues } = validateManifest(manifestJson, 'manifest.json');
    const issues: ImportIssue[] = [...manifestIssues];

    const casesFile = byPath.get('cases.jsonl');
    const cases: BenchCase[] = [];
    const casesAtLines: CaseAtLine[] = [];
    if (!casesFile) issues.push({ severity: 'error', message: 'cases.jsonl is missing.', location: { file: 'cases.jsonl' } });
    else {
      const lines = (await casesFile.text()).split('\n');
      for (let i = 0; i < lines.length; i++) {
        if (i % 500 === 0) {
          throwIfAborted(ctx.signal);
          ctx.progress?.({ phase: 'read', done: i, total: lines.length });
        }
        const text = lines[i]!.trim();
        if (!text) continue;
        const location = { file: 'cases.jsonl', line: i + 1 };
        let raw: unknown;
        try {
          raw = JSON.parse(text);
        } catch (error) {
          issues.push({ severity: 'error', message: `Line is not valid JSON: ${error instanceof Error ? error.message : String(error)}`, location });
          continue;
        }
        const infinite = nonFiniteField(raw);
        if (infinite !== null) {
          issues.push({ severity: 'error', message: nonFiniteMessage(infinite), location: { ...location, field: infinite } });
          continue;
        }
        const result = validateCase(raw, location);
        issues.push(...result.issues);
        if (result.case) {
          cases.push(result.case);
          casesAtLines.push({ case: result.case, line: i + 1 });
        }
      }
    }

    const images = new Map<string, Uint8Array>();
    const wanted = new Set(cases.flatMap((c) => c.images.map((i) => i.path)));
    for (const path of wanted) {
      const f = byPath.get(path);
      if (f) images.set(path, await f.bytes());
    }
    const declared = checkDeclaredImageHashes(casesAtLines, images, 'cases.jsonl');
    issues.push(...declared.issues);
    const extra = new Map<string, Uint8Array>();
    for (const [path, f] of byPath) {
      if (path !== 'manifest.json' && path !== 'cases.jsonl' && !wanted.has(path) && !path.startsWith('images/')) extra.set(path, await f.bytes());
    }
    const declaredHash = manifest?.contentHash;
    const { contentHash: _h, caseCount: _c, imageCount: _i, format: _f, formatVersion: _v, ...draftManifest } = manifest ?? {
      id: 'invalid',
      name: 'invalid',
      version: '0',
      license: 'unknown',
      contentHash: '',
      caseCount: 0,
      imageCount: 0,
      format: 'neuroeval-bundle' as const,
      formatVersion: 1 as const,
    };
    return { manifest: draftManifest, cases, images, files: extra, issues, skipped: [], knownHashes: declared.hashes, ...(declaredHash ? { declaredContentHash: declaredHash } : {}) };
  },
};
