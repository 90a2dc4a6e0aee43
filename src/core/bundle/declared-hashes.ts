/**
 * A bundle's cases may declare each image's SHA-256 (an exported bundle
 * always does). A file that no longer matches was changed or swapped after
 * the bundle was made, so it is refused with the line that declared it,
 * never silently re-hashed: a relabelled bundle only changes the content
 * hash (a warning), but a swapped image changes what the model is shown.
 */
import { sha256Hex } from '../hash/sha256.ts';
import type { ImportIssue } from './importer.ts';
import type { BenchCase } from './types.ts';

/** A validated case and the line of cases.jsonl it came from. */
export interface CaseAtLine {
  readonly case: BenchCase;
  readonly line: number;
}

/**
 * The refusals, and every hash computed on the way (keyed by the bytes
 * hashed), which the draft hands on so finalize.ts does not hash them again.
 */
export function checkDeclaredImageHashes(
  cases: readonly CaseAtLine[],
  images: ReadonlyMap<string, Uint8Array>,
  file: string,
): { issues: ImportIssue[]; hashes: Map<Uint8Array, string> } {
  const issues: ImportIssue[] = [];
  const hashes = new Map<Uint8Array, string>();
  for (const { case: c, line } of cases) {
    c.images.forEach((img, i) => {
      const bytes = images.get(img.path);
      if (!img.sha256 || !bytes) return;
      let hash = hashes.get(bytes);
      if (hash === undefined) {
        hash = sha256Hex(bytes);
        hashes.set(bytes, hash);
      }
      if (hash === img.sha256) return;
      issues.push({
        severity: 'error',
        message: `${img.path} does not match the SHA-256 declared for it (declared ${img.sha256.slice(0, 12)}…, the file hashes to ${hash.slice(0, 12)}…): the image was changed or replaced after the bundle was made.`,
        location: { file, line, field: `images[${i}].sha256` },
      });
    });
  }
  return { issues, hashes };
}
