/**
 * NeuroVLM-Bench (arXiv 2603.24846) as the benchmark runs it
 * (ChatMED/neurovlm-bench `client.py`, `utils.py`):
 * - system: the benchmark prompt; one image per request, sent with no text (zero-shot);
 * - few-shot: the exemplars in ONE user message ("### FEW-SHOT EXAMPLES",
 *   "Example k — class: …" + image, closing line), then the query image in a
 *   second user message;
 * - parse: the text from the first `{` to the last `}`, `JSON.parse`; a failure
 *   is an error record, missing keys are warnings, values stay raw (the
 *   scorer normalises). No JSON repair: the JSON-valid rate is a metric.
 */
import type { BenchCase } from '../../bundle/types.ts';
import { Warnings } from '../coerce.ts';
import { isRecord } from '../json.ts';
import { imageRef, makeRequest, partsTurn, sentImages, systemTurn, templateOf, userTurn } from '../request.ts';
import { renderTemplate } from '../template.ts';
import { stripThinkDetailed } from '../text.ts';
import type { BuildContext, ParseResult, PromptTemplate, Protocol, ProtocolTurn, TurnPart } from '../types.ts';
import { NEUROVLM_PROMPT } from './prompt.ts';
import { PROTOCOL_NAMES } from '../names.ts';

/** The nine answer fields, in the prompt's order. */
export const NEUROVLM_FIELDS = [
  'modality',
  'specialized_sequence',
  'plane',
  'diagnosis_name',
  'diagnosis_detailed',
  'icd10_code',
  'severity_score',
  'diagnosis_confidence',
  'severity_confidence',
] as const;

export type NeuroVlmField = (typeof NEUROVLM_FIELDS)[number];

/** The parsed object exactly as the model wrote it (values not normalised). */
export type NeuroVlmAnswer = Readonly<Record<string, unknown>>;

export const NEUROVLM_CLASSES = ['tumor', 'stroke', 'multiple sclerosis', 'normal', 'other abnormalities'] as const;

/** Subtypes in the prompt's spellings: tumour subtypes first, then the two stroke subtypes. */
export const NEUROVLM_SUBTYPES = [
  'glioma', 'meningioma', 'pituitary_tumor', 'carcinoma', 'germinoma', 'granuloma', 'medulloblastoma',
  'neurocytoma', 'papilloma', 'schwannoma', 'tuberculoma', 'ischemic', 'hemorrhagic',
];

const unit = { type: 'number', minimum: 0, maximum: 1 };

/** JSON Schema of the answer (the prompt's "OUTPUT (strict JSON schema)"). */
export const NEUROVLM_SCHEMA: Readonly<Record<string, unknown>> = {
  type: 'object',
  properties: {
    modality: { enum: ['MRI', 'CT', null] },
    specialized_sequence: { enum: ['FLAIR', 'T1', 'T2', 'T1C+', null] },
    plane: { enum: ['axial', 'sagittal', 'coronal', null] },
    diagnosis_name: { enum: [...NEUROVLM_CLASSES, null] },
    diagnosis_detailed: { enum: [...NEUROVLM_SUBTYPES, null] },
    icd10_code: { type: ['string', 'null'] },
    severity_score: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    diagnosis_confidence: unit,
    severity_confidence: unit,
  },
  required: [...NEUROVLM_FIELDS],
  additionalProperties: false,
};

/** The benchmark's prompt and few-shot wording (client.py `build_examples_user_content`). */
export const NEUROVLM_TEMPLATE: PromptTemplate = {
  id: 'neurovlm-5classes-refined',
  version: '1',
  system: NEUROVLM_PROMPT,
  user: '',
  fewShotHeader:
    '### FEW-SHOT EXAMPLES\n' +
    'Below are example images and ONLY their class label. Use them to calibrate class boundaries.\n' +
    'Allowed classes: tumor | stroke | multiple sclerosis | normal | other abnormalities\n',
  fewShotExample: 'Example {{n}} — class: {{label}}',
  fewShotFooter: '### END OF FEW-SHOT EXAMPLES\nNow analyze the next image and output ONLY the JSON as per the schema.',
  fewShotQuery: 'Analyze this image and output ONLY the JSON per the schema.',
};

const META = { id: 'neurovlm-structured', version: '1' } as const;
const TEMPLATES: readonly [PromptTemplate] = [NEUROVLM_TEMPLATE];

/** The class label an exemplar is shown with: its `diagnosis_name` label, else its disease group. */
export function exemplarLabel(c: BenchCase): string | undefined {
  for (const q of c.questions) {
    const label = q.reference?.labels?.diagnosis_name;
    if (label) return label;
  }
  return c.diseaseGroup || undefined;
}

