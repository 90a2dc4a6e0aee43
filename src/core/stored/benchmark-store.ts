/**
 * Moves bundles in and out of the database. Images and extra files are
 * stored once each as content-addressed assets; a benchmark, its cases and
 * its new assets are written in one transaction.
 */
import type { Repositories } from '../db/index.ts';
import type { AssetRecord, BenchmarkRecord, CaseRecord } from '../bundle/records.ts';
import { NeuroEvalError } from '../errors.ts';
import { sha256Hex } from '../hash/sha256.ts';
import { conflictError } from '../importers/import-pipeline.ts';
import { describeDifference, storedDifference } from '../bundle/stored-difference.ts';
import { neutralImagePath } from '../bundle/neutral-names.ts';
import type { BenchCase, Bundle } from '../bundle/types.ts';

export interface CommitResult {
  readonly benchmarkId: string;
  /** True when the same content was already stored: nothing was written. */
  readonly alreadyStored: boolean;
  readonly cases: number;
  readonly newAssets: number;
  /** Bytes of new assets written (for the persistent-storage request). */
  readonly bytesWritten: number;
}


/** Stores a finished bundle. With `asCopy`, a benchmark whose id is taken gets a new id instead of failing. */
export async function commitBundle(repos: Repositories, bundle: Bundle, options: { asCopy?: boolean; now?: number; keySalt?: string } = {}): Promise<CommitResult> {
  const manifest = bundle.manifest;
  let id = manifest.id;
  const existing = await repos.benchmarks.get(id);
  if (existing) {
    if (existing.contentHash === manifest.contentHash) {
      return { benchmarkId: id, alreadyStored: true, cases: existing.caseCount, newAssets: 0, bytesWritten: 0 };
    }
    if (!options.asCopy) {
      const difference = storedDifference(existing, await repos.cases.listByBenchmark(id), bundle);
      throw conflictError(id, existing.name, describeDifference(difference));
    }
    id = `${manifest.id}-${manifest.contentHash.slice(0, 8)}`;
    if (await repos.benchmarks.get(id)) return { benchmarkId: id, alreadyStored: true, cases: manifest.caseCount, newAssets: 0, bytesWritten: 0 };
  }
  const now = options.now ?? Date.now();
  const mimeOf = new Map<string, string>();
  for (const c of bundle.cases) for (const img of c.images) if (img.sha256 && img.mime) mimeOf.set(img.sha256, img.mime);

  const candidates: AssetRecord[] = [];
  for (const c of bundle.cases) {
    for (const img of c.images) {
      const bytes = bundle.images.get(img.path);
      if (!bytes || !img.sha256) throw new NeuroEvalError('INTERNAL', `Image ${img.path} of case ${c.id} was not prepared for storage.`);
      candidates.push({ sha256: img.sha256, blob: new Blob([bytes as BlobPart], { type: img.mime ?? 'application/octet-stream' }), mime: img.mime ?? 'application/octet-stream', ...(img.width ? { width: img.width } : {}), ...(img.height ? { height: img.height } : {}), bytes: bytes.length, createdAt: now });
    }
  }
  const files = [...bundle.files].map(([path, bytes]) => ({ path, sha256: sha256Hex(bytes), bytes }));
  for (const f of files) candidates.push({ sha256: f.sha256, blob: new Blob([f.bytes as BlobPart]), mime: 'application/octet-stream', bytes: f.bytes.length, createdAt: now });

  const unique = new Map(candidates.map((a) => [a.sha256, a]));
  const missing = new Set(await repos.assets.missing([...unique.keys()]));
  const assets = [...unique.values()].filter((a) => missing.has(a.sha256));

  const record: BenchmarkRecord = {
    id,
    name: manifest.name,
    version: manifest.version,
    license: manifest.license,
    description: manifest.description ?? '',
    contentHash: manifest.contentHash,
    source: manifest.source?.kind ?? 'neuroeval-bundle',
    synthetic: manifest.synthetic === true,
    caseCount: bundle.cases.length,
    createdAt: now,
    manifest,
    files: files.map(({ path, sha256 }) => ({ path, sha256 })),
    ...(options.keySalt ? { keySalt: options.keySalt } : {}),
  };
  const cases: CaseRecord[] = bundle.cases.map((c) => ({ ...c, benchmarkId: id }));
  await repos.benchmarks.putWithContent(record, cases, assets);
  return { benchmarkId: id, alreadyStored: false, cases: cases.length, newAssets: assets.length, bytesWritten: assets.reduce((n, a) => n + a.bytes, 0) };
}

/** Reads a stored benchmark back as a bundle; images are named by their hash. */
export async function loadBundle(repos: Repositories, benchmarkId: string): Promise<Bundle> {
  const record = await repos.benchmarks.require(benchmarkId);
  const stored = await repos.cases.listByBenchmark(benchmarkId);
  const images = new Map<string, Uint8Array>();
  const cases: BenchCase[] = [];
  for (const { benchmarkId: _b, ...c } of stored) {
    const imgs = [];
    for (const img of c.images) {
      if (!img.sha256) throw new NeuroEvalError('INTERNAL', `Stored case ${c.id} has an image without a hash.`);
      const path = neutralImagePath(img.sha256, img.mime);
      if (!images.has(path)) images.set(path, await readAsset(repos, img.sha256));
      imgs.push({ ...img, path });
    }
    cases.push({ ...c, images: imgs });
  }
  const files = new Map<string, Uint8Array>();
  for (const f of record.files) files.set(f.path, await readAsset(repos, f.sha256));
  return { manifest: record.manifest, cases, images, files };
}

async function readAsset(repos: Repositories, sha256: string): Promise<Uint8Array> {
  const asset = await repos.assets.get(sha256);
  if (!asset) throw new NeuroEvalError('NOT_FOUND', `Stored file ${sha256.slice(0, 12)}… is missing from the database.`);
  return new Uint8Array(await asset.blob.arrayBuffer());
}
