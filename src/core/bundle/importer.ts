/**
 * The seam every benchmark importer implements. An importer reads the files a
 * user dropped (a ZIP, a folder, a CSV plus images…) and produces an
 * {@link ImportDraft}: cases and image bytes in the bundle model, plus issues.
 * Nothing is stored until the user has seen the preview and confirmed.
 */
import type { ErrorLocation } from '../errors.ts';
import { decodeBytes, decodeUnicode } from '../text/decode.ts';
import type { Progress } from '../model/progress.ts';
import type { BenchCase, BundleManifest } from './types.ts';

/** A file the user provided, with its path relative to what they picked (folders included). */
export interface InputFile {
  readonly path: string;
  readonly size: number;
  bytes(): Promise<Uint8Array>;
  text(): Promise<string>;
  /**
   * Bytes `start` to `end` (exclusive) without reading the rest, where the
   * source can (a File, a file on disk): Parquet is read row group by row
   * group through it. Absent: readers fall back to `bytes()`.
   */
  slice?(start: number, end: number): Promise<Uint8Array>;
}

/**
 * A file the user chose in the page (file input, folder input or drop), with
 * its path relative to what they picked, as it is handed to the import
 * worker. The worker reads it as an {@link InputFile}.
 */
export interface PickedFile {
  readonly path: string;
  readonly file: Blob;
}

/** A DICOM tag (or NIfTI header field) an import left out of what it stores, and in how many files. */
export interface DroppedTagSummary {
  /** `(0010,0010)`, `private`, or `nifti` for NIfTI header fields. */
  readonly tag: string;
  readonly keyword: string;
  /** How many input files had it. */
  readonly files: number;
}

type IssueSeverity = 'error' | 'warning';

/** A problem found while reading input: errors block the import, warnings are shown and kept. */
export interface ImportIssue {
  readonly severity: IssueSeverity;
  readonly message: string;
  readonly location?: ErrorLocation;
}

/** A case the importer left out on purpose (placeholder entry, missing image…), with the reason. */
export interface SkippedCase {
  readonly id: string;
  readonly reason: string;
  readonly location?: ErrorLocation;
}

/** Manifest fields an importer proposes; hashes and counts are computed when the bundle is finalised. */
export type DraftManifest = Omit<BundleManifest, 'contentHash' | 'caseCount' | 'imageCount' | 'format' | 'formatVersion'>;

export interface ImportDraft {
  readonly manifest: DraftManifest;
  readonly cases: BenchCase[];
  /** Image bytes keyed by the `path` the cases use. */
  readonly images: Map<string, Uint8Array>;
  /** Other files to keep (prompt text), keyed by bundle path. */
  readonly files: Map<string, Uint8Array>;
  readonly issues: ImportIssue[];
  readonly skipped: SkippedCase[];
  /** The content hash an imported bundle declared, checked against the recomputed one. */
  readonly declaredContentHash?: string;
  /** Image bundle paths → the names the user's files gave them, so messages name what the user wrote. */
  readonly inputNames?: ReadonlyMap<string, string>;
  /** DICOM tags an importer that reads DICOM itself (importers/dicom.ts) left behind, for the preview. */
  readonly droppedTags?: readonly DroppedTagSummary[];
  /**
   * SHA-256 (hex) of image bytes the importer already hashed, keyed by the
   * very byte arrays (never by path, so bytes put in their place later are
   * hashed afresh): finalize.ts reuses them instead of hashing again.
   */
  readonly knownHashes?: ReadonlyMap<Uint8Array, string>;
  /** For formats whose answers come in a separate file: what the key matched, or null when none was given. */
  readonly answerKey?: AnswerKeyMatch | null;
}

/** How an answer key met the questions it was given with, for the import preview. */
export interface AnswerKeyMatch {
  /** The answer-key files read. */
  readonly files: readonly string[];
  readonly rows: number;
  readonly cases: number;
  /** Cases with at least one row joined. */
  readonly matchedCases: number;
  /** Cases with no row at all, by id: they will not be scored (a case whose rows all failed to match is in `unmatchedRows`). */
  readonly casesWithoutKey: readonly string[];
  /** Rows that matched no question, each with where it is and why. */
  readonly unmatchedRows: readonly string[];
}

export interface ImportContext {
  readonly signal?: AbortSignal;
  readonly progress?: (p: Progress) => void;
  /** Importer-specific options chosen in the UI or on the command line (e.g. a column mapping). */
  readonly options?: Readonly<Record<string, unknown>>;
  /** The benchmark's salt for pseudonymous DICOM keys (bundle/dicom-meta.ts); made once per import. */
  readonly keySalt?: string;
}

export interface Importer {
  /** Stable id, stored as `manifest.source.kind`. */
  readonly kind: string;
  readonly label: string;
  /**
   * How sure this importer is that it can read these files: 0 (no) to 1 (certain).
   * Must be cheap: look at names and the first bytes only.
   */
  detect(files: readonly InputFile[]): Promise<number>;
  read(files: readonly InputFile[], ctx: ImportContext): Promise<ImportDraft>;
}

/**
 * Makes an {@link InputFile} from bytes in memory (tests, ZIP entries). Its
 * text must be Unicode: a bundle's members are UTF-8 (docs/formats/bundle.md),
 * so other bytes are an error naming the member and line, never guessed.
 */
export function memoryFile(path: string, data: Uint8Array | string): InputFile {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  return {
    path,
    size: bytes.length,
    bytes: async () => bytes,
    text: async () => decodeUnicode(bytes, path),
    slice: async (start, end) => bytes.subarray(start, end),
  };
}

/**
 * A file's text as the shared decoder reads it (byte-order mark, UTF-16,
 * Windows-1252 for bytes that are not UTF-8), without its notice: for a peek
 * or a caller whose notices are gathered elsewhere (bundle/read-inputs.ts).
 */
export function decodeText(bytes: Uint8Array, file = 'file'): string {
  return decodeBytes(bytes, file).text;
}

/** File name without folders. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Lower-case extension without the dot (`nii.gz` counts as one). */
export function extensionOf(path: string): string {
  const name = baseName(path).toLowerCase();
  if (name.endsWith('.nii.gz')) return 'nii.gz';
  const i = name.lastIndexOf('.');
  return i < 0 ? '' : name.slice(i + 1);
}
