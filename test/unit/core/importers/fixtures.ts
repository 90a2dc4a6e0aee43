/** Shared inputs for the importer tests: stand-in images and the real NeuroVLM-Bench reference files. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { memoryFile, type ImportDraft, type ImportIssue, type InputFile } from '../../../../src/core/bundle/importer.ts';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';

/**
 * Files of the public ChatMED/neurovlm-bench repository (image_mapping.csv, subset_sample.csv,
 * few_shot_examples.csv, the prompt), kept beside this repository at ../shared/reference/neurovlm-bench.
 */
export const NVB_DIR = new URL('../../../../../shared/reference/neurovlm-bench/', import.meta.url);

/** Bytes of a reference file (never copied into the repository). */
export function reference(name: string): Uint8Array {
  return new Uint8Array(readFileSync(fileURLToPath(new URL(name, NVB_DIR))));
}

/** A reference file as an input at `path` (default: its own name). */
export function referenceFile(name: string, path = name): InputFile {
  return memoryFile(path, reference(name));
}

/** A small valid PNG; `seed` changes the pixels so images differ. */
export function png(seed = 0, size = 4): Uint8Array {
  const pixels = new Uint8Array(size * size);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 37 + seed * 11) & 0xff;
  return encodePng(pixels, size, size);
}

export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

export function errors(draft: ImportDraft): ImportIssue[] {
  return draft.issues.filter((i) => i.severity === 'error');
}

export function warnings(draft: ImportDraft): ImportIssue[] {
  return draft.issues.filter((i) => i.severity === 'warning');
}

/** 1-based line of the first occurrence of `needle` in `text`. */
export function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`not found: ${needle}`);
  return text.slice(0, at).split('\n').length;
}

/** 1-based line of the last occurrence of `needle` in `text`. */
export function lastLineOf(text: string, needle: string): number {
  const at = text.lastIndexOf(needle);
  if (at < 0) throw new Error(`not found: ${needle}`);
  return text.slice(0, at).split('\n').length;
}
