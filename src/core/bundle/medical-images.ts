/**
 * DICOM and NIfTI inputs become what a model can receive: PNG renderings
 * (one per chosen frame or slice), plus a de-identified source container kept
 * for re-windowing in the case viewer. The original files never reach storage:
 * their bytes are removed from the draft here, and only the tags needed to
 * render survive in the container. Files kept beside the cases are sniffed
 * too (stored-files.ts): DICOM or NIfTI there is de-identified the same way,
 * and whatever cannot be is refused.
 */
import { InvalidInputError } from '../errors.ts';
import { sha256Hex } from '../hash/sha256.ts';
import { detectDicom } from '../imaging/dicom/detect.ts';
import { encodeVolume, volumeFromDicom, volumeFromNifti } from '../imaging/dicom/serialize.ts';
import { parseNifti } from '../imaging/nifti/parse.ts';
import { renderDicomFrame, renderNiftiSlice, type RenderedImage } from '../imaging/render.ts';
import type { WindowPreset } from '../imaging/window.ts';
import { sniffImageType } from '../imaging/sniff.ts';
import { asDicomFile, parseDicomForImport } from './dicom-input.ts';
import { dicomCaseMeta, dicomMetaOptions, keptAsMeta } from './dicom-meta.ts';
import type { DroppedTagSummary, ImportDraft, ImportIssue } from './importer.ts';
import type { RemovedMetadata } from './finalize.ts';
import { checkStoredFiles } from './stored-files.ts';
import type { BenchCase, CaseImage, ImageSource } from './types.ts';
import type { Plane } from '../model/geometry.ts';

/** Import options for medical images (from the UI or `--options`). */
interface MedicalImageOptions {
  /** Frames of multi-frame DICOM to render: the middle one (default), the first, or all. */
  readonly dicomFrames?: 'middle' | 'first' | 'all';
  /** NIfTI plane (default axial) and slices: the middle one (default) or explicit indices. */
  readonly niftiPlane?: Plane;
  readonly niftiSlices?: 'middle' | readonly number[];
  /** Window for the PNG the model receives: the file's own (default) or a preset. */
  readonly window?: 'file' | WindowPreset;
  /**
   * Import DICOM whose BurnedInAnnotation (0028,0301) is YES. Off by default:
   * text burned into the pixels (often the patient's name) survives any tag
   * removal, so the user must say they checked the pixels.
   */
  readonly acceptBurnedInAnnotation?: boolean;
}

interface Rendered {
  readonly path: string;
  readonly png: RenderedImage;
  readonly source: NonNullable<CaseImage['source']>;
  readonly slice?: number;
  readonly plane?: Plane;
}

/** The window a rendering used, as an image source records it. */
export function windowOf(png: RenderedImage): NonNullable<ImageSource['window']> {
  return { center: png.window.center, width: png.window.width, ...(png.window.preset ? { preset: png.window.preset } : {}) };
}

function pick(options: Readonly<Record<string, unknown>> | undefined): MedicalImageOptions {
  const o = (options ?? {}) as MedicalImageOptions;
  return { dicomFrames: o.dicomFrames ?? 'middle', niftiPlane: o.niftiPlane ?? 'axial', niftiSlices: o.niftiSlices ?? 'middle', window: o.window ?? 'file', acceptBurnedInAnnotation: o.acceptBurnedInAnnotation === true };
}

