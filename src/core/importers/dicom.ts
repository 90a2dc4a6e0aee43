/**
 * DICOM files by themselves (one file, a study or series folder, or a ZIP of
 * them) as a benchmark: files are grouped by patient, study and series
 * (salted keys, never the UIDs), the slices of a series are ordered by
 * position and stacked into a volume, and each volume becomes one case
 * showing the slices (or reformatted plane) the user picked. Colour images
 * cannot be stacked and become one case per file.
 *
 * What is kept is what the rest of the DICOM path keeps: rendered PNGs, the
 * de-identified volume under `sources/`, and the `dicom.*` case meta
 * (dicom-meta.ts). The input's file names are never stored.
 */
import { count } from '../text/plural.ts';
import { InvalidInputError, throwIfAborted } from '../errors.ts';
import { sha256Hex } from '../hash/sha256.ts';
import { loadDecodersFor } from '../imaging/dicom/load-decoders.ts';
import { encodeVolume, volumeFromDicom } from '../imaging/dicom/serialize.ts';
import { buildSeriesVolume, isStackable, type SeriesSlice, stackSignature } from '../imaging/dicom/series.ts';
import { createNiftiVolume } from '../imaging/nifti/volume.ts';
import { renderDicomFrame, renderNiftiSlice } from '../imaging/render.ts';
import type { WindowPreset } from '../imaging/window.ts';
import { asDicomFile, parseDicomForImport } from '../bundle/dicom-input.ts';
import { applyAnswerKey, parseAnswerKeyTable, type KeyRow } from './answer-key.ts';
import { resolveSeriesRows } from './dicom-answer-key.ts';
import { dicomCaseMeta, dicomMetaOptions, keptAsMeta, newKeySalt, pseudonymousKeys } from '../bundle/dicom-meta.ts';
import { windowOf } from '../bundle/medical-images.ts';
import { type DroppedTagSummary } from '../bundle/importer.ts';
import type { BenchCase, CaseImage } from '../bundle/types.ts';
import type { Plane } from '../model/geometry.ts';
import { baseName, extensionOf, type ImportDraft, type Importer } from '../bundle/importer.ts';
import { draftManifest, expandZips, Issues, newParts, Ticker } from './support.ts';

/** Files a DICOM export carries beside the images; skipped without a word. */
const HOUSEKEEPING = /^(DICOMDIR|\.DS_Store|Thumbs\.db|desktop\.ini|LOCKFILE|VERSION)$/i;
/** Files that say the input is a table with images, not DICOM alone. */
const TABLES = new Set(['csv', 'tsv', 'json', 'jsonl', 'ndjson']);
/**
 * The one table DICOM alone may carry: an answer key whose `case_id` names a
 * series by its folder (or one of its files) inside the input
 * (dicom-answer-key.ts). CSV or TSV only: a JSON array with "case_id" is a
 * Neural-MedBench file.
 */
const ANSWER_KEY = /^(answer[-_ ]?key|answers)\.(csv|tsv)$/i;
const PLANES: readonly Plane[] = ['axial', 'coronal', 'sagittal'];

/** The question each case gets: the input has no question, the user edits or maps one in later. */
const DEFAULT_QUESTION = 'Describe the imaging findings in these images.';

/** Import options for DICOM alone (from the UI or the CLI). */
interface SeriesOptions {
  /** The plane of the slices shown: the one acquired (default) or a reformatted one. */
  readonly plane: 'acquired' | Plane;
  /** Which slices: the middle one (default), all, or indices (0 is the first along the slice normal). */
  readonly slices: 'middle' | 'all' | readonly number[];
  readonly window?: WindowPreset;
  readonly acceptBurnedIn: boolean;
  /** Frames of a colour multi-frame file (which is not a volume). */
  readonly frames: 'middle' | 'first' | 'all';
}

