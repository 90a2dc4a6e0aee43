/**
 * The benchmark of a CLI run, read with the app's own import pipeline (the
 * same as `neuroeval validate`): a bundle ZIP or folder, or any input an
 * importer reads. Nothing is stored; the cases and image bytes stay in memory.
 */
import { existsSync } from 'node:fs';
import { prepareImport } from '../../core/importers/import-pipeline.ts';
import type { Bundle } from '../../core/bundle/types.ts';
import { formatLocation, InvalidInputError } from '../../core/errors.ts';
import { sha256Hex } from '../../core/hash/sha256.ts';
import { transformsPixels, variantImage } from '../../core/imaging/variant-image.ts';
import { decodePng, simplifyChannels } from '../../core/imaging/degrade/pixels.ts';
import { sniffImageType } from '../../core/imaging/sniff.ts';
import type { ImageLoader } from '../../core/runner/types.ts';
import { inputFilesFrom } from '../files.ts';

export interface BenchmarkInput {
  readonly targets: readonly string[];
  readonly format?: string;
  readonly options?: Readonly<Record<string, unknown>>;
}

/** Reads the benchmark; throws with the import's errors (file, line, field) when it would not import. */
export async function loadBenchmark(input: BenchmarkInput): Promise<Bundle> {
  for (const t of input.targets) if (!existsSync(t)) throw new InvalidInputError(`--benchmark ${t}: no such file or folder.`, { file: t });
  const files = input.targets.flatMap((t) => inputFilesFrom(t));
  const preview = await prepareImport(files, { ...(input.format ? { kind: input.format } : {}), ...(input.options ? { options: input.options } : {}) });
  if (!preview.ok || !preview.bundle) {
    const lines = preview.errors.slice(0, 10).map((e) => `  ${formatLocation(e.location) ? `${formatLocation(e.location)}: ` : ''}${e.message}`);
    throw new InvalidInputError(`--benchmark ${input.targets.join(' ')}: the benchmark would not import (${preview.errors.length} error(s)):\n${lines.join('\n')}`);
  }
  return preview.bundle;
}

/**
 * Image bytes by SHA-256, with the variant transforms the app's runner worker
 * applies. PNG degrades to the same bytes as in the browser; other formats
 * need a browser's decoders, so their degraded variants fail item by item.
 */
export function bundleImageLoader(bundle: Bundle): ImageLoader {
  const byHash = new Map<string, { bytes: Uint8Array; mime: string }>();
  for (const c of bundle.cases) {
    for (const img of c.images) {
      const bytes = bundle.images.get(img.path);
      if (img.sha256 && bytes) byHash.set(img.sha256, { bytes, mime: img.mime ?? 'application/octet-stream' });
    }
  }
  return async (sha256, variant) => {
    const asset = byHash.get(sha256);
    if (!asset) throw new InvalidInputError(`Image ${sha256.slice(0, 12)}… is not in the benchmark.`);
    if (!transformsPixels(variant)) return { bytes: asset.bytes, mime: asset.mime, sha256 };
    if (sniffImageType(asset.bytes) !== 'png') {
      throw new InvalidInputError(`Variant ${variant} of a ${asset.mime} image needs a browser's image decoder; the command line transforms PNG images only.`);
    }
    const out = variantImage(simplifyChannels(decodePng(asset.bytes)), variant, sha256);
    return { bytes: out.bytes, mime: out.mime, sha256: sha256Hex(out.bytes) };
  };
}