export function convertMedicalImages(
  draft: ImportDraft,
  ctx: { readonly options?: Readonly<Record<string, unknown>>; readonly keySalt?: string } = {},
): { draft: ImportDraft; droppedTags: DroppedTagSummary[]; removedMetadata: RemovedMetadata[]; keyed: boolean } {
  const opts = pick(ctx.options);
  const metaOptions = dicomMetaOptions(ctx.options);
  const keptAsMetaTags = keptAsMeta(metaOptions);
  const window = opts.window === 'file' ? undefined : opts.window;
  const issues: ImportIssue[] = [...draft.issues];
  const images = new Map(draft.images);
  const files = new Map(draft.files);
  const medical: [string, Uint8Array][] = [];
  for (const [path, bytes] of draft.images) {
    const t = sniffImageType(bytes);
    if (t === 'dicom' || t === 'nifti1' || t === 'nifti2' || t === 'gzip') medical.push([path, bytes]);
    else if (detectDicom(bytes)) medical.push([path, bytes]);
  }
  const renders = new Map<string, Rendered[]>();
  // A DICOM image's technical tags and pseudonymous keys, given to the cases that show it (dicom-meta.ts).
  const caseMeta = new Map<string, Record<string, string>>();
  const dropped = new Map<string, { keyword: string; files: number }>();
  const note = (tag: string, keyword: string) => {
    const d = dropped.get(tag);
    if (d) d.files++;
    else dropped.set(tag, { keyword, files: 1 });
  };

  for (const [path, bytes] of medical) {
    // The original file (with whatever identifying data it holds) is never kept.
    images.delete(path);
    try {
      const dicom = asDicomFile(bytes, path);
      const out: Rendered[] = [];
      if (dicom) {
        const { parsed, warning } = parseDicomForImport(dicom, path, opts.acceptBurnedInAnnotation === true);
        if (warning) issues.push(warning);
        parsed.dropped.forEach((t) => keptAsMetaTags.has(t.name) || note(t.tag, t.name));
        if (ctx.keySalt) {
          const found = dicomCaseMeta(parsed.attributes ?? {}, ctx.keySalt, path, metaOptions);
          caseMeta.set(path, found.meta);
          issues.push(...found.issues);
        }
        const container = encodeVolume(volumeFromDicom(parsed));
        const asset = sha256Hex(container);
        files.set(`sources/${asset}.nevol`, container);
        const frames = opts.dicomFrames === 'all' ? [...Array(parsed.frames).keys()] : [opts.dicomFrames === 'first' ? 0 : Math.floor((parsed.frames - 1) / 2)];
        for (const f of frames) {
          const png = renderDicomFrame(parsed, f, window);
          out.push({ path: `${path}.frame${f}.png`, png, source: { kind: 'dicom', asset, frame: f, window: windowOf(png) }, ...(parsed.frames > 1 ? { slice: f } : {}) });
        }
      } else {
        // gzip: only NIfTI is accepted compressed; parseNifti says clearly if it is something else.
        const parsed = parseNifti(bytes, path);
        parsed.dropped.forEach((name) => note(`nifti:${name}`, name));
        const container = encodeVolume(volumeFromNifti(parsed));
        const asset = sha256Hex(container);
        files.set(`sources/${asset}.nevol`, container);
        const plane = opts.niftiPlane ?? 'axial';
        const count = parsed.sliceCount(plane);
        const slices = opts.niftiSlices === 'middle' || opts.niftiSlices === undefined ? [Math.floor(count / 2)] : opts.niftiSlices;
        for (const s of slices) {
          if (!Number.isInteger(s) || s < 0 || s >= count) {
            issues.push({ severity: 'error', message: `Slice ${s} does not exist: ${path} has ${count} ${plane} slices (0–${count - 1}).`, location: { file: path, field: 'niftiSlices' } });
            continue;
          }
          const png = renderNiftiSlice(parsed, plane, s, window);
          out.push({ path: `${path}.${plane}${s}.png`, png, plane, slice: s, source: { kind: 'nifti', asset, plane, frame: s, window: windowOf(png) } });
        }
      }
      for (const r of out) images.set(r.path, r.png.png);
      renders.set(path, out);
    } catch (error) {
      // Keep the field the error names (BurnedInAnnotation): the app offers its remedy from it.
      const field = error instanceof InvalidInputError ? error.location?.field : undefined;
      issues.push({ severity: 'error', message: error instanceof Error ? error.message : String(error), location: { file: path, ...(field ? { field } : {}) } });
    }
  }

  // Whatever else is stored byte for byte is sniffed: side files and the images left as they are.
  const removed = new Map<string, number>();
  checkStoredFiles(files, images, { issues, note, acceptBurnedIn: opts.acceptBurnedInAnnotation === true, removed: (kind) => removed.set(kind, (removed.get(kind) ?? 0) + 1) });

  const cases: BenchCase[] = draft.cases.map((c) => {
    if (!c.images.some((img) => renders.has(img.path))) return c;
    const expanded: CaseImage[] = [];
    // The first DICOM image speaks for the case: cases hold one study's images.
    const fromDicom = c.images.map((img) => caseMeta.get(img.path)).find((m) => m !== undefined);
    for (const img of c.images) {
      const r = renders.get(img.path);
      if (!r) {
        expanded.push(img);
        continue;
      }
      for (const one of r) {
        expanded.push({
          ...img,
          path: one.path,
          source: one.source,
          ...(one.plane ? { plane: one.plane } : {}),
          ...(one.slice !== undefined ? { slice: one.slice } : {}),
        });
      }
    }
    return { ...c, images: expanded, ...(fromDicom ? { meta: { ...c.meta, ...fromDicom } } : {}) };
  });

  const droppedTags = [...dropped].map(([tag, d]) => ({ tag: tag.startsWith('nifti:') ? 'nifti' : tag, keyword: d.keyword, files: d.files }));
  const removedMetadata = [...removed].map(([kind, n]) => ({ kind, images: n }));
  return { draft: { ...draft, cases, images, files, issues }, droppedTags, removedMetadata, keyed: [...caseMeta.values()].some((m) => Object.keys(m).some((k) => k.endsWith('Key'))) };
}
