/**
 * The benchmark content hash: SHA-256 over the canonical JSON of what a
 * benchmark *is* — manifest fields, cases, and images by the hash of their
 * bytes (not their file names) plus extra files by hash. Two bundles with the
 * same content have the same hash however they were packed, so
 * import(export(x)) keeps the hash, and runs can check they used the same data.
 */
import { sha256Hex } from '../hash/sha256.ts';
import { canonicalJson } from './canonical.ts';
import type { BenchCase, BundleManifest, CaseImage } from './types.ts';

/** Manifest fields that are not content: the hash itself and derived counts. */
type ContentManifest = Omit<BundleManifest, 'contentHash' | 'caseCount' | 'imageCount'>;

/** An image as it enters the hash: its bytes' hash and its labels, without path or derived size. */
function canonicalImage(image: CaseImage): Record<string, unknown> {
  if (!image.sha256) throw new Error(`contentHash: image ${image.path} has no sha256`);
  return { sha256: image.sha256, sequence: image.sequence, plane: image.plane, slice: image.slice, label: image.label, source: image.source };
}

export function computeContentHash(
  manifest: ContentManifest,
  cases: readonly BenchCase[],
  files: ReadonlyArray<{ readonly path: string; readonly sha256: string }>,
): string {
  const content = {
    manifest: {
      format: manifest.format,
      formatVersion: manifest.formatVersion,
      id: manifest.id,
      name: manifest.name,
      version: manifest.version,
      license: manifest.license,
      description: manifest.description,
      synthetic: manifest.synthetic,
      source: manifest.source,
      protocolDefaults: manifest.protocolDefaults,
    },
    cases: [...cases].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((c) => ({ ...c, images: c.images.map(canonicalImage) })),
    files: [...files].sort((a, b) => (a.path < b.path ? -1 : 1)).map((f) => ({ path: f.path, sha256: f.sha256 })),
  };
  return sha256Hex(canonicalJson(content));
}
