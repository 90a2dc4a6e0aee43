/**
 * Fresh NeuroVLM-Bench style cases drawn from a seed: the five classes in
 * equal measure, with lesion kind, position, size, sequence, plane and
 * texture all drawn, so a set drawn with one seed shares no image with a set
 * drawn with another (nor with the hand-written bundled demo). Used for the
 * demo-trained model's training data and for held-out sets anyone can draw
 * (`npm run demo -- --seed <n> --cases <k>`).
 */
import { breadth, type NvbClass, type NvbSequence, type Subtype } from './cases-breadth.ts';
import type { DemoCase, SliceDraft } from './case-kit.ts';
import * as L from './lesions.ts';
import { Prng } from './prng.ts';

const MRI: readonly NvbSequence[] = ['FLAIR', 'T1', 'T2', 'T1C+'];

interface Draw {
  readonly cls: NvbClass;
  readonly detailed: Subtype;
  readonly slice: SliceDraft;
  readonly sequence: NvbSequence;
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
    return { cls: 'tumor', detailed: rng.next() < 0.2 ? null : 'glioma', slice: { plane: 'axial', seed, pathology: L.glioma(p.x, p.y, rng.range(0.1, 0.16), { grade: rng.next() < 0.3 ? 'low' : 'high' }) }, sequence: rng.pick(MRI) };
  }
  if (kind === 1) {
    const angle = rng.range(0, 2 * Math.PI);
    const d = rng.range(0.44, 0.52);
    const pathology = L.extraAxialMass(Math.cos(angle) * d * 0.85, Math.sin(angle) * d, rng.range(0.11, 0.16), { edema: rng.next() < 0.5 });
    return { cls: 'tumor', detailed: 'meningioma', slice: { plane: 'axial', seed, pathology }, sequence: rng.pick(['T1C+', 'T2', 'FLAIR'] as const) };
  }
  if (kind === 2) return { cls: 'tumor', detailed: 'pituitary_tumor', slice: { plane: 'sagittal', seed, pathology: L.pituitaryMacroadenoma() }, sequence: rng.pick(['T1C+', 'T1', 'T2'] as const) };
  const p = lobe(rng, 0.1);
  return { cls: 'tumor', detailed: null, slice: { plane: 'axial', seed, pathology: L.solidMass(p.x, p.y, rng.range(0.08, 0.13), { enhancing: true }) }, sequence: rng.pick(['T1C+', 'T2'] as const) };
}

function stroke(rng: Prng, seed: number): Draw {
  if (rng.next() < 0.5) {
    const territory = rng.pick(['MCA', 'ACA', 'PCA'] as const);
    return { cls: 'stroke', detailed: 'ischemic', slice: { plane: 'axial', seed, pathology: L.territorialInfarct(territory, rng.next() < 0.5 ? -1 : 1) }, sequence: 'CT' };
  }
  const p = lobe(rng, 0.15);
  const pathology = L.hematoma(p.x, p.y, rng.range(0.08, 0.13), rng.next() < 0.25 ? { intraventricular: p.x < 0 ? -1 : 1 } : {});
  return { cls: 'stroke', detailed: 'hemorrhagic', slice: { plane: 'axial', seed, pathology }, sequence: 'CT' };
}

function ms(rng: Prng, seed: number): Draw {
  if (rng.next() < 0.25) return { cls: 'multiple sclerosis', detailed: null, slice: { plane: 'sagittal', seed, pathology: L.callosalPlaques({ active: rng.next() < 0.3 }) }, sequence: 'FLAIR' };
  const extra = Array.from({ length: rng.int(0, 3) }, () => {
    const p = lobe(rng, 0.3);
    return { x: p.x, y: p.y, len: rng.range(0.02, 0.04), angle: rng.range(-80, 80) };
  });
  return { cls: 'multiple sclerosis', detailed: null, slice: { plane: 'axial', seed, pathology: L.periventricularPlaques({ extra }) }, sequence: rng.pick(['FLAIR', 'T2'] as const) };
}

function normal(rng: Prng, seed: number): Draw {
  const plane = rng.pick(['axial', 'axial', 'sagittal', 'coronal'] as const);
  const slice: SliceDraft = plane === 'axial' ? { plane, seed, level: rng.next() < 0.25 ? 'posterior-fossa' : 'ventricles' } : { plane, seed };
  return { cls: 'normal', detailed: null, slice, sequence: rng.pick([...MRI, 'CT'] as const) };
}

function other(rng: Prng, seed: number): Draw {
  const kind = rng.int(0, 2);
  if (kind === 0) {
    const side = rng.next() < 0.5 ? -1 : 1;
    return { cls: 'other abnormalities', detailed: null, slice: { plane: 'axial', seed, pathology: L.arachnoidCyst(side * rng.range(0.45, 0.55), rng.range(-0.5, -0.3), rng.range(0.11, 0.15), rng.range(0.16, 0.22)) }, sequence: rng.pick(['T2', 'FLAIR', 'T1'] as const) };
  }
  if (kind === 1) {
    const p = lobe(rng);
    return { cls: 'other abnormalities', detailed: null, slice: { plane: 'axial', seed, pathology: L.abscess(p.x, p.y, rng.range(0.07, 0.11)) }, sequence: rng.pick(['T1C+', 'T2'] as const) };
  }
  return { cls: 'other abnormalities', detailed: null, slice: { plane: 'axial', seed, anatomy: { ventricles: rng.range(1.7, 2.1) } }, sequence: rng.pick(['CT', 'T2', 'T1'] as const) };
}

const DRAW: Readonly<Record<NvbClass, (rng: Prng, seed: number) => Draw>> = {
  tumor,
  stroke,
  'multiple sclerosis': ms,
  normal,
  'other abnormalities': other,
};
const ORDER: readonly NvbClass[] = ['tumor', 'stroke', 'multiple sclerosis', 'normal', 'other abnormalities'];

/**
 * `count` cases drawn with `seed`: classes in turn (so every class has
 * count/5 cases, ±1), everything else drawn. Deterministic for a seed.
 */
export function drawnCases(seed: number, count: number): DemoCase[] {
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
    const id = `drawn-s${seed}-${String(i + 1).padStart(4, '0')}`;
    out.push(breadth(id, d.cls, d.detailed, d.slice, d.sequence, rng.int(5, 20)));
  }
  return out;
}
