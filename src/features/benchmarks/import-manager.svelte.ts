/**
 * State of one benchmark import: files chosen → format detected → (column
 * mapping) → preview → stored. All the work runs in the import worker; this
 * only keeps what the page shows.
 */
import { isAbortLike, messageWithLocation } from '../../core/errors.ts';
import { KEEP_DESCRIPTIONS_OPTION } from '../../core/bundle/dicom-meta.ts';
import type { Detection } from '../../core/importers/import-pipeline.ts';
import type { CommitResult } from '../../core/stored/benchmark-store.ts';
import type { Progress } from '../../core/model/progress.ts';
import type { PickedFile } from '../../core/bundle/importer.ts';
import type { AnswerType, NumericTolerance, TaskDeclaration } from '../../core/bundle/types.ts';
import { persistence } from '../../lib/storage/persistence.svelte.ts';
import { repos } from '../../lib/storage/app-db.ts';
import { storedMarker } from '../../lib/storage/stored-marker.svelte.ts';
import { importWorker } from '../../lib/workers/clients.ts';
import type { PreviewResult } from '../../../workers/import.worker.ts';

/** The task declaration as the form holds it: text fields, '' where unset. */
export interface TaskDraft {
  answerType: AnswerType | '';
  system: string;
  user: string;
  absolute: string;
  relative: string;
}

const emptyTask = (): TaskDraft => ({ answerType: '', system: '', user: '', absolute: '', relative: '' });

/** The form's task as the importer's `task` option (checked there as a bundle's is); none without an answer type. */
export function taskOption(t: TaskDraft): { task?: TaskDeclaration } {
  if (!t.answerType) return {};
  const number = (v: string): number | string => (v.trim() === '' || !Number.isFinite(Number(v)) ? v.trim() : Number(v));
  const tolerance = t.answerType === 'numeric' && (t.absolute.trim() || t.relative.trim())
    ? { ...(t.absolute.trim() ? { absolute: number(t.absolute) } : {}), ...(t.relative.trim() ? { relative: number(t.relative) } : {}) }
    : null;
  return {
    task: {
      answerType: t.answerType,
      ...(t.user.trim() ? { prompt: { user: t.user, ...(t.system.trim() ? { system: t.system } : {}) } } : {}),
      // A tolerance the user typed that is not a number goes as typed: the importer names the field.
      ...(tolerance ? { scorer: { tolerance: tolerance as NumericTolerance } } : {}),
    },
  };
}

/** A preset's declared task as the form holds it. */
export function taskDraftOf(task: TaskDeclaration | undefined): TaskDraft {
  if (!task) return emptyTask();
  const t = task.scorer?.tolerance;
  return { answerType: task.answerType, system: task.prompt?.system ?? '', user: task.prompt?.user ?? '', absolute: t?.absolute !== undefined ? String(t.absolute) : '', relative: t?.relative !== undefined ? String(t.relative) : '' };
}

type ImportStep = 'idle' | 'detecting' | 'mapping' | 'reading' | 'preview' | 'storing' | 'done' | 'error';

export const GENERIC_KIND = 'generic';

/** How DICOM and NIfTI inputs become the PNGs a model receives (see core/bundle/medical-images.ts). */
interface ImageOptions {
  dicomFrames: 'middle' | 'first' | 'all';
  niftiPlane: 'axial' | 'coronal' | 'sagittal';
  /** `middle`, or slice numbers separated by commas. */
  niftiSlices: string;
  window: 'file' | 'brain' | 'stroke' | 'bone' | 'subdural' | 'auto';
  /** DICOM series (importers/dicom.ts): the plane shown, and `middle`, `all` or slice numbers separated by commas. */
  seriesPlane: 'acquired' | 'axial' | 'coronal' | 'sagittal';
  seriesSlices: string;
  /** Import DICOM marked BurnedInAnnotation YES, secondary captures and screenshots (refused unless the user says they checked the pixels). */
  acceptBurnedIn: boolean;
  /** Keep DICOM protocol/sequence names and descriptions, cleaned (core/bundle/dicom-meta.ts); dropped unless the user asks. */
  keepDicomDescriptions: boolean;
}

/** File names that may be DICOM or NIfTI (DICOM files often have no extension at all). */
function looksMedical(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  return /\.(dcm|dicom|ima|nii|nii\.gz)$/.test(name) || !name.includes('.');
}

