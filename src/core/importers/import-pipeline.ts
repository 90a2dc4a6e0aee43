/**
 * From dropped files to stored benchmark, in two steps the user controls:
 * `prepareImport` reads and checks everything and returns a preview (nothing
 * is stored), `commitImport` writes the benchmark, its cases and its images in
 * one transaction (all or nothing). Used by the import worker and the CLI.
 */
import { InvalidInputError, NeuroEvalError, throwIfAborted } from '../errors.ts';
import type { Progress } from '../model/progress.ts';
import { bundleImporter } from './bundle-importer.ts';
import { finalizeBundle, type RemovedMetadata } from '../bundle/finalize.ts';
import { IMPORTERS } from './index.ts';
import type { ImportDraft, ImportIssue, Importer, InputFile, SkippedCase } from '../bundle/importer.ts';
import type { AnswerKeyMatch } from '../bundle/importer.ts';
import { withIdentity } from '../bundle/identity.ts';
import { withInputNames } from '../bundle/input-names.ts';
import { readableInputs } from '../bundle/read-inputs.ts';
import { loadDecodersFor } from '../imaging/dicom/load-decoders.ts';
import { newKeySalt } from '../bundle/dicom-meta.ts';
import { convertMedicalImages } from '../bundle/medical-images.ts';
import { type DroppedTagSummary } from '../bundle/importer.ts';
import { withNeutralImageNames } from '../bundle/neutral-names.ts';
import type { Bundle } from '../bundle/types.ts';

/** Every importer, bundle first: a folder with manifest.json is a bundle whatever else it holds. */
const ALL_IMPORTERS: readonly Importer[] = [bundleImporter, ...IMPORTERS];

export interface Detection {
  readonly kind: string;
  readonly label: string;
  readonly confidence: number;
}

/** Ranks importers for these files, most likely first; those that cannot read them are left out. */
export async function detectFormats(input: readonly InputFile[]): Promise<Detection[]> {
  const files = readableInputs(input);
  const scored = await Promise.all(ALL_IMPORTERS.map(async (i) => ({ kind: i.kind, label: i.label, confidence: await i.detect(files) })));
  return scored.filter((d) => d.confidence > 0).sort((a, b) => b.confidence - a.confidence);
}

/** Counts for the preview and `neuroeval validate`. */
interface ImportSummary {
  readonly cases: number;
  readonly questions: number;
  readonly images: number;
  readonly imageBytes: number;
  /** Every other file that will be stored (prompts, rendered sources, anything else the input holds), so nothing is stored unannounced. */
  readonly files: number;
  readonly fileBytes: number;
  readonly bySplit: Record<string, number>;
  readonly byTaskFamily: Record<string, number>;
  readonly byDiseaseGroup: Record<string, number>;
  readonly byModality: Record<string, number>;
}

export interface ImportPreview {
  readonly importer: { readonly kind: string; readonly label: string };
  readonly ok: boolean;
  readonly errors: ImportIssue[];
  readonly warnings: ImportIssue[];
  readonly skipped: SkippedCase[];
  readonly summary: ImportSummary | null;
  /** DICOM tags removed before anything was kept, by keyword, with how many files had each. */
  readonly droppedTags: DroppedTagSummary[];
  /**
   * Metadata removed from the images before they were stored (text chunks,
   * EXIF, comments, colour profiles…), by kind, with how many images had each:
   * images, and images kept beside the cases, are stored as pixels only.
   */
  readonly removedMetadata: RemovedMetadata[];
  readonly manifest: Bundle['manifest'] | null;
  /** The finished bundle, present when there are no errors. */
  readonly bundle: Bundle | null;
  /**
   * The salt of the pseudonymous DICOM keys in this bundle's case meta, when
   * there are any: stored with the benchmark, never shown or exported.
   */
  readonly keySalt?: string;
  /** Stored image (sha256) → the input file it was rendered from, where one file is its source (`neuroeval validate --json`). */
  readonly imageInputs?: Readonly<Record<string, string>>;
  /** Formats with a separate answer key (Neural-MedBench): what it matched, or null when none was given. */
  readonly answerKey?: AnswerKeyMatch | null;
}

