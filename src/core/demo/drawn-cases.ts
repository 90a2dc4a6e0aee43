/**
 * Fresh NeuroVLM-Bench style cases drawn from a seed: the five classes in
 * equal measure, with lesion kind, position, size, sequence, plane and
 * texture all drawn, so a set drawn with one seed shares no image with a set
 * drawn with another (nor with the hand-written bundled demo). Used for the
 * demo-trained model's training data and for held-out sets anyone can draw
 * (`npm run demo -- --seed <n> --cases <k>`).
 */
import type { Laterality } from '../bundle/types.ts';
import { breadth, type NvbClass, type NvbSequence, type Subtype } from './cases-breadth.ts';
import { img, makeCase, type DemoCase, type SliceDraft } from './case-kit.ts';
import { LESION_QUESTION } from './cases-depth.ts';
import * as L from './lesions.ts';
import { Prng } from './prng.ts';

const MRI: readonly NvbSequence[] = ['FLAIR', 'T1', 'T2', 'T1C+'];

/** The main lesion of a drawn slice as a reader would name it; `type` "no lesion" for a normal slice. */
interface DrawnLesion {
  readonly type: string;
  readonly location: string | null;
  readonly laterality: Laterality | null;
}

interface Draw {
  readonly cls: NvbClass;
  readonly detailed: Subtype;
  readonly slice: SliceDraft;
  readonly sequence: NvbSequence;
  readonly lesion: DrawnLesion;
}

/**
 * The patient's side of a lesion centred at `x` (−1 … 1 across the image):
 * images are in radiological convention, so the image's left half is the
 * patient's right. Within `midline` of the centre it is a midline lesion.
 */
function sideOf(x: number, midline = 0): Laterality {
  if (Math.abs(x) < midline) return 'midline';
  return x < 0 ? 'right' : 'left';
}

/** A point inside the axial brain outline, clear of the midline by at least `minX`. */
function lobe(rng: Prng, minX = 0.18): { x: number; y: number } {
  const side = rng.next() < 0.5 ? -1 : 1;
  return { x: side * rng.range(minX, 0.42), y: rng.range(-0.42, 0.35) };
}

function tumor(rng: Prng, seed: number): Draw {
  const kind = rng.int(0, 3);
  if (kind === 0) {
    const p = lobe(rng);
    const detailed = rng.next() < 0.2 ? null : 'glioma';
    const slice: SliceDraft = { plane: 'axial', seed, pathology: L.glioma(p.x, p.y, rng.range(0.1, 0.16), { grade: rng.next() < 0.3 ? 'low' : 'high' }) };
    return { cls: 'tumor', detailed, slice, sequence: rng.pick(MRI), lesion: { type: 'infiltrative intra-axial tumour (glioma)', location: 'cerebral hemisphere white matter', laterality: sideOf(p.x) } };
  }
  if (kind === 1) {
    const angle = rng.range(0, 2 * Math.PI);
    const d = rng.range(0.44, 0.52);
    const x = Math.cos(angle) * d * 0.85;
    const pathology = L.extraAxialMass(x, Math.sin(angle) * d, rng.range(0.11, 0.16), { edema: rng.next() < 0.5 });
    // A convexity mass close to the midline sits against the falx: a midline lesion.
    const lesion = { type: 'extra-axial dural-based mass (meningioma)', location: 'cerebral convexity', laterality: sideOf(x, 0.12) };
    return { cls: 'tumor', detailed: 'meningioma', slice: { plane: 'axial', seed, pathology }, sequence: rng.pick(['T1C+', 'T2', 'FLAIR'] as const), lesion };
  }
  if (kind === 2) {
    const lesion = { type: 'sellar mass (pituitary macroadenoma)', location: 'sella turcica', laterality: 'midline' as const };
    return { cls: 'tumor', detailed: 'pituitary_tumor', slice: { plane: 'sagittal', seed, pathology: L.pituitaryMacroadenoma() }, sequence: rng.pick(['T1C+', 'T1', 'T2'] as const), lesion };
  }
  const p = lobe(rng, 0.1);
  const slice: SliceDraft = { plane: 'axial', seed, pathology: L.solidMass(p.x, p.y, rng.range(0.08, 0.13), { enhancing: true }) };
  return { cls: 'tumor', detailed: null, slice, sequence: rng.pick(['T1C+', 'T2'] as const), lesion: { type: 'enhancing solid mass', location: 'cerebral hemisphere', laterality: sideOf(p.x) } };
}

