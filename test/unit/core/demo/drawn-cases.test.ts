import { describe, expect, it } from 'vitest';
import { finalizeBundle } from '../../../../src/core/bundle/finalize.ts';
import { buildDrawnDraft, drawnCases, DEMO_IMAGE_SIZE, renderTissueMap } from '../../../../src/core/demo/index.ts';
import { NVB_CLASSES } from '../../../../src/core/demo/cases.ts';

describe('drawn demo cases (held-out sets)', () => {
  it('draws the five classes in equal measure, each with its labels, one image per case', () => {
    const cases = drawnCases(7, 25);
    const counts = Object.fromEntries(NVB_CLASSES.map((c) => [c, cases.filter((x) => x.case.diseaseGroup === c).length]));
    expect(counts).toEqual(Object.fromEntries(NVB_CLASSES.map((c) => [c, 5])));
    for (const { case: c, renders } of cases) {
      expect(renders).toHaveLength(1);
      const labels = (c.questions[0]!.reference as { labels: Record<string, string | null> }).labels;
      expect(labels.diagnosis_name).toBe(c.diseaseGroup);
      expect(labels.modality).toBe(renders[0]!.sequence === 'CT' ? 'CT' : 'MRI');
      if (c.diseaseGroup === 'stroke') expect(labels.modality).toBe('CT');
    }
  });

  it('is the same for a seed and different across seeds (no image shared with another seed)', () => {
    const a = drawnCases(7, 10).map((c) => JSON.stringify(c.renders));
    expect(drawnCases(7, 10).map((c) => JSON.stringify(c.renders))).toEqual(a);
    const b = new Set(drawnCases(1000, 10).map((c) => JSON.stringify(c.renders)));
    expect(a.some((x) => b.has(x))).toBe(false);
    expect(drawnCases(7, 3).map((c) => c.case.id)).toEqual(['drawn-s7-0001', 'drawn-s7-0002', 'drawn-s7-0003']);
  });

  it('builds a valid bundle named after its seed, defaulting to the NeuroVLM-Bench protocol', () => {
    const { bundle, issues } = finalizeBundle(buildDrawnDraft(3, 5), { inputName: 'held-out' });
    expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(bundle!.manifest).toMatchObject({ id: 'neuroeval-demo-drawn-s3', caseCount: 5, imageCount: 5, synthetic: true, protocolDefaults: { protocol: 'neurovlm-structured' } });
    expect(() => drawnCases(-1, 3)).toThrow(RangeError);
    expect(() => drawnCases(1, 0)).toThrow(RangeError);
  });

  it('asks the same slices for the main lesion, the side being the patient\'s: a lesion drawn in the image\'s left half is on the right', () => {
    const classification = drawnCases(7, 40);
    const lesion = drawnCases(7, 40, 'lesion');
    const sides = new Map<string, number>();
    for (const [i, { case: c, renders }] of lesion.entries()) {
      expect(c.id).toBe(`drawn-lesion-s7-${String(i + 1).padStart(4, '0')}`);
      expect(c.taskFamily).toBe('lesion-recognition');
      expect(JSON.stringify(renders[0]!.slice)).toBe(JSON.stringify(classification[i]!.renders[0]!.slice));
      expect(renders[0]!.sequence).toBe(classification[i]!.renders[0]!.sequence);
      const ref = (c.questions[0]!.reference as { lesion: { type: string; laterality: string | null; sequence?: string } }).lesion;
      sides.set(String(ref.laterality), (sides.get(String(ref.laterality)) ?? 0) + 1);
      if (c.diseaseGroup === 'normal') {
        expect(ref).toEqual({ type: 'no lesion', laterality: null });
        continue;
      }
      expect(ref.sequence).toBe(renders[0]!.sequence);
      if (ref.laterality !== 'left' && ref.laterality !== 'right') continue;
      // Where the drawing differs from the same slice without its lesion: the lesion's pixels, by column.
      const slice = renders[0]!.slice;
      const withLesion = renderTissueMap(slice, DEMO_IMAGE_SIZE);
      const without = renderTissueMap({ ...slice, pathology: undefined }, DEMO_IMAGE_SIZE);
      let imageLeft = 0;
      let imageRight = 0;
      for (let k = 0; k < withLesion.length; k++) {
        if (withLesion[k] === without[k]) continue;
        if (k % DEMO_IMAGE_SIZE < DEMO_IMAGE_SIZE / 2) imageLeft++;
        else imageRight++;
      }
      expect(imageLeft + imageRight, c.id).toBeGreaterThan(0);
      // Radiological convention: the patient's right is on the image's left.
      expect(ref.laterality === 'right' ? imageLeft > imageRight : imageRight > imageLeft, `${c.id} (${ref.type}, ${ref.laterality})`).toBe(true);
    }
    expect(sides.get('left')! + sides.get('right')!).toBeGreaterThan(10);
    const { bundle, issues } = finalizeBundle(buildDrawnDraft(7, 10, 'lesion'), { inputName: 'held-out' });
    expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(bundle!.manifest).toMatchObject({ id: 'neuroeval-demo-drawn-lesion-s7', caseCount: 10, protocolDefaults: { protocol: 'nmb-lesion' } });
  });
});