/** Parses the slice field: `middle` or `10, 12, 14`; null when it is neither. */
function parseSlices(text: string): 'middle' | number[] | null {
  const t = text.trim();
  if (t === '' || t === 'middle') return 'middle';
  const parts = t.split(/[\s,]+/).filter(Boolean).map(Number);
  return parts.every((n) => Number.isInteger(n) && n >= 0) ? parts : null;
}

export class ImportManager {
  #step = $state<ImportStep>('idle');
  #files = $state.raw<PickedFile[]>([]);
  #detections = $state.raw<Detection[]>([]);
  #kind = $state<string | null>(null);
  #columns = $state.raw<string[]>([]);
  #mapping = $state<Record<string, unknown>>({});
  /** The task the form declares for a column-mapped file: answer type ('' = by the columns), prompt, numeric tolerance. */
  task = $state<TaskDraft>(emptyTask());
  #preview = $state.raw<PreviewResult | null>(null);
  #progress = $state.raw<Progress | null>(null);
  #result = $state.raw<CommitResult | null>(null);
  #error = $state<string | null>(null);
  #conflict = $state(false);
  /** The name and licence the user typed in the preview; null until they change one (the format's own are used). */
  #identity = $state<{ name: string; license: string } | null>(null);
  #imageOptions = $state<ImageOptions>({ dicomFrames: 'middle', niftiPlane: 'axial', niftiSlices: 'middle', window: 'file', seriesPlane: 'acquired', seriesSlices: 'middle', acceptBurnedIn: false, keepDicomDescriptions: false });
  #controller: AbortController | null = null;

