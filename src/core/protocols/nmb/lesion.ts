/** Neural-MedBench lesion recognition: lesion type, location, laterality and the sequence that shows it. */
import type { Laterality } from '../../bundle/types.ts';
import { Warnings, coerceString, pick } from '../coerce.ts';
import { extractJsonObject, isRecord } from '../json.ts';
import { singleTurnRequest } from '../request.ts';
import { stripThinkDetailed } from '../text.ts';
import type { ParseResult, PromptTemplate, Protocol } from '../types.ts';
import { NMB_CASE_BLOCK, NMB_SYSTEM } from './common.ts';
import { PROTOCOL_NAMES } from '../names.ts';

export interface LesionAnswer {
  readonly type: string | null;
  readonly location: string | null;
  readonly laterality: Laterality | null;
  readonly sequence: string | null;
}

export const LATERALITIES: readonly Laterality[] = ['left', 'right', 'bilateral', 'midline'];

export const LESION_SCHEMA: Readonly<Record<string, unknown>> = {
  type: 'object',
  properties: {
    lesion_type: { type: 'string' },
    location: { type: 'string' },
    laterality: { enum: [...LATERALITIES, null] },
    sequence: { type: ['string', 'null'] },
  },
  required: ['lesion_type', 'location', 'laterality', 'sequence'],
};

export const LESION_TEMPLATE: PromptTemplate = {
  id: 'nmb-lesion',
  version: '1',
  system: NMB_SYSTEM,
  user:
    NMB_CASE_BLOCK +
    'Identify the main lesion: its type, its anatomical location, its side, and the image sequence that shows it best.\n' +
    'Answer with one JSON object only:\n' +
    '{"lesion_type": "...", "location": "...", "laterality": "left | right | bilateral | midline | null", "sequence": "... or null"}',
};

const FIELDS = {
  type: ['lesion_type', 'type', 'lesion', '病灶类型', '病变类型', '病变'],
  location: ['location', 'site', 'anatomical_location', 'region', '部位', '位置'],
  laterality: ['laterality', 'side', '侧别', '侧'],
  sequence: ['sequence', 'best_sequence', 'mri_sequence', 'imaging_sequence', '序列'],
} as const;

const SIDES: readonly [Laterality, RegExp][] = [
  ['bilateral', /^(bilateral|both|both sides|bilat\.?|双侧|两侧)$/],
  ['left', /^(left|l|lt|left[- ]sided|left side|左|左侧)$/],
  ['right', /^(right|r|rt|right[- ]sided|right side|右|右侧)$/],
  ['midline', /^(midline|central|median|middle|中线|正中|居中)$/],
];

/** Laterality from the words models use (English or Chinese); unrecognised → null with a warning. */
export function coerceLaterality(v: unknown, w: Warnings): Laterality | null {
  const s = coerceString(v, 'laterality', w);
  if (s === null) return null;
  const norm = s.toLowerCase().replace(/[.。]$/, '').trim();
  if (['not applicable', 'none', 'null', 'n/a', '无'].includes(norm)) return null;
  for (const [side, re] of SIDES) if (re.test(norm)) return side;
  const mentioned = LATERALITIES.filter((side) => norm.includes(side));
  if (mentioned.length === 1) {
    w.add(`laterality: "${s}" read as ${mentioned[0]!}`);
    return mentioned[0]!;
  }
  w.add(`laterality: "${s}" is not left/right/bilateral/midline; read as null`);
  return null;
}

/** Parses the lesion JSON (fenced, in prose, or truncated and repaired). */
export function parseLesion(rawText: string): ParseResult<LesionAnswer> {
  const { text } = stripThinkDetailed(rawText);
  if (!text) return { ok: false, error: 'empty answer' };
  const json = extractJsonObject(text);
  if (!json.ok) return { ok: false, error: json.error };
  const w = new Warnings();
  let obj = json.value as Record<string, unknown>;
  const list = pick(obj, ['lesions', 'findings', '病灶']);
  if (list && Array.isArray(list.value) && isRecord(list.value[0])) {
    if (list.value.length > 1) w.add(`${list.value.length} lesions given; the first was kept`);
    obj = list.value[0];
  }
  const found = Object.fromEntries(Object.entries(FIELDS).map(([name, keys]) => [name, pick(obj, keys)]));
  const missing = Object.keys(FIELDS).filter((k) => !found[k]);
  if (missing.length === 4) return { ok: false, error: 'the JSON has none of lesion_type, location, laterality, sequence' };
  if (missing.length) w.add(`missing fields: ${missing.join(', ')}`);
  const value: LesionAnswer = {
    type: coerceString(found.type?.value, 'lesion_type', w),
    location: coerceString(found.location?.value, 'location', w),
    laterality: coerceLaterality(found.laterality?.value, w),
    sequence: coerceString(found.sequence?.value, 'sequence', w),
  };
  return { ok: true, value, ...w.result, ...(json.repaired ? { repaired: true } : {}) };
}

const META = { id: 'nmb-lesion', version: '1' } as const;
const TEMPLATES: readonly [PromptTemplate] = [LESION_TEMPLATE];

export const nmbLesionProtocol: Protocol<LesionAnswer> = {
  ...META,
  label: PROTOCOL_NAMES['nmb-lesion'],
  description: 'Lesion type, location, laterality (left/right/bilateral/midline) and the sequence that shows it.',
  templates: TEMPLATES,
  outputSchema: LESION_SCHEMA,
  buildRequest: (c, q, ctx) => singleTurnRequest({ ...META, templates: TEMPLATES }, c, q, ctx, { schema: LESION_SCHEMA, enforceByDefault: true }),
  parse: parseLesion,
};
