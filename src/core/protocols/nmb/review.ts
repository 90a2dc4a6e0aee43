/**
 * Structured review: the checklist in docs/protocols.md (anatomy, key
 * findings, sequence recognition, ranked diagnostic hypotheses, confidence),
 * so each part can be reviewed and scored apart.
 */
import { Warnings, coerceConfidence, coerceString, coerceStringList, pick } from '../coerce.ts';
import { extractJsonObject } from '../json.ts';
import { singleTurnRequest } from '../request.ts';
import { stripThinkDetailed } from '../text.ts';
import type { ParseResult, PromptTemplate, Protocol } from '../types.ts';
import { HYPOTHESIS_EXAMPLE, NMB_CASE_BLOCK, NMB_SYSTEM } from './common.ts';
import { HYPOTHESES_ARRAY_SCHEMA, MAX_HYPOTHESES, hypothesesFromJson, type Hypothesis } from './hypotheses.ts';
import { PROTOCOL_NAMES } from '../names.ts';

export interface StructuredReview {
  readonly anatomy: string | null;
  /** Empty for a scan read as normal. */
  readonly keyFindings: readonly string[];
  readonly sequenceRecognition: string | null;
  readonly hypotheses: readonly Hypothesis[];
  /** Overall confidence in the leading hypothesis, 0–1. */
  readonly confidence: number | null;
}

export const REVIEW_SCHEMA: Readonly<Record<string, unknown>> = {
  type: 'object',
  properties: {
    anatomy: { type: 'string' },
    key_findings: { type: 'array', items: { type: 'string' } },
    sequence_recognition: { type: 'string' },
    diagnostic_hypotheses: HYPOTHESES_ARRAY_SCHEMA,
    confidence: { type: 'number', minimum: 0, maximum: 1 },
  },
  required: ['anatomy', 'key_findings', 'sequence_recognition', 'diagnostic_hypotheses', 'confidence'],
};

export const REVIEW_TEMPLATE: PromptTemplate = {
  id: 'structured-review',
  version: '1',
  system: NMB_SYSTEM,
  user:
    NMB_CASE_BLOCK +
    'Review the case with this checklist:\n' +
    '1. anatomy: the region, level and plane shown;\n' +
    '2. key_findings: each abnormal finding (an empty list if the scan is normal);\n' +
    '3. sequence_recognition: the modality and sequence of each image;\n' +
    `4. diagnostic_hypotheses: up to ${MAX_HYPOTHESES}, most likely first, each with confidence (0–1) and evidence;\n` +
    '5. confidence: your overall confidence (0–1) in the leading hypothesis.\n' +
    'Answer with one JSON object only:\n' +
    `{"anatomy": "...", "key_findings": ["..."], "sequence_recognition": "...", "diagnostic_hypotheses": [${HYPOTHESIS_EXAMPLE}], "confidence": 0.0}`,
};

const KEYS = {
  anatomy: ['anatomy', 'anatomical_region', '解剖'],
  findings: ['key_findings', 'findings', '主要发现', '发现'],
  sequence: ['sequence_recognition', 'sequence', 'sequences', '序列识别', '序列'],
  hypotheses: ['diagnostic_hypotheses', 'hypotheses', 'differential', 'differential_diagnosis', 'diagnoses', '鉴别诊断', '诊断假设'],
  confidence: ['confidence', 'overall_confidence', '置信度'],
} as const;

/** Parses the checklist JSON; missing parts are warnings, wrong types are coerced with warnings. */
export function parseReview(rawText: string): ParseResult<StructuredReview> {
  const { text } = stripThinkDetailed(rawText);
  if (!text) return { ok: false, error: 'empty answer' };
  const json = extractJsonObject(text);
  if (!json.ok) return { ok: false, error: json.error };
  const obj = json.value as Record<string, unknown>;
  const w = new Warnings();
  const found = Object.fromEntries(Object.entries(KEYS).map(([name, keys]) => [name, pick(obj, keys)]));
  const missing = Object.entries(found).filter(([, v]) => !v).map(([k]) => k);
  if (missing.length === Object.keys(KEYS).length) return { ok: false, error: 'the JSON has none of the checklist fields' };
  if (missing.length) w.add(`missing checklist fields: ${missing.join(', ')}`);
  const h = found.hypotheses?.value;
  const value: StructuredReview = {
    anatomy: coerceString(found.anatomy?.value, 'anatomy', w),
    keyFindings: coerceStringList(found.findings?.value, 'key_findings', w),
    sequenceRecognition: coerceString(found.sequence?.value, 'sequence_recognition', w),
    hypotheses: h === undefined ? [] : (hypothesesFromJson(Array.isArray(h) ? h : [h], w) ?? []),
    confidence: coerceConfidence(found.confidence?.value, 'confidence', w),
  };
  return { ok: true, value, ...w.result, ...(json.repaired ? { repaired: true } : {}) };
}

const META = { id: 'structured-review', version: '1' } as const;
const TEMPLATES: readonly [PromptTemplate] = [REVIEW_TEMPLATE];

export const structuredReviewProtocol: Protocol<StructuredReview> = {
  ...META,
  label: PROTOCOL_NAMES['structured-review'],
  description: 'Anatomy, key findings, sequence recognition, ranked diagnostic hypotheses and confidence, as one JSON object.',
  templates: TEMPLATES,
  outputSchema: REVIEW_SCHEMA,
  buildRequest: (c, q, ctx) => singleTurnRequest({ ...META, templates: TEMPLATES }, c, q, ctx, { schema: REVIEW_SCHEMA, enforceByDefault: true }),
  parse: parseReview,
};
