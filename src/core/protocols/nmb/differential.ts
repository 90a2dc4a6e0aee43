/**
 * Neural-MedBench differential diagnosis: a ranked list of up to five
 * hypotheses, each with a confidence (0–1) and its evidence. pass@1 / pass@5
 * are read from this ranking by the scorer.
 */
import { singleTurnRequest } from '../request.ts';
import type { ParseResult, PromptTemplate, Protocol } from '../types.ts';
import { HYPOTHESIS_EXAMPLE, NMB_CASE_BLOCK, NMB_SYSTEM } from './common.ts';
import { HYPOTHESES_ARRAY_SCHEMA, MAX_HYPOTHESES, parseDifferentialText, type DifferentialAnswer } from './hypotheses.ts';
import { PROTOCOL_NAMES } from '../names.ts';

export const DIFFERENTIAL_SCHEMA: Readonly<Record<string, unknown>> = {
  type: 'object',
  properties: { differential: HYPOTHESES_ARRAY_SCHEMA },
  required: ['differential'],
};

export const DIFFERENTIAL_TEMPLATE: PromptTemplate = {
  id: 'nmb-differential',
  version: '1',
  system: NMB_SYSTEM,
  user:
    NMB_CASE_BLOCK +
    `Give your differential diagnosis: up to ${MAX_HYPOTHESES} hypotheses ranked from most to least likely. For each, give ` +
    'your confidence between 0 and 1 and the evidence from the images and the clinical information that supports it.\n' +
    `Answer with one JSON object only:\n{"differential": [${HYPOTHESIS_EXAMPLE}]}`,
};

const META = { id: 'nmb-differential', version: '1' } as const;
const TEMPLATES: readonly [PromptTemplate] = [DIFFERENTIAL_TEMPLATE];

/** Parses a differential (JSON, or a numbered list / diagnosis line as a marked fallback). */
export function parseDifferential(rawText: string): ParseResult<DifferentialAnswer> {
  return parseDifferentialText(rawText);
}

export const nmbDifferentialProtocol: Protocol<DifferentialAnswer> = {
  ...META,
  label: PROTOCOL_NAMES['nmb-differential'],
  description: 'Ranked hypotheses with confidence and evidence; scored with pass@1 and pass@5.',
  templates: TEMPLATES,
  outputSchema: DIFFERENTIAL_SCHEMA,
  buildRequest: (c, q, ctx) => singleTurnRequest({ ...META, templates: TEMPLATES }, c, q, ctx, { schema: DIFFERENTIAL_SCHEMA, enforceByDefault: true }),
  parse: parseDifferential,
};
