import { describe, expect, it } from 'vitest';
import { datan2, dcos, dsin } from '../../../../src/core/demo/det-math.ts';
import * as L from '../../../../src/core/demo/lesions.ts';
import { fbm, valueNoise } from '../../../../src/core/demo/noise.ts';
import { type DemoSequence, DEMO_IMAGE_SIZE, type SliceSpec, renderImage, renderTissueMap } from '../../../../src/core/demo/phantom.ts';
import { Prng, hashString } from '../../../../src/core/demo/prng.ts';
import { Tissue } from '../../../../src/core/demo/tissues.ts';

/** Mean intensity of the pixels of one tissue in one sequence of a slice. */
function meanOf(spec: SliceSpec, sequence: DemoSequence, tissue: number): number {
  const map = renderTissueMap(spec);
  const px = renderImage(map, DEMO_IMAGE_SIZE, sequence, spec.seed);
  let sum = 0;
  let n = 0;
  // Skip pixels next to another tissue (blur mixes them).
  const S = DEMO_IMAGE_SIZE;
  for (let y = 1; y < S - 1; y++) {
    for (let x = 1; x < S - 1; x++) {
      const k = y * S + x;
      if (map[k] !== tissue || map[k - 1] !== tissue || map[k + 1] !== tissue || map[k - S] !== tissue || map[k + S] !== tissue) continue;
      sum += px[k]!;
      n++;
    }
  }
  if (n < 20) throw new Error(`too few pixels of tissue ${tissue} (${n})`);
  return sum / n;
}

const normalAxial: SliceSpec = { plane: 'axial', seed: 101 };

describe('phantom contrasts', () => {
  it('shows CSF dark on T1 and FLAIR, bright on T2', () => {
    const t1 = meanOf(normalAxial, 'T1', Tissue.Csf);
    const t2 = meanOf(normalAxial, 'T2', Tissue.Csf);
    const flair = meanOf(normalAxial, 'FLAIR', Tissue.Csf);
    expect(t1).toBeLessThan(t2 - 100);
    expect(flair).toBeLessThan(t2 - 100);
  });

  it('shows white matter brighter than grey matter on T1, darker on T2 and FLAIR', () => {
    expect(meanOf(normalAxial, 'T1', Tissue.Wm)).toBeGreaterThan(meanOf(normalAxial, 'T1', Tissue.DeepGm) + 25);
    expect(meanOf(normalAxial, 'T2', Tissue.Wm)).toBeLessThan(meanOf(normalAxial, 'T2', Tissue.DeepGm) - 15);
    expect(meanOf(normalAxial, 'FLAIR', Tissue.Wm)).toBeLessThan(meanOf(normalAxial, 'FLAIR', Tissue.DeepGm) - 10);
  });

  it('shows bone very bright, CSF dark and parenchyma mid-grey on CT; bone dark on MRI', () => {
    const bone = meanOf(normalAxial, 'CT', Tissue.Bone);
    const csf = meanOf(normalAxial, 'CT', Tissue.Csf);
    const wm = meanOf(normalAxial, 'CT', Tissue.Wm);
    expect(bone).toBeGreaterThan(240);
    expect(csf).toBeLessThan(45);
    expect(wm).toBeGreaterThan(csf + 40);
    expect(wm).toBeLessThan(bone - 100);
    expect(meanOf(normalAxial, 'T1', Tissue.Bone)).toBeLessThan(40);
  });

  it('shows lesions the way each sequence should', () => {
    const gbm: SliceSpec = { plane: 'axial', seed: 5, pathology: L.glioma(0.3, -0.25, 0.14) };
    expect(meanOf(gbm, 'T1C+', Tissue.Rim)).toBeGreaterThan(meanOf(gbm, 'T1', Tissue.Rim) + 80);
    expect(meanOf(gbm, 'FLAIR', Tissue.Edema)).toBeGreaterThan(meanOf(gbm, 'FLAIR', Tissue.Wm) + 70);

    const infarct: SliceSpec = { plane: 'axial', seed: 6, pathology: L.territorialInfarct('MCA', 1) };
    expect(meanOf(infarct, 'DWI', Tissue.Infarct)).toBeGreaterThan(meanOf(infarct, 'DWI', Tissue.Wm) + 80);
    expect(meanOf(infarct, 'ADC', Tissue.Infarct)).toBeLessThan(meanOf(infarct, 'ADC', Tissue.Wm) - 20);
    expect(meanOf(infarct, 'CT', Tissue.Infarct)).toBeLessThan(meanOf(infarct, 'CT', Tissue.Wm) - 20);

    const bleed: SliceSpec = { plane: 'axial', seed: 7, pathology: L.hematoma(-0.27, -0.04, 0.1) };
    expect(meanOf(bleed, 'CT', Tissue.Blood)).toBeGreaterThan(meanOf(bleed, 'CT', Tissue.Gm) + 60);

    const ms: SliceSpec = { plane: 'axial', seed: 8, pathology: L.plaques([{ x: 0.3, y: 0.1, len: 0.08 }]) };
    expect(meanOf(ms, 'FLAIR', Tissue.Plaque)).toBeGreaterThan(meanOf(ms, 'FLAIR', Tissue.Wm) + 90);

    const abscess: SliceSpec = { plane: 'axial', seed: 9, pathology: L.abscess(0.3, 0.1, 0.12) };
    const necrotic: SliceSpec = { plane: 'axial', seed: 9, pathology: L.necroticRing(0.3, 0.1, 0.12) };
    expect(meanOf(abscess, 'DWI', Tissue.Pus)).toBeGreaterThan(meanOf(necrotic, 'DWI', Tissue.Necrosis) + 100);
  });

  it('pushes the midline away from a mass', () => {
    const row = (spec: SliceSpec) => {
      const map = renderTissueMap(spec);
      const y = Math.round(((-0.25 + 1) / 2) * DEMO_IMAGE_SIZE);
      // Find the septum between the frontal horns: the white matter between two CSF runs near the centre.
      const xs: number[] = [];
      for (let x = 64; x < 192; x++) if (map[y * DEMO_IMAGE_SIZE + x] === Tissue.Csf) xs.push(x);
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    const normal = row({ plane: 'axial', seed: 3 });
    const shifted = row({ plane: 'axial', seed: 3, pathology: L.glioma(0.35, -0.2, 0.16, { shift: 0.5 }) });
    expect(shifted).toBeLessThan(normal - 3);
  });

  it('draws every plane and level with brain, CSF and skull', () => {
    const specs: SliceSpec[] = [
      { plane: 'axial', seed: 1 },
      { plane: 'axial', level: 'posterior-fossa', seed: 1 },
      { plane: 'sagittal', seed: 1 },
      { plane: 'coronal', seed: 1 },
    ];
    for (const s of specs) {
      const counts = new Map<number, number>();
      for (const t of renderTissueMap(s)) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const t of [Tissue.Air, Tissue.Scalp, Tissue.Bone, Tissue.Csf, Tissue.Gm, Tissue.Wm]) expect(counts.get(t) ?? 0, `${s.plane} ${s.level ?? ''} ${t}`).toBeGreaterThan(200);
    }
  });
});

