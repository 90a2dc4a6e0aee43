/**
 * Does a model folder hold what a catalogue entry loads, laid out where the
 * runtime reads it? Checked on the relative paths alone (no bytes), so the
 * same rules serve the Models page's folder import and `npm run smoke:real`
 * before anything is copied or loaded: a user learns "onnx/x.onnx is
 * missing" at once, not as an opaque runtime error minutes later.
 */
import type { CatalogueEntry, ModelSourceFile } from '../engines/catalogue.ts';

/** The top file of a WebLLM (MLC) model folder. */
export const MLC_CONFIG = 'mlc-chat-config.json';
/** WebLLM's weight index; older MLC builds name it ndarray-cache.json. */
const MLC_CACHE_FILES = ['tensor-cache.json', 'ndarray-cache.json'] as const;

export type FolderProblemKind = 'missing-file' | 'wrong-runtime' | 'nested' | 'misplaced' | 'model-library';

export interface FolderProblem {
  readonly kind: FolderProblemKind;
  /** The file (relative to the folder) the problem is about. */
  readonly file: string;
  readonly message: string;
}

/** The files an MLC folder's weight index names (`records[].dataPath`), or null when the index is unreadable. */
export function mlcShardPaths(tensorCacheJson: string): string[] | null {
  try {
    const records = (JSON.parse(tensorCacheJson) as { records?: { dataPath?: unknown }[] }).records;
    if (!Array.isArray(records)) return null;
    return records.map((r) => r.dataPath).filter((p): p is string => typeof p === 'string');
  } catch {
    return null;
  }
}

/** The single subfolder holding `marker`, when the user picked the folder one level too high. */
function nestedRoot(paths: ReadonlySet<string>, marker: string): string | null {
  const roots = [...paths].filter((p) => p.endsWith(`/${marker}`) && p.split('/').length === 2).map((p) => p.split('/')[0]!);
  return roots.length === 1 ? roots[0]! : null;
}

/**
 * What is wrong with a folder for `entry`, first problem first; empty when it
 * fits. `paths` are relative to the model's folder (`onnx/decoder.onnx`).
 * `shards` are the weight files an MLC folder's tensor-cache.json names, when
 * the caller could read it.
 */
export function checkModelFolder(entry: CatalogueEntry, paths: Iterable<string>, shards?: readonly string[] | null): FolderProblem[] {
  const have = new Set(paths);
  const isMlc = have.has(MLC_CONFIG);
  if (entry.runtime === 'webllm') {
    if (!isMlc) {
      const nested = nestedRoot(have, MLC_CONFIG);
      if (nested) return [{ kind: 'nested', file: `${nested}/${MLC_CONFIG}`, message: `${MLC_CONFIG} is one level down, in "${nested}/": choose that folder.` }];
      if (have.has('config.json')) return [{ kind: 'wrong-runtime', file: 'config.json', message: `This is a transformers.js (ONNX) folder, but ${entry.label} runs on WebLLM and needs its MLC build (${MLC_CONFIG}, tensor-cache.json, params_shard_*.bin, the model library .wasm).` }];
      return [{ kind: 'missing-file', file: MLC_CONFIG, message: `${MLC_CONFIG} is missing: a WebLLM model folder holds ${MLC_CONFIG}, tensor-cache.json, params_shard_*.bin, the tokenizer and the model library (.wasm).` }];
    }
    const problems: FolderProblem[] = [];
    if (!MLC_CACHE_FILES.some((f) => have.has(f))) problems.push({ kind: 'missing-file', file: MLC_CACHE_FILES[0], message: `${MLC_CACHE_FILES[0]} is missing: WebLLM reads the weight shards from its index.` });
    for (const shard of shards ?? []) {
      if (!have.has(shard)) problems.push({ kind: 'missing-file', file: shard, message: `${shard} is missing: tensor-cache.json lists it as a weight shard.` });
    }
    const libs = [...have].filter((p) => p.endsWith('.wasm'));
    if (libs.length !== 1) problems.push({ kind: 'model-library', file: libs[0] ?? '*.wasm', message: `The folder must hold exactly one model library (.wasm) built for this WebLLM version; it holds ${libs.length}.` });
    return problems;
  }

  // transformers.js: config.json at the top, ONNX graphs under onnx/.
  if (isMlc) return [{ kind: 'wrong-runtime', file: MLC_CONFIG, message: `This is a WebLLM (MLC) folder, but ${entry.label} runs on transformers.js and needs its ONNX export (config.json, onnx/*.onnx).` }];
  if (!have.has('config.json')) {
    const nested = nestedRoot(have, 'config.json');
    if (nested) return [{ kind: 'nested', file: `${nested}/config.json`, message: `config.json is one level down, in "${nested}/": choose that folder.` }];
  }
  // A file the catalogue marks unverified follows the repository's naming but was not seen on its page: its absence is no proof of a bad folder.
  const listed = entry.source?.files.filter((f) => !f.unverified) ?? [];
  const problems: FolderProblem[] = [];
  const missing = (file: string, alternatives: readonly string[] = []): FolderProblem => {
    const base = file.split('/').pop()!;
    const elsewhere = [...have].find((p) => p !== file && p.split('/').pop() === base);
    const or = alternatives.length ? ` (or ${alternatives.join(', or ')})` : '';
    return elsewhere
      ? { kind: 'misplaced', file, message: `${file} is missing; a file of that name is at ${elsewhere}. transformers.js reads it from ${file}: keep the repository's layout.` }
      : { kind: 'missing-file', file, message: `${file}${or} is missing: ${entry.label} loads ${alternatives.length ? 'one of them' : 'it'}${entry.source ? ` (listed in the catalogue for ${entry.source.repo}@${entry.source.revision.slice(0, 12)})` : ''}.` };
  };
  for (const file of [...new Set(['config.json', ...listed.filter((f) => f.part === 'config' || !f.dtype).map((f) => f.path)])]) {
    if (!have.has(file)) problems.push(missing(file));
  }
  // Weights: each part needs one whole format (WASM's or WebGPU's file); the other device's is optional.
  const byPart = new Map<string, ModelSourceFile[]>();
  for (const f of entry.source?.files ?? []) if (f.part !== 'config' && f.dtype) byPart.set(f.part, [...(byPart.get(f.part) ?? []), f]);
  for (const files of byPart.values()) {
    const formats = [...new Set(files.map((f) => f.dtype!))];
    const whole = (format: string) => files.filter((f) => f.dtype === format).every((f) => f.unverified || have.has(f.path)) && files.some((f) => f.dtype === format && have.has(f.path));
    if (formats.some(whole)) continue;
    if (formats.length === 1) {
      for (const f of files) if (!f.unverified && !have.has(f.path)) problems.push(missing(f.path));
      continue;
    }
    const graphs = formats.map((format) => files.find((f) => f.dtype === format && f.path.endsWith('.onnx'))!.path);
    problems.push(missing(graphs[0]!, graphs.slice(1)));
  }
  return problems;
}