interface PrepareOptions {
  /** Force an importer instead of the detected one. */
  readonly kind?: string;
  readonly options?: Readonly<Record<string, unknown>>;
  readonly signal?: AbortSignal;
  readonly progress?: (p: Progress) => void;
}

function count<T>(items: readonly T[], key: (t: T) => string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) {
    const k = key(item) ?? '(none)';
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

function summarize(bundle: Bundle): ImportSummary {
  return {
    cases: bundle.cases.length,
    questions: bundle.cases.reduce((n, c) => n + c.questions.length, 0),
    images: bundle.images.size,
    imageBytes: [...bundle.images.values()].reduce((n, b) => n + b.length, 0),
    files: bundle.files.size,
    fileBytes: [...bundle.files.values()].reduce((n, b) => n + b.length, 0),
    bySplit: count(bundle.cases, (c) => c.split),
    byTaskFamily: count(bundle.cases, (c) => c.taskFamily),
    byDiseaseGroup: count(bundle.cases, (c) => c.diseaseGroup),
    byModality: count(bundle.cases, (c) => c.modality),
  };
}

/** Reads and checks the files; stores nothing. */
export async function prepareImport(input: readonly InputFile[], options: PrepareOptions = {}): Promise<ImportPreview> {
  if (input.length === 0) throw new InvalidInputError('No files were given to import.');
  // Text is decoded here, the same for the app and the CLI; a file read as Windows-1252 is a warning in the preview.
  const decodeNotices: ImportIssue[] = [];
  const files = readableInputs(input, decodeNotices);
  let importer: Importer | undefined;
  if (options.kind) {
    importer = ALL_IMPORTERS.find((i) => i.kind === options.kind);
    if (!importer) throw new InvalidInputError(`Unknown importer "${options.kind}". Known: ${ALL_IMPORTERS.map((i) => i.kind).join(', ')}.`);
  } else {
    const best = (await detectFormats(files))[0];
    importer = best && ALL_IMPORTERS.find((i) => i.kind === best.kind);
    if (!importer) {
      throw new InvalidInputError(`NeuroEval does not recognise these files (${files.slice(0, 3).map((f) => f.path).join(', ')}${files.length > 3 ? ', …' : ''}). Expected a NeuroEval bundle, a Neural-MedBench JSON, a NeuroVLM-Bench CSV with images, a VLMEvalKit TSV, or a CSV/JSONL to map.`);
    }
  }
  const head = { importer: { kind: importer.kind, label: importer.label } };
  // Filled once the importer has read the files: images' bundle paths → the names the user wrote.
  const inputNames = new Map<string, string>();
  const fail = (found: ImportIssue[], skipped: SkippedCase[] = [], droppedTags: DroppedTagSummary[] = [], removedMetadata: RemovedMetadata[] = []): ImportPreview => {
    const issues = withInputNames(found, inputNames);
    return {
      ...head,
      ok: false,
      errors: issues.filter((i) => i.severity === 'error'),
      warnings: issues.filter((i) => i.severity === 'warning'),
      skipped,
      summary: null,
      droppedTags,
      removedMetadata,
      manifest: null,
      bundle: null,
    };
  };

  // One salt per benchmark, made here so the importer and the DICOM conversion key with the same one.
  const keySalt = newKeySalt();
  let draft: ImportDraft;
  try {
    draft = await importer.read(files, { keySalt, ...(options.signal ? { signal: options.signal } : {}), ...(options.progress ? { progress: options.progress } : {}), ...(options.options ? { options: options.options } : {}) });
  } catch (error) {
    if (error instanceof InvalidInputError) return fail([...decodeNotices, { severity: 'error', message: error.message, ...(error.location ? { location: error.location } : {}) }]);
    throw error;
  }
  throwIfAborted(options.signal);
  for (const [stored, given] of draft.inputNames ?? []) inputNames.set(stored, given);
  // A name and licence the user typed in the preview (or on the command line) win over what the format says, for every importer.
  draft = withIdentity(draft, options.options);
  if (decodeNotices.length) draft = { ...draft, issues: [...decodeNotices, ...draft.issues] };
  if (draft.issues.some((i) => i.severity === 'error')) return fail(draft.issues, draft.skipped);

  // Compressed DICOM needs its WebAssembly decoders before the (synchronous) conversion parses it.
  await loadDecodersFor([...draft.images.values(), ...draft.files.values()]);
  const converted = convertMedicalImages(draft, { keySalt, ...(options.options ? { options: options.options } : {}) });
  const droppedTags = mergeDropped(draft.droppedTags ?? [], converted.droppedTags);
  throwIfAborted(options.signal);
  const result = finalizeBundle(converted.draft, {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.progress ? { progress: options.progress } : {}),
    inputName: files.length === 1 ? files[0]!.path : undefined,
  });
  const removedMetadata = mergeRemoved(converted.removedMetadata, result.removedMetadata);
  if (!result.bundle) return fail(result.issues, result.skipped, droppedTags, removedMetadata);
  // Stored names come from content, never from the user's file names (which may name the patient).
  const bundle = withNeutralImageNames(result.bundle);
  const issues = [...result.issues];
  if (draft.declaredContentHash && draft.declaredContentHash !== bundle.manifest.contentHash) {
    const stripped = removedMetadata.length > 0;
    issues.push({
      severity: 'warning',
      message: stripped
        ? `The bundle declares content hash ${draft.declaredContentHash.slice(0, 12)}…; with the image metadata removed (listed in this preview), its content hashes to ${bundle.manifest.contentHash.slice(0, 12)}…. The recomputed hash is stored.`
        : `The bundle declares content hash ${draft.declaredContentHash.slice(0, 12)}…, but its content hashes to ${bundle.manifest.contentHash.slice(0, 12)}…: it was changed after export. The recomputed hash is stored.`,
      location: { file: 'manifest.json', field: 'contentHash' },
    });
  }
  return {
    ...head,
    ok: true,
    errors: [],
    warnings: withInputNames(issues.filter((i) => i.severity === 'warning'), inputNames),
    skipped: result.skipped,
    // Counted before renaming: identical renders under different names still count as the images a case shows.
    summary: summarize(result.bundle),
    droppedTags,
    removedMetadata,
    manifest: bundle.manifest,
    bundle,
    // Stored only when this import made keys with it (a re-imported bundle's keys were made with a salt it does not carry).
    ...(converted.keyed || importer.kind === 'dicom' ? { keySalt } : {}),
    imageInputs: imageInputs(result.bundle, inputNames),
    ...(draft.answerKey !== undefined ? { answerKey: draft.answerKey } : {}),
  };
}

