import { describe, expect, it } from 'vitest';
import { finalizeBundle } from '../../../src/core/bundle/finalize.ts';
import { buildDrawnDraft, drawnCases } from '../../../src/core/demo/index.ts';
import { NVB_CLASSES } from '../../../src/core/demo/cases.ts';

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
});
