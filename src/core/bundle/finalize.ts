/**
 * Turns an importer's draft into a complete bundle: checks every image
 * really is an image of sane size whose data fits its header, removes
 * everything from it but its pixels (imaging/strip-metadata.ts: text chunks,
 * EXIF, comments, profiles; what was removed is counted for the preview),
 * hashes what is stored, fills in mime and dimensions,
 * checks references between cases and files, and computes the content hash.
 * Problems are collected as issues with locations; a draft with errors
 * yields no bundle.
 */
import { sha256Hex } from '../hash/sha256.ts';
import { throwIfAborted } from '../errors.ts';
import type { Progress } from '../model/progress.ts';
import { checkImageSize, readImageDimensions } from '../imaging/dimensions.ts';
import { checkPixelData } from '../imaging/pixel-data.ts';
import { isRasterImageType, mimeFor, sniffImageType } from '../imaging/sniff.ts';
import { stripImageMetadata } from '../imaging/strip-metadata.ts';
import { computeContentHash } from './content-hash.ts';
import { checkCaseId, nonFiniteField, nonFiniteMessage, visibleId } from './json-values.ts';
import { unreadFormat, unreadFormatPhrase } from './unread-formats.ts';
import type { ImportDraft, ImportIssue, SkippedCase } from './importer.ts';
import { BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION, type BenchCase, type Bundle, type CaseImage } from './types.ts';

/** Image types a model can receive directly; DICOM and NIfTI are rendered to PNG before this step. */
const MODEL_IMAGE_TYPES = new Set(['png', 'jpeg', 'webp', 'gif']);

/** One kind of metadata removed from images, and from how many of them. */
export interface RemovedMetadata {
  /** What it was, e.g. `PNG text (tEXt)`, `JPEG EXIF (APP1)`. */
  readonly kind: string;
  readonly images: number;
}

interface FinalizeResult {
  readonly bundle?: Bundle;
  readonly issues: ImportIssue[];
  readonly skipped: SkippedCase[];
  /** What was removed from the images before they were hashed, by kind (images never referenced by a case are not counted). */
  readonly removedMetadata: RemovedMetadata[];
}

interface FinalizeOptions {
  readonly signal?: AbortSignal;
  readonly progress?: (p: Progress) => void;
  /** Name of the input, for locations of problems found in images. */
  readonly inputName?: string;
}

interface ImageInfo {
  /** What is stored: the image without its metadata. */
  readonly bytes: Uint8Array;
  readonly removed: readonly string[];
  readonly sha256: string;
  readonly mime: string;
  readonly width: number;
  readonly height: number;
}

/** Why bytes that should be an image are not one, naming a compressed format NeuroEval does not open when they are in one. */
function notAnImage(path: string, bytes: Uint8Array): string {
  const format = unreadFormat(bytes);
  return format
    ? `"${path}" is ${unreadFormatPhrase(format)}, not an image; NeuroEval does not open that format. Decompress it and import the image itself.`
    : `"${path}" is not an image (unrecognised content).`;
}