/** One line per tag, files counted across both lists. */
function mergeDropped(a: readonly DroppedTagSummary[], b: readonly DroppedTagSummary[]): DroppedTagSummary[] {
  const out = new Map<string, DroppedTagSummary>();
  for (const t of [...a, ...b]) {
    const seen = out.get(t.tag);
    out.set(t.tag, seen ? { ...seen, files: seen.files + t.files } : t);
  }
  return [...out.values()];
}

/** One line per kind of metadata, images counted across both lists. */
function mergeRemoved(a: readonly RemovedMetadata[], b: readonly RemovedMetadata[]): RemovedMetadata[] {
  const out = new Map<string, number>();
  for (const r of [...a, ...b]) out.set(r.kind, (out.get(r.kind) ?? 0) + r.images);
  return [...out].map(([kind, images]) => ({ kind, images }));
}

/** Each stored image's input file, from the bundle's paths before they were renamed by content. */
function imageInputs(bundle: Bundle, inputNames: ReadonlyMap<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of bundle.cases) {
    for (const img of c.images) {
      const name = inputNames.get(img.path);
      if (img.sha256 && name !== undefined) out[img.sha256] = name;
    }
  }
  return out;
}

/** Thrown by commit when the same id holds different content; `difference` says what differs, in words. */
export function conflictError(id: string, storedName?: string, difference?: string): NeuroEvalError {
  const what = storedName ? `the stored "${storedName}" (id "${id}")` : `the stored benchmark with id "${id}"`;
  const detail = difference ? ` (${difference})` : '';
  return new NeuroEvalError('INVALID_INPUT', `A different benchmark with id "${id}" is already stored: this file's content differs from ${what}${detail}. Import it as a new benchmark beside the stored one, or delete the stored one first to replace it.`, { location: { field: 'id' } });
}