function stroke(rng: Prng, seed: number): Draw {
  if (rng.next() < 0.5) {
    const territory = rng.pick(['MCA', 'ACA', 'PCA'] as const);
    const side = rng.next() < 0.5 ? -1 : 1;
    const lesion = { type: 'ischaemic infarct', location: `${territory} territory`, laterality: sideOf(side) };
    return { cls: 'stroke', detailed: 'ischemic', slice: { plane: 'axial', seed, pathology: L.territorialInfarct(territory, side) }, sequence: 'CT', lesion };
  }
  const p = lobe(rng, 0.15);
  const r = rng.range(0.08, 0.13);
  const intraventricular = rng.next() < 0.25;
  const pathology = L.hematoma(p.x, p.y, r, intraventricular ? { intraventricular: p.x < 0 ? -1 : 1 } : {});
  const location = intraventricular ? 'cerebral hemisphere, with blood in the ventricle' : 'cerebral hemisphere';
  return { cls: 'stroke', detailed: 'hemorrhagic', slice: { plane: 'axial', seed, pathology }, sequence: 'CT', lesion: { type: 'intracerebral haemorrhage', location, laterality: sideOf(p.x) } };
}

function ms(rng: Prng, seed: number): Draw {
  if (rng.next() < 0.25) {
    const lesion = { type: 'demyelinating plaques', location: 'corpus callosum', laterality: 'midline' as const };
    return { cls: 'multiple sclerosis', detailed: null, slice: { plane: 'sagittal', seed, pathology: L.callosalPlaques({ active: rng.next() < 0.3 }) }, sequence: 'FLAIR', lesion };
  }
  const extra = Array.from({ length: rng.int(0, 3) }, () => {
    const p = lobe(rng, 0.3);
    return { x: p.x, y: p.y, len: rng.range(0.02, 0.04), angle: rng.range(-80, 80) };
  });
  const lesion = { type: 'demyelinating plaques', location: 'periventricular white matter', laterality: 'bilateral' as const };
  return { cls: 'multiple sclerosis', detailed: null, slice: { plane: 'axial', seed, pathology: L.periventricularPlaques({ extra }) }, sequence: rng.pick(['FLAIR', 'T2'] as const), lesion };
}

function normal(rng: Prng, seed: number): Draw {
  const plane = rng.pick(['axial', 'axial', 'sagittal', 'coronal'] as const);
  const slice: SliceDraft = plane === 'axial' ? { plane, seed, level: rng.next() < 0.25 ? 'posterior-fossa' : 'ventricles' } : { plane, seed };
  return { cls: 'normal', detailed: null, slice, sequence: rng.pick([...MRI, 'CT'] as const), lesion: { type: 'no lesion', location: null, laterality: null } };
}

function other(rng: Prng, seed: number): Draw {
  const kind = rng.int(0, 2);
  if (kind === 0) {
    const side = rng.next() < 0.5 ? -1 : 1;
    const pathology = L.arachnoidCyst(side * rng.range(0.45, 0.55), rng.range(-0.5, -0.3), rng.range(0.11, 0.15), rng.range(0.16, 0.22));
    const lesion = { type: 'arachnoid cyst', location: 'extra-axial CSF space', laterality: sideOf(side) };
    return { cls: 'other abnormalities', detailed: null, slice: { plane: 'axial', seed, pathology }, sequence: rng.pick(['T2', 'FLAIR', 'T1'] as const), lesion };
  }
  if (kind === 1) {
    const p = lobe(rng);
    const lesion = { type: 'ring-enhancing lesion (abscess)', location: 'cerebral hemisphere', laterality: sideOf(p.x) };
    return { cls: 'other abnormalities', detailed: null, slice: { plane: 'axial', seed, pathology: L.abscess(p.x, p.y, rng.range(0.07, 0.11)) }, sequence: rng.pick(['T1C+', 'T2'] as const), lesion };
  }
  const lesion = { type: 'enlarged ventricles', location: 'ventricular system', laterality: 'bilateral' as const };
  return { cls: 'other abnormalities', detailed: null, slice: { plane: 'axial', seed, anatomy: { ventricles: rng.range(1.7, 2.1) } }, sequence: rng.pick(['CT', 'T2', 'T1'] as const), lesion };
}