describe('deterministic maths', () => {
  it('matches the built-in trigonometry closely', () => {
    for (let x = -20; x <= 20; x += 0.37) {
      expect(Math.abs(dsin(x) - Math.sin(x))).toBeLessThan(1e-6);
      expect(Math.abs(dcos(x) - Math.cos(x))).toBeLessThan(1e-6);
    }
    for (let y = -2; y <= 2; y += 0.13) {
      for (let x = -2; x <= 2; x += 0.17) expect(Math.abs(datan2(y, x) - Math.atan2(y, x))).toBeLessThan(2e-5);
    }
    expect(datan2(0, 0)).toBe(0);
  });

  it('has a seeded generator that repeats itself and stays in range', () => {
    const a = new Prng(42);
    const b = new Prng(42);
    const seqA = Array.from({ length: 1000 }, () => a.next());
    const seqB = Array.from({ length: 1000 }, () => b.next());
    expect(seqA).toEqual(seqB);
    expect(seqA.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(new Prng('x').nextUint32()).toBe(new Prng(hashString('x')).nextUint32());
    // Reference mulberry32 output for seed 1. A change here changes every demo image and the demo's content hash.
    expect(new Prng(1).next()).toBe(0.6270739405881613);
    const p = new Prng(1);
    expect([p.nextUint32(), p.nextUint32(), p.nextUint32()]).toEqual([2693262067, 11749833, 2265367787]);
    const r = new Prng(7);
    for (let i = 0; i < 200; i++) {
      const n = r.int(3, 9);
      expect(n).toBeGreaterThanOrEqual(3);
      expect(n).toBeLessThanOrEqual(9);
    }
  });

  it('has smooth, bounded noise', () => {
    for (let i = 0; i < 500; i++) {
      const x = i * 0.173;
      const y = i * 0.091;
      const v = valueNoise(x, y, 3);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
      expect(Math.abs(valueNoise(x + 1e-4, y, 3) - v)).toBeLessThan(1e-2);
      expect(Math.abs(fbm(x, y, 3))).toBeLessThanOrEqual(0.5);
    }
  });
});