function seriesOptions(options: Readonly<Record<string, unknown>> | undefined): SeriesOptions {
  const o = options ?? {};
  const plane = o.seriesPlane;
  const slices = o.seriesSlices;
  if (plane !== undefined && plane !== 'acquired' && !PLANES.includes(plane as Plane)) {
    throw new InvalidInputError(`"seriesPlane" must be acquired, axial, coronal or sagittal, not "${String(plane)}".`, { field: 'seriesPlane' });
  }
  if (slices !== undefined && slices !== 'middle' && slices !== 'all' && !(Array.isArray(slices) && slices.every((s) => typeof s === 'number'))) {
    throw new InvalidInputError('"seriesSlices" must be middle, all, or a list of slice numbers such as 10, 12, 14.', { field: 'seriesSlices' });
  }
  return {
    plane: (plane as SeriesOptions['plane'] | undefined) ?? 'acquired',
    slices: (slices as SeriesOptions['slices'] | undefined) ?? 'middle',
    ...(typeof o.window === 'string' && o.window !== 'file' ? { window: o.window as WindowPreset } : {}),
    acceptBurnedIn: o.acceptBurnedInAnnotation === true,
    frames: o.dicomFrames === 'first' || o.dicomFrames === 'all' ? o.dicomFrames : 'middle',
  };
}

function isHousekeeping(path: string): boolean {
  return HOUSEKEEPING.test(baseName(path)) || path.split('/').some((part) => part === '__MACOSX');
}

interface ReadFile extends SeriesSlice {
  readonly group: string;
}

function modalityLabel(modality: string | undefined): string | undefined {
  if (modality === 'MR') return 'MRI';
  return modality;
}

