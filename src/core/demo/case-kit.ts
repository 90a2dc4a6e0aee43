/**
 * Helpers for writing the demo's cases compactly: a case lists its slices
 * and sequences, and gets image paths, image metadata, seeds, the sequence
 * list and the modality filled in the same way every time.
 */
import type { BenchCase, CaseImage, Question } from '../bundle/types.ts';
import { hashString } from './prng.ts';
import { DEMO_IMAGE_SIZE, type DemoSequence, type SliceSpec } from './phantom.ts';
import type { Plane } from '../model/geometry.ts';

/** A slice as written in a case: the seed is derived from the case id unless given. */
export type SliceDraft = Omit<SliceSpec, 'seed'> & { readonly seed?: number };

interface ImageDraft {
  readonly slice: SliceDraft;
  readonly sequence: DemoSequence;
  /** Slice number shown with the image (fictional, like a PACS position). */
  readonly sliceNo: number;
  /** Leave the plane out of the image metadata (unknown plane in the source). */
  readonly hidePlane?: boolean;
}

/** One image to render: where it goes and how to draw it. */
export interface DemoRender {
  readonly path: string;
  readonly slice: SliceSpec;
  readonly sequence: DemoSequence;
}

export interface DemoCase {
  readonly case: BenchCase;
  readonly renders: readonly DemoRender[];
}

export function img(slice: SliceDraft, sequence: DemoSequence, sliceNo: number, opts: { hidePlane?: boolean } = {}): ImageDraft {
  return { slice, sequence, sliceNo, ...(opts.hidePlane ? { hidePlane: true } : {}) };
}

const PLANE_NAME: Record<Plane, string> = { axial: 'Axial', sagittal: 'Sagittal', coronal: 'Coronal' };

function modalityOf(sequences: readonly DemoSequence[]): string {
  const ct = sequences.some((s) => s === 'CT');
  const mri = sequences.some((s) => s !== 'CT');
  return ct && mri ? 'CT+MRI' : ct ? 'CT' : 'MRI';
}

interface CaseDraft {
  readonly id: string;
  readonly split: string;
  readonly taskFamily: BenchCase['taskFamily'];
  readonly diseaseGroup: string;
  readonly ehr?: BenchCase['ehr'];
  readonly notes?: string;
  readonly questions: readonly Question[];
  /** Source style, for the `meta` field. */
  readonly style: string;
}

/** Builds a case and its render list from a draft and its images (in the order shown). */
export function makeCase(draft: CaseDraft, images: readonly ImageDraft[]): DemoCase {
  const seeds = new Map<SliceDraft, SliceSpec>();
  const base = hashString(draft.id) & 0xffffff;
  const renders: DemoRender[] = [];
  const caseImages: CaseImage[] = images.map((im, i) => {
    let spec = seeds.get(im.slice);
    if (!spec) {
      spec = { ...im.slice, seed: im.slice.seed ?? base + seeds.size * 7919 };
      seeds.set(im.slice, spec);
    }
    const path = `images/${draft.id}-${i + 1}.png`;
    renders.push({ path, slice: spec, sequence: im.sequence });
    const plane = im.slice.plane;
    const what = im.sequence === 'CT' ? 'non-contrast CT' : im.sequence;
    return {
      path,
      mime: 'image/png',
      width: DEMO_IMAGE_SIZE,
      height: DEMO_IMAGE_SIZE,
      sequence: im.sequence,
      ...(im.hidePlane ? {} : { plane }),
      slice: im.sliceNo,
      label: im.hidePlane ? what : `${PLANE_NAME[plane]} ${what}`,
    };
  });
  const sequences = [...new Set(images.map((i) => i.sequence))];
  const c: BenchCase = {
    id: draft.id,
    split: draft.split,
    taskFamily: draft.taskFamily,
    modality: modalityOf(sequences),
    sequences,
    diseaseGroup: draft.diseaseGroup,
    images: caseImages,
    ...(draft.ehr ? { ehr: draft.ehr } : {}),
    ...(draft.notes ? { notes: draft.notes } : {}),
    questions: draft.questions,
    meta: { synthetic: 'true', generator: 'neuroeval-demo', style: draft.style },
  };
  return { case: c, renders };
}
