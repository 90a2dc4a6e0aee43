/**
 * A benchmark as stored: its record, its cases and its content-addressed
 * images. The database keeps these in its `benchmarks`, `cases` and `assets`
 * tables (src/core/db/schema.ts); the shapes belong to the bundle they come from.
 *
 * Fields that appear in an index (see db/schema.ts) must hold valid IndexedDB
 * keys; a record whose indexed field is `undefined` or `null` is left out of
 * that index.
 */
import type { Timestamp } from '../model/answer.ts';
import type { BenchCase, BundleManifest } from './types.ts';

export interface BenchmarkRecord {
  /** Stable id from the bundle manifest. */
  id: string;
  name: string;
  version: string;
  license: string;
  description: string;
  /** Hash over the imported content (see bundle/content-hash.ts), so a re-import of identical data is detectable. */
  contentHash: string;
  /** Importer kind that produced this benchmark (e.g. `'neurovlm-bench'`, `'neuroeval-bundle'`). */
  source: string;
  /** True for generated demo/self-test data that holds no real patient images. */
  synthetic: boolean;
  caseCount: number;
  createdAt: Timestamp;
  /** The full bundle manifest, so the benchmark can be exported as it was imported. */
  manifest: BundleManifest;
  /** Extra bundle files (prompt text), stored as assets. */
  files: { path: string; sha256: string }[];
  /**
   * Salt of the pseudonymous DICOM keys in the cases' meta (bundle/dicom-meta.ts),
   * when the import made any. Kept here only: no export carries it, so the keys
   * cannot be recomputed from a hospital's identifiers outside this browser.
   */
  keySalt?: string;
}

/**
 * A case as its bundle defines it. Every image carries `sha256`, the key of
 * its asset; the bundle `path` is kept for display only.
 */
export type CasePayload = BenchCase;

/** A case as stored: its payload plus the benchmark it belongs to. */
export type CaseRecord = CasePayload & { benchmarkId: string };

/** Primary key of `cases`: `[benchmarkId, id]`. */
export type CaseKey = [benchmarkId: string, id: string];

/** A content-addressed image: the key is the SHA-256 of the bytes. */
export interface AssetRecord {
  /** Lower-case hex SHA-256 of the blob's bytes. */
  sha256: string;
  blob: Blob;
  mime: string;
  width?: number;
  height?: number;
  /** Size of `blob` in bytes, kept so totals need not load blobs. */
  bytes: number;
  createdAt: Timestamp;
}
