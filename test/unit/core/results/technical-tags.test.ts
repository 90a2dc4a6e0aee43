/**
 * Breakdowns by the technical tags of hospital images: groups a reader would
 * form (field strengths by nominal tesla, slice thickness in bins, vendors by
 * name), offered only when some case carries the tag, with labels that read
 * as words rather than keys.
 */
import { describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import type { ScoreRecord } from '../../../../src/core/scoring/run/records.ts';
import { breakdown, dimensionsFor, DIMENSION_LABELS } from '../../../../src/core/results/breakdowns.ts';
import type { ScoredRun } from '../../../../src/core/results/leaderboard.ts';
import { breakdownFigure } from '../../../../src/core/results/figures.ts';
import { toSvgString } from '../../../../src/core/results/svg.ts';
import { contrastGroup, fieldStrengthGroup, manufacturerGroup, sliceThicknessGroup, metaKeyLabel, technicalGroup } from '../../../../src/core/results/technical-tags.ts';
import { scoreRun } from '../../../../src/core/scoring/run/score-run.ts';
import { itemKeyOf } from '../../../../src/core/runner/plan.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';

describe('grouping tag values', () => {
  it('field strength: nominal tesla, whatever the scanner wrote', () => {
    expect(['1.5', '1.5000', ' 3 ', '3.0', '2.89362', '3T', '15000', '0.35', '7', '9.4'].map(fieldStrengthGroup))
      .toEqual(['1.5 T', '1.5 T', '3 T', '3 T', '3 T', '3 T', '1.5 T', '0.35 T', '7 T', '9.4 T']);
    // Not near a nominal strength: one decimal, still in tesla.
    expect(fieldStrengthGroup('2.2')).toBe('2.2 T');
    expect(['', 'high', '-1', '0'].map(fieldStrengthGroup)).toEqual(['(unreadable)', '(unreadable)', '(unreadable)', '(unreadable)']);
  });

  it('slice thickness: bins with inclusive upper edges', () => {
    expect(['0.9', '1', '1.0', '1.25', '3', '3.3', '5.0', '5.5', '10 mm'].map(sliceThicknessGroup))
      .toEqual(['≤ 1 mm', '≤ 1 mm', '≤ 1 mm', '1–3 mm', '1–3 mm', '3–5 mm', '3–5 mm', '> 5 mm', '> 5 mm']);
    expect(sliceThicknessGroup('thin')).toBe('(unreadable)');
  });

  it('manufacturer: one name per vendor; others as written', () => {
    expect(['SIEMENS', 'Siemens Healthineers', 'GE MEDICAL SYSTEMS', 'GE Healthcare', 'Philips Medical Systems', 'Philips Healthcare', 'TOSHIBA', 'Canon Medical Systems', 'Acme  MRI'].map(manufacturerGroup))
      .toEqual(['Siemens', 'Siemens', 'GE', 'GE', 'Philips', 'Philips', 'Toshiba', 'Canon', 'Acme MRI']);
    // A name that merely begins with the letters G, E is not GE.
    expect(manufacturerGroup('GEMINI')).toBe('GEMINI');
  });

  it('contrast: none, given without a name, or the agent', () => {
    expect(['NONE', 'no', '', 'Yes', 'Gadovist 7.5 ml'].map(contrastGroup)).toEqual(['None', 'None', '', 'Given (agent not named)', 'Gadovist 7.5 ml']);
    expect(technicalGroup('contrast', {})).toBe('(not recorded)');
    expect(technicalGroup('scanSequence', { 'dicom.sequence': ' t2_tse_tra ' })).toBe('t2_tse_tra');
    expect(technicalGroup('scanProtocol', { 'dicom.protocol': 'BRAIN  ROUTINE' })).toBe('BRAIN ROUTINE');
  });
});

describe('dimensions on offer', () => {
  it('technical dimensions only when some case carries the tag; labels are words, not keys', () => {
    const plain = dimensionsFor([{}, { meta: { source: 'x' } }]);
    expect(plain).toEqual(['split', 'taskFamily', 'diseaseGroup', 'modality', 'sequence', 'plane', 'variant', 'protocol']);
    const tagged = dimensionsFor([{ meta: { 'dicom.fieldStrength': '3', 'dicom.manufacturer': 'SIEMENS' } }, { meta: { 'dicom.sliceThickness': '1', 'dicom.contrast': ' ' } }]);
    expect(tagged.slice(8)).toEqual(['manufacturer', 'fieldStrength', 'sliceThickness']);
    expect(tagged.slice(8).map((d) => DIMENSION_LABELS[d])).toEqual(['Scanner manufacturer', 'Scanner field strength', 'Slice thickness']);
    for (const d of dimensionsFor([{ meta: Object.fromEntries(['manufacturer', 'model', 'fieldStrength', 'sliceThickness', 'sequence', 'protocol', 'contrast'].map((k) => [`dicom.${k}`, 'x'])) }])) {
      expect(DIMENSION_LABELS[d]).not.toMatch(/dicom|[a-z][A-Z]/);
    }
  });
});

describe('breakdown by technical tags', () => {
  const tags: Record<string, string>[] = [
    { 'dicom.fieldStrength': '3', 'dicom.sliceThickness': '5', 'dicom.manufacturer': 'SIEMENS' },
    { 'dicom.fieldStrength': '2.89362', 'dicom.sliceThickness': '0.9', 'dicom.manufacturer': 'Siemens Healthineers' },
    { 'dicom.fieldStrength': '1.5', 'dicom.sliceThickness': '3', 'dicom.manufacturer': 'GE MEDICAL SYSTEMS' },
    { 'dicom.fieldStrength': '1.5', 'dicom.sliceThickness': '6', 'dicom.manufacturer': 'GE MEDICAL SYSTEMS' },
    {},
  ];
  const cases: BenchCase[] = tags.map((meta, i) => ({
    id: `c${i}`, taskFamily: 'differential-diagnosis', images: [{ path: 'a.png' }],
    questions: [{ id: 'q', text: 'Dx?', reference: { diagnosis: 'Glioblastoma' } }], meta,
  }));
  // Right on c0, c1 and c2, wrong on c3 and c4.
  const responses: ResponseRecord[] = cases.map((c, i) => {
    const itemKey = itemKeyOf({ caseId: c.id, questionId: 'q', modelId: 'm', variant: 'none', sample: 0 });
    const dx = i < 3 ? 'Glioblastoma' : 'Migraine';
    return {
      id: `r1/${itemKey}`, runId: 'r1', itemKey, caseId: c.id, questionId: 'q', cacheKey: '', modelId: 'm', variant: 'none', sample: 0, rawText: dx,
      parsed: { hypotheses: [{ rank: 1, diagnosis: dx, confidence: 0.8, evidence: null }] }, parseError: null,
      usage: { promptTokens: 1, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1 }, latencyMs: 1, finishReason: 'stop', createdAt: 1,
    };
  });

  async function run(): Promise<ScoredRun> {
    const r = await scoreRun({ protocolId: 'auto', cases, responses });
    return {
      run: { id: 'r1', name: 'R', benchmarkId: 'b', status: 'done', createdAt: 1 },
      set: { id: 's', runId: 'r1', version: 1, createdAt: 1, durationMs: 1, config: r.config, summary: r.summary },
      items: r.items.map((it): ScoreRecord => ({ ...it, id: `s|${it.responseId}`, scoreSetId: 's', runId: 'r1' })),
    };
  }

  it('groups by nominal field strength, thickness bin and vendor, untagged cases last', async () => {
    const map = new Map(cases.map((c) => [c.id, c]));
    const r = await run();
    const field = breakdown([r], map, 'fieldStrength', 'pass@1');
    expect(field.groups).toEqual(['1.5 T', '3 T', '(not recorded)']);
    expect(field.cells.map((row) => [row[0]!.value, row[0]!.n])).toEqual([[0.5, 2], [1, 2], [0, 1]]);
    // One key per case: no patient clustering, plain Wilson counts.
    expect(field.cells[0]![0]!.by).toBeUndefined();
    const thick = breakdown([r], map, 'sliceThickness', 'pass@1');
    expect(thick.groups).toEqual(['≤ 1 mm', '1–3 mm', '3–5 mm', '> 5 mm', '(not recorded)']);
    expect(thick.cells.map((row) => row[0]!.value)).toEqual([1, 1, 1, 0, 0]);
    const vendor = breakdown([r], map, 'manufacturer', 'pass@1');
    expect(vendor.groups).toEqual(['GE', 'Siemens', '(not recorded)']);
    expect(toSvgString(breakdownFigure(field, true))).toContain('pass@1 by scanner field strength');
  });
});

describe('meta key labels', () => {
  it('names the DICOM tags and keys a case keeps for people, with units, and leaves other keys alone', () => {
    expect(metaKeyLabel('dicom.fieldStrength')).toBe('Scanner field strength (T)');
    expect(metaKeyLabel('dicom.sliceThickness')).toBe('Slice thickness (mm)');
    expect(metaKeyLabel('dicom.manufacturer')).toBe('Scanner manufacturer');
    expect(metaKeyLabel('dicom.patientKey')).toBe('Patient (pseudonymous key)');
    expect(metaKeyLabel('file_path')).toBeUndefined();
  });
});