export function finalizeBundle(draft: ImportDraft, options: FinalizeOptions = {}): FinalizeResult {
  const issues: ImportIssue[] = [...draft.issues];
  const file = options.inputName;
  const info = new Map<string, ImageInfo>();
  const bad = new Set<string>();
  let done = 0;
  for (const [path, bytes] of draft.images) {
    if (done % 200 === 0) {
      throwIfAborted(options.signal);
      options.progress?.({ phase: 'check images', done, total: draft.images.size });
    }
    done++;
    const type = sniffImageType(bytes);
    if (!isRasterImageType(type) || !MODEL_IMAGE_TYPES.has(type)) {
      bad.add(path);
      issues.push({
        severity: 'error',
        message: type ? `"${path}" is a ${type} file, which cannot be given to a model as is.` : notAnImage(path, bytes),
        location: { file: file ?? path, field: path },
      });
      continue;
    }
    try {
      const dims = readImageDimensions(bytes, type, path);
      checkImageSize(dims, path);
      checkPixelData(bytes, type, dims, path);
      // A hash the bundle declared was checked against the bytes as given (declared-hashes.ts); the stored hash is of what is stored.
      const stripped = stripImageMetadata(bytes, type, path);
      const sha256 = (stripped.bytes === bytes ? draft.knownHashes?.get(bytes) : undefined) ?? sha256Hex(stripped.bytes);
      info.set(path, { bytes: stripped.bytes, removed: stripped.removed, sha256, mime: mimeFor(type), width: dims.width, height: dims.height });
    } catch (error) {
      bad.add(path);
      issues.push({ severity: 'error', message: error instanceof Error ? error.message : String(error), location: { file: file ?? path, field: path } });
    }
  }

  // Files an earlier step already refused (a DICOM or NIfTI that could not be read) are not "missing" as well.
  const refused = new Set(draft.issues.filter((i) => i.severity === 'error').map((i) => i.location?.file));
  const seen = new Map<string, number>();
  const referenced = new Set<string>();
  const cases: BenchCase[] = draft.cases.map((given, i) => {
    // Every importer's ids: NFC, and none with invisible characters (json-values.ts); duplicates are found after normalising.
    const checked = checkCaseId(given.id);
    if ('error' in checked) issues.push({ severity: 'error', message: checked.error, location: { ...(file ? { file } : {}), field: `cases[${i}].id` } });
    const c = 'id' in checked && checked.id !== given.id ? { ...given, id: checked.id } : given;
    const prev = seen.get(c.id);
    if (prev !== undefined) issues.push({ severity: 'error', message: `Case id "${visibleId(c.id)}" is used by cases ${prev + 1} and ${i + 1}.`, location: { field: `cases[${i}].id` } });
    seen.set(c.id, i);
    const images = c.images.map((img, j): CaseImage => {
      referenced.add(img.path);
      const found = info.get(img.path);
      if (!found) {
        if (!bad.has(img.path) && !refused.has(img.path)) {
          issues.push({ severity: 'error', message: `Case "${c.id}" refers to an image that is not in the input: ${img.path}`, location: { field: `${c.id}.images[${j}].path` } });
        }
        return img;
      }
      return { ...img, sha256: found.sha256, mime: found.mime, width: found.width, height: found.height };
    });
    return { ...c, images };
  });

  const unused = [...draft.images.keys()].filter((p) => !referenced.has(p));
  if (unused.length) {
    issues.push({ severity: 'warning', message: `${unused.length} image file(s) are not used by any case and will not be stored (first: ${unused[0]}).` });
  }
  const fewShot = draft.manifest.protocolDefaults?.fewShotCaseIds?.map((id) => id.normalize('NFC'));
  for (const id of fewShot ?? []) {
    if (!seen.has(id)) issues.push({ severity: 'error', message: `The few-shot list names case "${visibleId(id)}", which is not in the benchmark.`, location: { field: 'protocolDefaults.fewShotCaseIds' } });
  }
  const prompt = draft.manifest.protocolDefaults?.prompt;
  if (prompt && !draft.files.has(prompt)) {
    issues.push({ severity: 'error', message: `The prompt file "${prompt}" is missing.`, location: { field: 'protocolDefaults.prompt' } });
  }
  if (cases.length === 0) issues.push({ severity: 'error', message: 'There are no cases to import.' });
  options.progress?.({ phase: 'check images', done: draft.images.size, total: draft.images.size });

  const removed = new Map<string, number>();
  for (const p of referenced) for (const kind of info.get(p)?.removed ?? []) removed.set(kind, (removed.get(kind) ?? 0) + 1);
  const removedMetadata = [...removed].map(([kind, images]) => ({ kind, images }));
  if (issues.some((i) => i.severity === 'error')) return { issues, skipped: draft.skipped, removedMetadata };

  const images = new Map<string, Uint8Array>();
  for (const p of referenced) {
    const found = info.get(p);
    if (found) images.set(p, found.bytes);
  }
  const fileHashes = [...draft.files].map(([path, bytes]) => ({ path, sha256: sha256Hex(bytes) }));
  const manifest = fewShot ? { ...draft.manifest, protocolDefaults: { ...draft.manifest.protocolDefaults, fewShotCaseIds: fewShot } } : draft.manifest;
  const base = { ...manifest, format: BUNDLE_FORMAT, formatVersion: BUNDLE_FORMAT_VERSION } as const;
  let contentHash: string;
  try {
    contentHash = computeContentHash(base, cases, fileHashes);
  } catch (error) {
    // Importers refuse numbers that are not finite with their line (json-values.ts); this is the last guard, never a bare TypeError.
    if (!(error instanceof TypeError)) throw error;
    const at = cases.findIndex((c) => nonFiniteField(c) !== null);
    const field = at >= 0 ? `cases[${at}].${nonFiniteField(cases[at])!}` : (nonFiniteField(base) ?? '');
    return { issues: [...issues, { severity: 'error', message: nonFiniteMessage(field), location: { ...(file ? { file } : {}), field } }], skipped: draft.skipped, removedMetadata };
  }
  const imageCount = new Set(cases.flatMap((c) => c.images.map((i) => i.sha256))).size;
  return {
    bundle: { manifest: { ...base, contentHash, caseCount: cases.length, imageCount }, cases, images, files: new Map(draft.files) },
    issues,
    skipped: draft.skipped,
    removedMetadata,
  };
}