export const dicomImporter: Importer = {
  kind: 'dicom',
  label: 'DICOM files (studies and series)',

  async detect(files) {
    const candidates = files.filter((f) => !isHousekeeping(f.path));
    if (candidates.length === 0 || candidates.some((f) => baseName(f.path) === 'manifest.json' || (TABLES.has(extensionOf(f.path)) && !ANSWER_KEY.test(baseName(f.path))))) return 0;
    const images = candidates.filter((f) => !ANSWER_KEY.test(baseName(f.path)));
    if (images.length === 0) return 0;
    // A ZIP without a manifest or table: its entries are only known once inflated; read() says if they are not DICOM.
    if (images.every((f) => extensionOf(f.path) === 'zip')) return 0.5;
    // The first files' bytes decide: names of DICOM files are often bare numbers.
    for (const f of images.slice(0, 3)) {
      const bytes = await f.bytes();
      try {
        if (!asDicomFile(bytes, f.path)) return 0;
      } catch {
        // A big-endian raw dataset is still DICOM: read() refuses it naming the file.
      }
    }
    return 0.9;
  },

  async read(inputs, ctx): Promise<ImportDraft> {
    const opts = seriesOptions(ctx.options);
    const metaOptions = dicomMetaOptions(ctx.options);
    const keptAsMetaTags = keptAsMeta(metaOptions);
    const salt = ctx.keySalt ?? newKeySalt();
    const all = (await expandZips(inputs, ctx, (archive, entry) => `${archive}/${entry}`)).filter((f) => !isHousekeeping(f.path)).sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
    const keyFiles = all.filter((f) => ANSWER_KEY.test(baseName(f.path)));
    const files = all.filter((f) => !keyFiles.includes(f));
    const issues = new Issues();
    const parts = newParts();
    const dropped = new Map<string, { keyword: string; files: number }>();
    const notDicom: string[] = [];
    const read: ReadFile[] = [];
    const ticker = new Ticker(ctx, files.length, 20);

    for (const f of files) {
      await ticker.step();
      const bytes = await f.bytes();
      try {
        const dicom = asDicomFile(bytes, f.path);
        if (!dicom) {
          notDicom.push(f.path);
          continue;
        }
        // Parsing is synchronous; a compressed file's decoder (WebAssembly) is loaded first.
        await loadDecodersFor([dicom]);
        const { parsed, warning } = parseDicomForImport(dicom, f.path, opts.acceptBurnedIn);
        if (warning) issues.list.push(warning);
        for (const t of parsed.dropped) {
          if (keptAsMetaTags.has(t.name)) continue;
          const d = dropped.get(t.tag);
          if (d) d.files++;
          else dropped.set(t.tag, { keyword: t.name, files: 1 });
        }
        const keys = pseudonymousKeys(parsed.attributes ?? {}, salt);
        // Without a series UID a file cannot be matched to others: it stands alone.
        const series = keys.seriesKey ? `${keys.patientKey ?? ''}|${keys.studyKey ?? ''}|${keys.seriesKey}` : `file:${f.path}`;
        const shape = parsed.frames > 1 || !isStackable(parsed) ? `file:${f.path}` : stackSignature(parsed);
        read.push({ path: f.path, parsed, group: `${series}|${shape}` });
      } catch (error) {
        if (!(error instanceof InvalidInputError)) throw error;
        issues.error(error.message, { file: f.path, ...(error.location?.field ? { field: error.location.field } : {}) });
      }
    }
    ticker.finish();
    if (notDicom.length) {
      const are = notDicom.length === 1 ? 'is' : 'are';
      issues.warn(`${count(notDicom.length, 'file')} ${are} not DICOM and ${are} left out (first: ${notDicom[0]}).`, { file: notDicom[0]! });
    }
    if (read.length === 0 && !issues.list.some((i) => i.severity === 'error')) {
      issues.error('None of these files is a DICOM image.', { file: inputs[0]?.path ?? '' });
    }

    const groups = new Map<string, ReadFile[]>();
    for (const r of read) groups.set(r.group, [...(groups.get(r.group) ?? []), r]);
    const usedIds = new Map<string, number>();
    const metaIssues = new Set<string>();
    /** Each case's input files, for the answer key only: the paths are never stored. */
    const caseFiles = new Map<string, readonly string[]>();
    for (const members of groups.values()) {
      throwIfAborted(ctx.signal);
      const first = members[0]!;
      const attrs = first.parsed.attributes ?? {};
      const { meta, issues: found } = dicomCaseMeta(attrs, salt, first.path, metaOptions);
      for (const i of found) {
        if (metaIssues.has(i.message)) continue;
        metaIssues.add(i.message);
        issues.list.push(i);
      }
      const base = `series-${(meta['dicom.seriesKey'] ?? sha256Hex(`${salt}:${first.path}`)).slice(0, 8)}`;
      const n = (usedIds.get(base) ?? 0) + 1;
      usedIds.set(base, n);
      const id = n === 1 ? base : `${base}-${n}`;
      const images = isStackable(first.parsed) ? renderStack(members, id, opts, parts, issues) : renderFile(first, id, opts, parts);
      if (!images) continue;
      const modality = modalityLabel(first.parsed.kept.modality);
      const c: BenchCase = {
        id,
        taskFamily: 'open-question',
        ...(modality ? { modality } : {}),
        images,
        questions: [{ id: 'q1', text: DEFAULT_QUESTION }],
        meta,
      };
      parts.cases.push(c);
      caseFiles.set(id, members.map((m) => m.path));
    }

    // Cases in a stable order that groups a patient's studies: by the keys, which carry no order of their own.
    parts.cases.sort((a, b) => (a.meta?.['dicom.patientKey'] ?? '').localeCompare(b.meta?.['dicom.patientKey'] ?? '') || (a.meta?.['dicom.studyKey'] ?? '').localeCompare(b.meta?.['dicom.studyKey'] ?? '') || a.id.localeCompare(b.id));
    let cases = parts.cases;
    if (keyFiles.length) {
      const rows: KeyRow[] = [];
      for (const f of keyFiles) rows.push(...parseAnswerKeyTable(await f.text(), extensionOf(f.path) === 'tsv' ? '\t' : ',', f.path, issues));
      cases = applyAnswerKey(cases, resolveSeriesRows(rows, caseFiles, issues), issues, { skippedIds: new Set(), keyFiles: keyFiles.map((f) => f.path) });
    }
    const patients = new Set(cases.map((c) => c.meta?.['dicom.patientKey']).filter(Boolean)).size;
    // The id and name say nothing of the input: folder and file names often carry the patient's name.
    const manifest = draftManifest(ctx, {
      id: `dicom-${sha256Hex(`${salt}:benchmark`).slice(0, 8)}`,
      name: `DICOM import (${count(cases.length, 'series', 'series')}${patients ? `, ${count(patients, 'patient')}` : ''})`,
      version: '1',
      license: 'unknown',
      source: { kind: 'dicom' },
    });
    return {
      manifest,
      ...parts,
      cases,
      issues: issues.list,
      droppedTags: [...dropped].map(([tag, d]) => ({ tag, keyword: d.keyword, files: d.files }) satisfies DroppedTagSummary),
    };
  },
};