const DRAW: Readonly<Record<NvbClass, (rng: Prng, seed: number) => Draw>> = {
  tumor,
  stroke,
  'multiple sclerosis': ms,
  normal,
  'other abnormalities': other,
};
const ORDER: readonly NvbClass[] = ['tumor', 'stroke', 'multiple sclerosis', 'normal', 'other abnormalities'];

/** What a drawn set asks of each slice: NeuroVLM-Bench's classification, or Neural-MedBench's lesion recognition. */
export type DrawnTask = 'classification' | 'lesion';

/**
 * `count` cases drawn with `seed`: classes in turn (so every class has
 * count/5 cases, ±1), everything else drawn. Deterministic for a seed; the
 * lesion task draws the very same slices as the classification task and
 * asks for the main lesion's type, location, side and sequence instead.
 */
export function drawnCases(seed: number, count: number, task: DrawnTask = 'classification'): DemoCase[] {
  if (!Number.isInteger(seed) || seed < 0) throw new RangeError(`seed must be a whole number ≥ 0, not ${seed}`);
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`count must be a whole number ≥ 1, not ${count}`);
  const out: DemoCase[] = [];
  const order = new Prng(`neuroeval-drawn/${seed}/order`);
  // Shuffled class order per block of five, so neighbours are not always the same classes.
  let block: NvbClass[] = [];
  for (let i = 0; i < count; i++) {
    if (block.length === 0) {
      block = [...ORDER];
      for (let j = block.length - 1; j > 0; j--) {
        const k = order.int(0, j);
        [block[j], block[k]] = [block[k]!, block[j]!];
      }
    }
    const cls = block.pop()!;
    const rng = new Prng(`neuroeval-drawn/${seed}/${i}`);
    const d = DRAW[cls](rng, (rng.nextUint32() & 0x7fffffff) >>> 0);
    const n = String(i + 1).padStart(4, '0');
    const sliceNo = rng.int(5, 20);
    out.push(task === 'classification' ? breadth(`drawn-s${seed}-${n}`, d.cls, d.detailed, d.slice, d.sequence, sliceNo) : lesionCase(`drawn-lesion-s${seed}-${n}`, d, sliceNo));
  }
  return out;
}

const DIAGNOSIS: Readonly<Record<string, string>> = { glioma: 'glioma', meningioma: 'meningioma', pituitary_tumor: 'pituitary adenoma', ischemic: 'ischaemic stroke', hemorrhagic: 'haemorrhagic stroke' };

/** A Neural-MedBench style lesion-recognition case of one drawn slice; the reference is what the drawing holds. */
function lesionCase(id: string, d: Draw, sliceNo: number): DemoCase {
  const { type, location, laterality } = d.lesion;
  return makeCase(
    {
      id,
      split: 'lesion',
      taskFamily: 'lesion-recognition',
      diseaseGroup: d.cls,
      style: 'neural-medbench',
      questions: [
        {
          id: 'q1',
          text: LESION_QUESTION,
          lang: 'en',
          reference: {
            diagnosis: DIAGNOSIS[d.detailed ?? ''] ?? d.cls,
            // A normal slice has no lesion: its side and sequence are not scored.
            lesion: { type, ...(location ? { location } : {}), laterality, ...(d.cls === 'normal' ? {} : { sequence: d.sequence }) },
          },
        },
      ],
    },
    [img(d.slice, d.sequence, sliceNo)],
  );
}
