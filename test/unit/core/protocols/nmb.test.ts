import { describe, expect, it } from 'vitest';
import { hasImages, turnImages, turnText } from '../../../../src/core/chat/turn.ts';
import { coerceLaterality, nmbLesionProtocol, parseLesion } from '../../../../src/core/protocols/nmb/lesion.ts';
import { DIFFERENTIAL_SCHEMA, nmbDifferentialProtocol, parseDifferential } from '../../../../src/core/protocols/nmb/differential.ts';
import { nmbRationaleProtocol } from '../../../../src/core/protocols/nmb/rationale.ts';
import { parseReview, structuredReviewProtocol } from '../../../../src/core/protocols/nmb/review.ts';
import { Warnings } from '../../../../src/core/protocols/coerce.ts';
import type { ParseResult } from '../../../../src/core/protocols/types.ts';
import type { DifferentialAnswer } from '../../../../src/core/protocols/nmb/hypotheses.ts';
import {
  DDX_BRACES_IN_PROSE, DDX_CHINESE_JSON, DDX_CHINESE_LIST, DDX_FINDINGS_LIST, DDX_DIAGNOSIS_LINE, DDX_EXTRA_KEYS, DDX_FENCED, DDX_NUMBERED, DDX_ORPHAN_CLOSE, DDX_PROSE,
  DDX_REFUSAL, DDX_SINGLE_OBJECT, DDX_SIX, DDX_THINK_FENCED, DDX_TOP_ARRAY, DDX_TRUNCATED, DDX_UNTERMINATED, DDX_VALID,
  DDX_WRONG_TYPES, LESION_CHINESE, LESION_ODD_LATERALITY, LESION_PARTIAL, LESION_VALID, NMB_CASE, REVIEW_VALID, REVIEW_WRONG_TYPES,
} from './fixtures.ts';

const q = NMB_CASE.questions[0]!;

function names(r: ParseResult<DifferentialAnswer>): string[] {
  if (!r.ok) throw new Error(`parse failed: ${r.error}`);
  return r.value.hypotheses.map((h) => h.diagnosis);
}