function fewShotTurn(exemplars: readonly BenchCase[], query: BenchCase, t: PromptTemplate, ctx: BuildContext, warnings: string[]): ProtocolTurn | undefined {
  const parts: TurnPart[] = [{ type: 'text', text: renderTemplate(t.fewShotHeader ?? '', {}) }];
  let n = 0;
  for (const ex of exemplars) {
    const label = exemplarLabel(ex);
    const ref = imageRef(ex, 0);
    if (!label || !ref) {
      warnings.push(`Few-shot exemplar ${ex.id} was left out: it has no ${label ? 'image' : 'class label'}.`);
      continue;
    }
    if (ex.id === query.id || (ref.sha256 && ref.sha256 === query.images[0]?.sha256)) {
      warnings.push(`Few-shot exemplar ${ex.id} is the query image itself: the model sees the answer.`);
    }
    n++;
    parts.push({ type: 'text', text: renderTemplate(t.fewShotExample ?? '', { n, label }) });
    if (!ctx.textOnly) parts.push({ type: 'image', image: ref });
  }
  if (n === 0) return undefined;
  parts.push({ type: 'text', text: renderTemplate(t.fewShotFooter ?? '', {}) });
  return partsTurn(parts.filter((p) => p.type === 'image' || p.text !== ''));
}

/**
 * Parses a NeuroVLM-Bench answer with the benchmark's rule: first `{` to last
 * `}`, then `JSON.parse`. Reasoning blocks are removed first (an API returns
 * them apart from the answer, so the benchmark never saw them).
 */
export function parseNeuroVlm(rawText: string): ParseResult<NeuroVlmAnswer> {
  const { text, unterminated } = stripThinkDetailed(rawText);
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first === -1 || last === -1 || first >= last) {
    if (unterminated) return { ok: false, error: 'the answer ended inside an unterminated <think> block: no JSON object' };
    return { ok: false, error: text ? 'no JSON object found (first "{" to last "}")' : 'empty answer' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text.slice(first, last + 1));
  } catch (e) {
    return { ok: false, error: `invalid JSON between the first "{" and the last "}": ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!isRecord(value)) return { ok: false, error: 'the JSON between the first "{" and the last "}" is not an object' };
  const w = new Warnings();
  const missing = NEUROVLM_FIELDS.filter((f) => !(f in value));
  if (missing.length) w.add(`missing fields: ${missing.join(', ')}`);
  const extra = Object.keys(value).filter((k) => !(NEUROVLM_FIELDS as readonly string[]).includes(k));
  if (extra.length) w.add(`unexpected fields: ${extra.join(', ')}`);
  return { ok: true, value, ...w.result };
}

export const neuroVlmProtocol: Protocol<NeuroVlmAnswer> = {
  ...META,
  // Zero-shot unless the run sends the benchmark's exemplars: the run form offers that only where a benchmark carries them.
  label: PROTOCOL_NAMES['neurovlm-structured'],
  description:
    'One image per request; the benchmark prompt asks for one JSON object with modality, sequence, plane, diagnosis, ' +
    'subtype, ICD-10, severity and confidences. Zero-shot, or few-shot where the benchmark carries labelled exemplars: they are sent first.',
  templates: TEMPLATES,
  outputSchema: NEUROVLM_SCHEMA,

  buildRequest(c, _q, ctx = {}) {
    const t = templateOf(TEMPLATES, ctx);
    const warnings: string[] = [];
    if (c.images.length > 1) warnings.push(`Case ${c.id} has ${c.images.length} images; NeuroVLM-Bench sends one, so only the first is used.`);
    const query = imageRef(c, 0);
    if (!query) warnings.push(`Case ${c.id} has no image.`);
    const messages: ProtocolTurn[] = [...systemTurn(renderTemplate(t.system ?? '', {}))];
    const examples = ctx.fewShot?.length ? fewShotTurn(ctx.fewShot, c, t, ctx, warnings) : undefined;
    if (examples) messages.push(examples);
    const queryText = renderTemplate(examples ? (t.fewShotQuery ?? t.user) : t.user, { imageCount: query && !ctx.textOnly ? 1 : 0 });
    messages.push(userTurn(queryText, sentImages(query ? [query] : [], ctx)));
    // The benchmark sends no response_format: enforcing the schema is opt-in so the JSON-valid rate stays comparable.
    return makeRequest(META, t, messages, { jsonSchema: ctx.enforceSchema ? NEUROVLM_SCHEMA : undefined, warnings });
  },

  parse: parseNeuroVlm,
};