  get step() { return this.#step; }
  get files() { return this.#files; }
  get detections() { return this.#detections; }
  get kind() { return this.#kind; }
  get columns() { return this.#columns; }
  get mapping() { return this.#mapping; }
  get preview() { return this.#preview; }
  get progress() { return this.#progress; }
  get result() { return this.#result; }
  get error() { return this.#error; }
  /** The benchmark id is taken by different content: offer "import as a copy". */
  get conflict() { return this.#conflict; }
  get imageOptions() { return this.#imageOptions; }
  /** The name and licence the benchmark will be stored under: the user's, else what the files say. */
  get identity(): { name: string; license: string } {
    return this.#identity ?? { name: this.#preview?.manifest?.name ?? '', license: this.#preview?.manifest?.license ?? '' };
  }

  /** Sets the stored name or licence and reads the files again (both are part of the content hash). */
  async setIdentity(key: 'name' | 'license', value: string): Promise<void> {
    this.#identity = { ...this.identity, [key]: value };
    if (this.#step === 'preview' || this.#step === 'error') await this.read();
  }
  /** Whether to offer the DICOM/NIfTI rendering options. */
  get hasMedicalFiles() { return this.#kind === 'dicom' || this.#files.some((f) => looksMedical(f.path)); }

  /** Changes how DICOM/NIfTI images are rendered and reads the files again. */
  async setImageOption<K extends keyof ImageOptions>(key: K, value: ImageOptions[K]): Promise<void> {
    this.#imageOptions = { ...this.#imageOptions, [key]: value };
    if (this.#step === 'preview' || this.#step === 'error') await this.read();
  }

  get busy() { return this.#step === 'detecting' || this.#step === 'reading' || this.#step === 'storing'; }

  /** New files chosen: detect the format, then preview (or ask for a column mapping). */
  async choose(files: PickedFile[]): Promise<void> {
    await this.reset();
    if (files.length === 0) return;
    this.#files = files;
    this.#step = 'detecting';
    try {
      const picked = files.map(({ path, file }) => ({ path, file }));
      this.#detections = await importWorker.api.detect({ files: picked });
      const best = this.#detections[0];
      if (!best) {
        this.#fail('NeuroEval does not recognise these files. Choose a NeuroEval bundle, a Neural-MedBench JSON, a NeuroVLM-Bench CSV with its images, a VLMEvalKit TSV, or a CSV/JSONL.');
        return;
      }
      await this.useImporter(best.kind);
    } catch (e) {
      this.#fail(e);
    }
  }

  /** Switches importer (the user may override the detected one). */
  async useImporter(kind: string): Promise<void> {
    this.#kind = kind;
    if (kind === GENERIC_KIND) {
      const { columns, suggested } = await importWorker.api.columns({ files: [...this.#files] });
      this.#columns = columns;
      this.#mapping = suggested;
      this.task = emptyTask();
      this.#step = 'mapping';
      return;
    }
    await this.read();
  }

  setMapping(field: string, value: unknown): void {
    this.#mapping = { ...this.#mapping, [field]: value };
  }

  /** Whether the preview can go back to the column mapping (a generic CSV/JSONL). */
  get canEditMapping() { return this.#kind === GENERIC_KIND && this.#columns.length > 0 && (this.#step === 'preview' || this.#step === 'error'); }

  /** Back from the preview to the column mapping, with every choice kept; the preview is dropped (nothing was stored). */
  async editMapping(): Promise<void> {
    if (!this.canEditMapping) return;
    this.#controller?.abort();
    await this.#discardPreview();
    this.#error = null;
    this.#conflict = false;
    this.#step = 'mapping';
  }

  /** Reads and checks the files in the worker. */
  async read(): Promise<void> {
    if (!this.#kind) return;
    await this.#discardPreview();
    this.#step = 'reading';
    this.#error = null;
    const controller = (this.#controller = new AbortController());
    try {
      const io = this.#imageOptions;
      const slices = parseSlices(io.niftiSlices);
      if (slices === null) {
        this.#fail('NIfTI slices must be "middle" or slice numbers separated by commas, e.g. 10, 12, 14.');
        return;
      }
      const seriesSlices = io.seriesSlices.trim() === 'all' ? 'all' : parseSlices(io.seriesSlices);
      if (seriesSlices === null) {
        this.#fail('DICOM series slices must be "middle", "all" or slice numbers separated by commas, e.g. 10, 12, 14.');
        return;
      }
      const options = {
        dicomFrames: io.dicomFrames,
        niftiPlane: io.niftiPlane,
        niftiSlices: slices,
        window: io.window,
        seriesPlane: io.seriesPlane,
        seriesSlices,
        ...(io.acceptBurnedIn ? { acceptBurnedInAnnotation: true } : {}),
        ...(io.keepDicomDescriptions ? { [KEEP_DESCRIPTIONS_OPTION]: true } : {}),
        ...(this.#kind === GENERIC_KIND ? { mapping: $state.snapshot(this.#mapping), ...taskOption(this.task) } : {}),
        ...(this.#identity ? { name: this.#identity.name, license: this.#identity.license } : {}),
      };
      this.#preview = await importWorker.api.preview(
        { files: [...this.#files], kind: this.#kind, options },
        { signal: controller.signal, onProgress: (p) => (this.#progress = p) },
      );
      this.#step = 'preview';
    } catch (e) {
      this.#fail(e);
    } finally {
      this.#progress = null;
    }
  }

  /** Stores the previewed benchmark (one transaction). */
  async commit(asCopy = false): Promise<CommitResult | null> {
    const id = this.#preview?.previewId;
    if (!id) return null;
    this.#step = 'storing';
    this.#conflict = false;
    try {
      const result = await importWorker.api.commit({ previewId: id, asCopy }, { onProgress: (p) => (this.#progress = p) });
      this.#result = result;
      this.#preview = null;
      this.#step = 'done';
      // The worker cannot ask for persistent storage (a window-only API): ask here, at the first import.
      void persistence.request();
      void repos().then((r) => storedMarker.update(r));
      return result;
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (/already stored/.test(message)) {
        this.#conflict = true;
        this.#step = 'preview';
        this.#error = message;
      } else this.#fail(e);
      return null;
    } finally {
      this.#progress = null;
    }
  }

  cancel(): void {
    this.#controller?.abort();
  }

  async reset(): Promise<void> {
    this.#controller?.abort();
    await this.#discardPreview();
    this.#step = 'idle';
    this.#files = [];
    this.#detections = [];
    this.#kind = null;
    this.#preview = null;
    this.#result = null;
    this.#error = null;
    this.#conflict = false;
    this.#identity = null;
  }

  async #discardPreview(): Promise<void> {
    const id = this.#preview?.previewId;
    this.#preview = null;
    if (id) await importWorker.api.discard({ previewId: id }).catch(() => {});
  }

  #fail(e: unknown): void {
    this.#step = 'error';
    this.#error = isAbortLike(e) ? 'The import was cancelled; nothing was stored.' : messageWithLocation(e);
  }
}
