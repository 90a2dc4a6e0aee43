/**
 * Benchmark import and export, off the main thread: reading ZIPs, decoding
 * images, DICOM/NIfTI rendering and hashing never block the page. A preview
 * is kept here until the user commits or discards it.
 */
import { prepareImport, detectFormats, type Detection, type ImportPreview } from '../src/core/importers/import-pipeline.ts';
import { commitBundle, loadBundle, type CommitResult } from '../src/core/stored/benchmark-store.ts';
import { writeBundleZip } from '../src/core/bundle/zip-write.ts';
import { listColumns, suggestMapping } from '../src/core/importers/generic.ts';
import { decodeText, type InputFile, type PickedFile } from '../src/core/bundle/importer.ts';
import { readableInputs } from '../src/core/bundle/read-inputs.ts';
import type { BenchCase, Bundle } from '../src/core/bundle/types.ts';
import { createRepositories, openDatabase, type Repositories } from '../src/core/db/index.ts';
import { NeuroEvalError } from '../src/core/errors.ts';
import type { CallContext } from '../src/core/rpc/protocol.ts';
import './runtime/codec-wasm.ts';
import { exposeApi } from './runtime/expose.ts';
import { sortById } from '../src/core/text/compare-ids.ts';

/** The preview sent to the page: everything but the bundle's bytes and the key salt (which stays in this worker until stored). */
export interface PreviewResult extends Omit<ImportPreview, 'bundle' | 'keySalt' | 'imageInputs'> {
  readonly previewId: string | null;
  /** The first cases, to show what will be stored. */
  readonly sample: BenchCase[];
}

const previews = new Map<string, { bundle: Bundle; keySalt?: string }>();
let repos: Promise<Repositories> | null = null;
let nextPreview = 1;

function database(): Promise<Repositories> {
  repos ??= openDatabase().then((db) => createRepositories(db));
  repos.catch(() => (repos = null));
  return repos;
}

/** Picked files as importer inputs; text goes through the decoder the CLI uses too (Blob.text() would differ from Node on UTF-16 and bad bytes). */
function toInputFiles(files: readonly PickedFile[]): InputFile[] {
  return files.map(({ path, file }) => ({
    path,
    size: file.size,
    bytes: async () => new Uint8Array(await file.arrayBuffer()),
    text: async () => decodeText(new Uint8Array(await file.arrayBuffer()), path),
    slice: async (start: number, end: number) => new Uint8Array(await file.slice(start, end).arrayBuffer()),
  }));
}

const importApi = {
  /** Which importers can read these files, most likely first. */
  async detect(input: { files: PickedFile[] }): Promise<Detection[]> {
    return detectFormats(toInputFiles(input.files));
  },

  /** Column names of a CSV/JSONL and a guessed mapping, for the generic importer. */
  async columns(input: { files: PickedFile[] }): Promise<{ columns: string[]; suggested: Record<string, unknown> }> {
    const columns = await listColumns(readableInputs(toInputFiles(input.files)));
    return { columns, suggested: suggestMapping(columns) as Record<string, unknown> };
  },

  /** Reads and checks everything; stores nothing. */
  async preview(input: { files: PickedFile[]; kind?: string; options?: Record<string, unknown> }, ctx: CallContext): Promise<PreviewResult> {
    const preview = await prepareImport(toInputFiles(input.files), {
      signal: ctx.signal,
      progress: (p) => ctx.progress(p),
      ...(input.kind ? { kind: input.kind } : {}),
      ...(input.options ? { options: input.options } : {}),
    });
    const { bundle, keySalt, imageInputs: _inputs, ...rest } = preview;
    let previewId: string | null = null;
    if (bundle) {
      previewId = `p${nextPreview++}`;
      previews.set(previewId, { bundle, ...(keySalt ? { keySalt } : {}) });
    }
    return { ...rest, previewId, sample: bundle ? sortById(bundle.cases, (c) => c.id).slice(0, 25) : [] };
  },

  /** Stores a previewed benchmark in one transaction. */
  async commit(input: { previewId: string; asCopy?: boolean }, ctx: CallContext): Promise<CommitResult> {
    const kept = previews.get(input.previewId);
    if (!kept) throw new NeuroEvalError('NOT_FOUND', 'This preview has expired. Choose the files again to import them.');
    ctx.progress({ phase: 'store', done: 0, total: 1 });
    const result = await commitBundle(await database(), kept.bundle, { asCopy: input.asCopy === true, ...(kept.keySalt ? { keySalt: kept.keySalt } : {}) });
    previews.delete(input.previewId);
    ctx.progress({ phase: 'store', done: 1, total: 1 });
    return result;
  },

  async discard(input: { previewId: string }): Promise<void> {
    previews.delete(input.previewId);
  },

  /** A stored benchmark as a bundle ZIP. */
  async exportZip(input: { benchmarkId: string }, ctx: CallContext): Promise<{ name: string; bytes: Uint8Array; contentHash: string }> {
    ctx.progress({ phase: 'export', done: 0, total: 2 });
    const bundle = await loadBundle(await database(), input.benchmarkId);
    ctx.progress({ phase: 'export', done: 1, total: 2 });
    const bytes = writeBundleZip(bundle);
    ctx.progress({ phase: 'export', done: 2, total: 2 });
    return { name: `${bundle.manifest.id}-${bundle.manifest.version}.zip`, bytes, contentHash: bundle.manifest.contentHash };
  },
};

export type ImportApi = typeof importApi;

exposeApi(importApi);
