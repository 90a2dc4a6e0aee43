/**
 * Error taxonomies for wrong answers (docs/protocols.md#error-taxonomies), and a judge
 * prompt that proposes classes for one wrong answer. Proposals are only
 * suggestions for a clinician; the parser keeps known class ids only.
 */
import { textTurn } from '../../chat/turn.ts';
import type { GenerateRequest } from '../../engines/engine.ts';
import { extractJsonObject, isRecord } from '../../protocols/json.ts';
import { stripThink } from '../../protocols/text.ts';

export const TAXONOMY_VERSION = '1.0.0';

type TaxonomyId = 'neural-medbench' | 'neuroimaging-article';

interface ErrorClass {
  readonly id: string;
  readonly taxonomy: TaxonomyId;
  readonly label: string;
  readonly definition: string;
}

const NEURAL_MEDBENCH_CLASSES = [
  { id: 'perceptual_failure', taxonomy: 'neural-medbench', label: 'Perceptual failure', definition: 'The model did not see or misread what is visible in the images (missed or misperceived the relevant abnormality).' },
  { id: 'reasoning_failure', taxonomy: 'neural-medbench', label: 'Reasoning failure', definition: 'Findings were perceived but combined wrongly with the clinical data: faulty inference, wrong weighting of evidence, or an inconsistent conclusion.' },
  { id: 'knowledge_gap', taxonomy: 'neural-medbench', label: 'Knowledge gap', definition: 'Missing or incorrect medical knowledge about the disease, its imaging features or its presentation.' },
  { id: 'grounding_error', taxonomy: 'neural-medbench', label: 'Grounding error', definition: 'Claims not tied to the given case: statements about the wrong image, region or clinical detail, or evidence that does not support the answer.' },
  { id: 'visual_hallucination', taxonomy: 'neural-medbench', label: 'Visual hallucination', definition: 'Describes image findings that are not present.' },
] as const satisfies readonly ErrorClass[];

const NEUROIMAGING_ARTICLE_CLASSES = [
  { id: 'anatomical_localisation_error', taxonomy: 'neuroimaging-article', label: 'Anatomical localisation error', definition: 'A finding placed in the wrong structure, lobe, territory or side.' },
  { id: 'inaccurate_imaging_description', taxonomy: 'neuroimaging-article', label: 'Inaccurate imaging description', definition: 'Wrong signal, density, enhancement, size or morphology of a real finding.' },
  { id: 'sequence_misidentification', taxonomy: 'neuroimaging-article', label: 'Sequence misidentification', definition: 'Wrong modality or MRI sequence (e.g. FLAIR called T2, CT called MRI).' },
  { id: 'hallucinated_finding', taxonomy: 'neuroimaging-article', label: 'Hallucinated finding', definition: 'Reports a lesion or abnormality that is not there (including on normal scans).' },
  { id: 'missed_lesion', taxonomy: 'neuroimaging-article', label: 'Missed lesion', definition: 'Fails to report a lesion or abnormality that is present.' },
] as const satisfies readonly ErrorClass[];

export const ERROR_CLASSES: readonly ErrorClass[] = [...NEURAL_MEDBENCH_CLASSES, ...NEUROIMAGING_ARTICLE_CLASSES];

type ErrorClassId = (typeof NEURAL_MEDBENCH_CLASSES)[number]['id'] | (typeof NEUROIMAGING_ARTICLE_CLASSES)[number]['id'];

const BY_ID: ReadonlyMap<string, ErrorClass> = new Map(ERROR_CLASSES.map((c) => [c.id, c]));

function isErrorClassId(id: string): id is ErrorClassId {
  return BY_ID.has(id);
}

const TAXONOMY_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: 'object',
  properties: {
    classes: { type: 'array', items: { type: 'string', enum: ERROR_CLASSES.map((c) => c.id) } },
    rationale: { type: 'string' },
  },
  required: ['classes', 'rationale'],
  additionalProperties: false,
});

export interface TaxonomyPromptInput {
  readonly question?: string;
  readonly candidate: string;
  readonly reference: string;
  /** Restrict to one taxonomy; both by default. */
  readonly taxonomy?: TaxonomyId;
}

function classesFor(taxonomy?: TaxonomyId): readonly ErrorClass[] {
  return taxonomy ? ERROR_CLASSES.filter((c) => c.taxonomy === taxonomy) : ERROR_CLASSES;
}

/** A request asking a judge to propose error classes for one wrong answer. */
export function buildTaxonomyRequest(input: TaxonomyPromptInput): GenerateRequest {
  const classes = classesFor(input.taxonomy);
  const system = [
    `You classify errors of AI answers to neuroimaging questions (taxonomy v${TAXONOMY_VERSION}).`,
    'The answer below is known to be wrong. Choose every class that applies, using only these ids:',
    ...classes.map((c) => `- ${c.id}: ${c.label}. ${c.definition}`),
    'Answer with ONLY one JSON object: {"classes": ["<id>", ...], "rationale": "<one or two sentences>"}',
  ].join('\n');
  const user = [
    ...(input.question ? [`QUESTION: ${input.question}`] : []),
    `REFERENCE answer: ${input.reference}`,
    `MODEL answer (wrong): ${input.candidate}`,
    '',
    'Which error classes apply? Reply with the JSON object only.',
  ].join('\n');
  return {
    messages: [
      textTurn('system', system),
      textTurn('user', user),
    ],
    sampling: { temperature: 0, topP: 1, seed: 20240601, maxTokens: 256 },
    jsonSchema: TAXONOMY_SCHEMA,
  };
}

export interface ParsedTaxonomy {
  /** Known class ids, deduplicated, in the order given. */
  readonly classes: readonly ErrorClassId[];
  /** Proposed ids that are not known classes (or outside the requested taxonomy). */
  readonly dropped: readonly string[];
  readonly rationale: string;
  readonly error?: string;
}

/** Reads a taxonomy reply; ids are matched after lower-casing and mapping spaces/hyphens to `_`. */
export function parseTaxonomyClasses(raw: string, taxonomy?: TaxonomyId): ParsedTaxonomy {
  const ex = extractJsonObject(stripThink(raw));
  if (!ex.ok || !isRecord(ex.value)) return { classes: [], dropped: [], rationale: '', error: ex.ok ? 'JSON is not an object' : `no JSON object: ${ex.error}` };
  const v = ex.value;
  const rationale = typeof v.rationale === 'string' ? v.rationale : '';
  if (!Array.isArray(v.classes)) return { classes: [], dropped: [], rationale, error: '"classes" is not an array' };
  const allowed = new Set(classesFor(taxonomy).map((c) => c.id));
  const classes: ErrorClassId[] = [];
  const dropped: string[] = [];
  for (const item of v.classes as unknown[]) {
    const id = typeof item === 'string' ? item.trim().toLowerCase().replace(/[\s-]+/g, '_') : '';
    if (isErrorClassId(id) && allowed.has(id)) {
      if (!classes.includes(id)) classes.push(id);
    } else dropped.push(typeof item === 'string' ? item : JSON.stringify(item));
  }
  return { classes, dropped, rationale };
}