describe('Neural-MedBench requests', () => {
  it('sends every case image in case order, with the clinical record and the question verbatim', () => {
    const req = nmbDifferentialProtocol.buildRequest(NMB_CASE, q);
    expect(req.messages.map((m) => m.role)).toEqual(['system', 'user']);
    const user = req.messages[1]!;
    expect(turnImages(user).map((r) => [r.index, r.sha256])).toEqual(NMB_CASE.images.map((img, i) => [i, img.sha256]));
    expect(turnText(user)).toContain(NMB_CASE.notes!);
    expect(turnText(user)).toContain('age: 34\nsex: female\nedss: 2.5\nsmoker: false');
    expect(turnText(user)).not.toContain('csf_oligoclonal_bands');
    expect(turnText(user)).toContain('Images: 3, in order.');
    expect(turnText(user)).toContain('Question: 根据患者的症状和图片,对疾病进行诊断');
    expect(turnText(user)).not.toMatch(/\{\{/);
    expect(req.jsonSchema).toBe(DIFFERENTIAL_SCHEMA);
  });

  it('text-only ablation: same text without the image line, no images', () => {
    for (const p of [nmbDifferentialProtocol, nmbLesionProtocol, nmbRationaleProtocol, structuredReviewProtocol]) {
      const req = p.buildRequest(NMB_CASE, q, { textOnly: true });
      expect(hasImages(req.messages)).toBe(false);
      expect(turnText(req.messages[1]!)).not.toContain('Images:');
      expect(turnText(req.messages[1]!)).toContain('根据患者的症状和图片');
    }
  });

  it('uses an edited template and records its hash', () => {
    const base = nmbDifferentialProtocol.templates[0];
    const edited = { ...base, id: 'my-ddx', user: 'Q: {{question}}\nTop 3 only, JSON.' };
    const req = nmbDifferentialProtocol.buildRequest(NMB_CASE, q, { template: edited, enforceSchema: false });
    expect(turnText(req.messages[1]!)).toBe('Q: 根据患者的症状和图片,对疾病进行诊断\nTop 3 only, JSON.');
    expect(req.template.id).toBe('my-ddx');
    expect(req.template.hash).not.toBe(nmbDifferentialProtocol.buildRequest(NMB_CASE, q).template.hash);
    expect(req.jsonSchema).toBeUndefined();
  });

  it('warns instead of failing on a case without images', () => {
    const req = nmbRationaleProtocol.buildRequest({ ...NMB_CASE, images: [] }, q);
    expect(turnImages(req.messages[1]!)).toEqual([]);
    expect(req.warnings).toBeUndefined();
  });
});

describe('nmb-differential parsing', () => {
  it('reads valid JSON in rank order with confidences and evidence', () => {
    const r = parseDifferential(DDX_VALID);
    expect(r.ok && r.value.hypotheses[0]).toEqual({
      rank: 1,
      diagnosis: 'Relapsing-remitting multiple sclerosis',
      confidence: 0.78,
      evidence: 'Ovoid periventricular FLAIR lesions perpendicular to the ventricles; optic neuritis history',
    });
    expect(names(r)).toHaveLength(3);
    expect(r.ok && (r.warnings ?? r.fallback ?? r.repaired)).toBeUndefined();
  });

  it('reads JSON in prose, in fences, after closed or stray </think> blocks', () => {
    expect(names(parseDifferential(DDX_PROSE))).toEqual(['Multiple sclerosis', 'Small-vessel disease']);
    expect(names(parseDifferential(DDX_FENCED))).toHaveLength(3);
    expect(names(parseDifferential(DDX_THINK_FENCED))).toEqual(['Multiple sclerosis']);
    expect(names(parseDifferential(DDX_ORPHAN_CLOSE))).toEqual(['Multiple sclerosis']);
  });

  it('fails on an answer that is only unterminated reasoning', () => {
    expect(parseDifferential(DDX_UNTERMINATED)).toEqual({ ok: false, error: 'only unterminated reasoning, no answer' });
  });

  it('repairs truncated JSON and marks it', () => {
    const r = parseDifferential(DDX_TRUNCATED);
    expect(names(r)).toEqual(['Multiple sclerosis', 'NMOSD', 'Susac syndrome']);
    expect(r.ok && r.repaired).toBe(true);
    expect(r.ok && r.warnings).toContainEqual(expect.stringMatching(/truncated/));
  });

  it('coerces wrong types with warnings and sorts by an explicit rank', () => {
    const r = parseDifferential(DDX_WRONG_TYPES);
    if (!r.ok) throw new Error(r.error);
    expect(r.value.hypotheses).toEqual([
      { rank: 1, diagnosis: 'Multiple sclerosis', confidence: 0.9, evidence: 'Dawson fingers' },
      { rank: 2, diagnosis: 'Neuromyelitis optica', confidence: 0.2, evidence: 'optic neuritis; myelitis' },
      { rank: 3, diagnosis: 'ADEM', confidence: null, evidence: '42' },
    ]);
    expect(r.warnings).toEqual(expect.arrayContaining([
      expect.stringMatching(/the string "0.2" was read as the number 0.2/),
      expect.stringMatching(/90 looks like a percentage/),
      expect.stringMatching(/expected a number, got "high"/),
    ]));
  });

  it('ignores extra keys, reads bare arrays and single objects', () => {
    expect(names(parseDifferential(DDX_EXTRA_KEYS))).toEqual(['Glioblastoma', 'Brain abscess']);
    expect(names(parseDifferential(DDX_TOP_ARRAY))).toEqual(['Alzheimer disease', 'Frontotemporal dementia']);
    const single = parseDifferential(DDX_SINGLE_OBJECT);
    expect(names(single)).toEqual(['Autoimmune encephalitis']);
    expect(single.ok && single.warnings).toEqual(['one diagnosis object instead of a ranked list']);
  });

  it('keeps at most five hypotheses', () => {
    const r = parseDifferential(DDX_SIX);
    expect(names(r)).toEqual(['Glioblastoma', 'Metastasis', 'Abscess', 'Lymphoma', 'Tumefactive demyelination']);
    expect(r.ok && r.warnings).toContainEqual('6 hypotheses given; the first 5 were kept');
  });

  it('reads Chinese answers, as JSON and as a numbered list', () => {
    expect(names(parseDifferential(DDX_CHINESE_JSON))).toEqual(['阿尔茨海默病', '血管性痴呆', '路易体痴呆']);
    const r = parseDifferential(DDX_CHINESE_LIST);
    if (!r.ok) throw new Error(r.error);
    expect(r.fallback).toBe(true);
    expect(r.value.hypotheses).toEqual([
      { rank: 1, diagnosis: '阿尔茨海默病', confidence: 0.7, evidence: '双侧海马及内侧颞叶萎缩，进行性记忆减退' },
      { rank: 2, diagnosis: '血管性痴呆', confidence: null, evidence: '脑室旁白质高信号' },
      { rank: 3, diagnosis: '路易体痴呆', confidence: null, evidence: '波动性认知障碍' },
    ]);
  });

  it('falls back to a numbered English list ("1. X — evidence"), marked fallback', () => {
    const r = parseDifferential(DDX_NUMBERED);
    if (!r.ok) throw new Error(r.error);
    expect(r.fallback).toBe(true);
    expect(r.value.hypotheses).toEqual([
      { rank: 1, diagnosis: 'Acute ischemic stroke (right MCA territory)', confidence: 0.85, evidence: 'restricted diffusion on DWI matching the deficit' },
      { rank: 2, diagnosis: 'Todd paralysis', confidence: null, evidence: 'no seizure reported; DWI would be normal; transient deficit after seizures' },
      { rank: 3, diagnosis: 'Hemiplegic migraine', confidence: null, evidence: 'young patients, aura' },
      { rank: 4, diagnosis: 'Hypoglycemia', confidence: null, evidence: 'excluded by glucose 5.9 mmol/L' },
    ]);
    expect(r.value.text).toContain('Key findings');
  });

  it('falls back to a single "Most likely diagnosis:" line', () => {
    const r = parseDifferential(DDX_DIAGNOSIS_LINE);
    expect(r).toMatchObject({ ok: true, fallback: true, value: { hypotheses: [{ rank: 1, diagnosis: 'Limbic encephalitis', confidence: null }] } });
    expect(names(parseDifferential('诊断：自身免疫性脑炎。建议完善抗体检查。'))).toEqual(['自身免疫性脑炎']);
  });

  it('prefers a "Diagnosis:" line over a list of findings', () => {
    expect(names(parseDifferential(DDX_FINDINGS_LIST))).toEqual(['Autoimmune limbic encephalitis']);
    expect(names(parseDifferential('鉴别诊断需考虑多种疾病。\n诊断：病毒性脑炎'))).toEqual(['病毒性脑炎']);
  });

  it('finds the JSON after braces in prose and ignores objects nested in invalid ones', () => {
    expect(names(parseDifferential(DDX_BRACES_IN_PROSE))).toEqual(['Multiple sclerosis']);
  });

  it('fails when there is no diagnosis at all', () => {
    expect(parseDifferential(DDX_REFUSAL)).toEqual({ ok: false, error: 'no JSON, numbered list or diagnosis line found' });
    expect(parseDifferential('{"differential": []}')).toEqual({ ok: false, error: 'no hypotheses in the JSON answer' });
    expect(parseDifferential('')).toEqual({ ok: false, error: 'empty answer' });
  });
});

describe('nmb-lesion parsing', () => {
  it('reads the four fields and normalises laterality only', () => {
    expect(parseLesion(LESION_VALID)).toEqual({
      ok: true,
      value: { type: 'Acute infarct with restricted diffusion', location: 'Right MCA territory, insula and frontal operculum', laterality: 'right', sequence: 'DWI' },
    });
  });

  it('reads Chinese answers in fences', () => {
    expect(parseLesion(LESION_CHINESE)).toMatchObject({ ok: true, value: { type: '急性脑梗死', laterality: 'right', sequence: 'DWI' } });
  });

  it('maps unclear laterality to null with a warning, and reports missing fields', () => {
    const odd = parseLesion(LESION_ODD_LATERALITY);
    expect(odd).toMatchObject({ ok: true, value: { laterality: null }, warnings: [expect.stringMatching(/"left > right" is not left/)] });
    const partial = parseLesion(LESION_PARTIAL);
    expect(partial).toMatchObject({ ok: true, value: { laterality: 'midline', sequence: null }, warnings: ['missing fields: sequence'] });
    const w = new Warnings();
    expect(['Left-sided', 'BOTH', '双侧', 'n/a', 'left hemisphere'].map((v) => coerceLaterality(v, w))).toEqual(['left', 'bilateral', 'bilateral', null, 'left']);
  });

  it('fails without JSON or without any lesion field', () => {
    expect(parseLesion('There is a lesion in the left frontal lobe.').ok).toBe(false);
    expect(parseLesion('{"diagnosis": "stroke"}')).toEqual({ ok: false, error: 'the JSON has none of lesion_type, location, laterality, sequence' });
  });
});

describe('nmb-rationale and structured-review parsing', () => {
  it('rationale: trimmed text without reasoning blocks', () => {
    expect(nmbRationaleProtocol.parse('<think>x</think>\n  The DWI shows restricted diffusion, so…  ')).toEqual({ ok: true, value: { text: 'The DWI shows restricted diffusion, so…' } });
    expect(nmbRationaleProtocol.parse('患者为老年女性，影像示双侧海马萎缩。')).toEqual({ ok: true, value: { text: '患者为老年女性，影像示双侧海马萎缩。' } });
    expect(nmbRationaleProtocol.parse('<think>only thinking')).toEqual({ ok: false, error: 'only unterminated reasoning, no answer' });
  });

  it('structured review: all checklist fields', () => {
    const r = parseReview(REVIEW_VALID);
    if (!r.ok) throw new Error(r.error);
    expect(r.value.keyFindings).toHaveLength(2);
    expect(r.value.hypotheses.map((h) => [h.rank, h.diagnosis])).toEqual([[1, 'Multiple sclerosis'], [2, 'Small-vessel disease']]);
    expect(r.value.confidence).toBe(0.8);
    expect(r.warnings).toBeUndefined();
  });

  it('structured review: wrong types coerced with warnings', () => {
    const r = parseReview(REVIEW_WRONG_TYPES);
    expect(r).toMatchObject({
      ok: true,
      value: { keyFindings: ['No acute abnormality'], sequenceRecognition: 'T2; FLAIR', hypotheses: [{ diagnosis: 'Normal study', confidence: null }], confidence: 0.85 },
    });
    expect(parseReview('{"foo": 1}').ok).toBe(false);
  });
});