/** Renders the picked slices of a stacked series; stores its volume. Null (with an error) when a picked slice does not exist. */
function renderStack(members: readonly ReadFile[], id: string, opts: SeriesOptions, parts: ReturnType<typeof newParts>, issues: Issues): CaseImage[] | null {
  const series = buildSeriesVolume(members);
  const container = encodeVolume({ kind: 'nifti', header: series.info, data: series.data });
  const asset = sha256Hex(container);
  const volume = createNiftiVolume(series.info, series.data);
  const plane = opts.plane === 'acquired' ? series.acquiredPlane : opts.plane;
  const count = volume.sliceCount(plane);
  const picked = opts.slices === 'middle' ? [Math.floor(count / 2)] : opts.slices === 'all' ? [...Array(count).keys()] : opts.slices;
  const where = { file: members[0]!.path, field: 'seriesSlices' };
  const missing = picked.filter((s) => !Number.isInteger(s) || s < 0 || s >= count);
  if (missing.length) {
    issues.error(`Slice ${missing.join(', ')} does not exist: series ${id} has ${count} ${plane} slices (0–${count - 1}).`, where);
    return null;
  }
  parts.files.set(`sources/${asset}.nevol`, container);
  const images: CaseImage[] = [];
  for (const s of picked) {
    const png = renderNiftiSlice(volume, plane, s, opts.window);
    const path = `images/${id}/${plane}${s}.png`;
    parts.images.set(path, png.png);
    // In the acquired plane a slice is one input file: messages about it name that file.
    if (plane === series.acquiredPlane) parts.inputNames.set(path, series.files[s]!);
    images.push({ path, plane, slice: s, label: `${plane} ${s + 1}/${count}`, source: { kind: 'dicom', asset, plane, frame: s, window: windowOf(png) } });
  }
  return images;
}

/** A colour image, which is not stacked: its frames as the DICOM path renders them. */
function renderFile(file: ReadFile, id: string, opts: SeriesOptions, parts: ReturnType<typeof newParts>): CaseImage[] {
  const p = file.parsed;
  const container = encodeVolume(volumeFromDicom(p));
  const asset = sha256Hex(container);
  parts.files.set(`sources/${asset}.nevol`, container);
  const frames = opts.frames === 'all' ? [...Array(p.frames).keys()] : [opts.frames === 'first' ? 0 : Math.floor((p.frames - 1) / 2)];
  return frames.map((f) => {
    const png = renderDicomFrame(p, f, opts.window);
    const path = `images/${id}/frame${f}.png`;
    parts.images.set(path, png.png);
    parts.inputNames.set(path, file.path);
    return { path, ...(p.frames > 1 ? { slice: f } : {}), source: { kind: 'dicom', asset, frame: f, window: windowOf(png) } };
  });
}
