/**
 * Free-text protocols. `rubric` (LiveMedBench, HealthBench style): the model
 * answers in prose and a judge later marks each rubric item met or unmet; the
 * rubric is never shown to the model. `open-question`: the default for any
 * other open question.
 */
import type { Question, RubricItem } from '../bundle/types.ts';
import { NMB_CASE_BLOCK } from './nmb/common.ts';
import { parseFreeText, type FreeTextAnswer } from './nmb/rationale.ts';
import { singleTurnRequest } from './request.ts';
import type { PromptTemplate, Protocol } from './types.ts';
import { PROTOCOL_NAMES } from './names.ts';

export type { FreeTextAnswer } from './nmb/rationale.ts';

export const RUBRIC_TEMPLATE: PromptTemplate = {
  id: 'rubric-free-text',
  version: '1',
  system: 'You are an experienced physician. Answer the question as you would for a colleague: accurate, complete and safe.',
  user: '{{#clinical}}{{clinical}}\n\n{{/clinical}}{{#imageCount}}Images: {{imageCount}}, in order.\n\n{{/imageCount}}{{question}}',
};

export const OPEN_QUESTION_TEMPLATE: PromptTemplate = {
  id: 'open-question',
  version: '1',
  system: 'You are an experienced neurologist with expertise in neuroradiology. Answer concisely and base your answer on what the images and the record show.',
  user: NMB_CASE_BLOCK,
};

/** The question's rubric items (signed points), for the judge and the scorer. */
export function rubricItems(q: Question): readonly RubricItem[] {
  return q.reference?.rubric ?? [];
}

const RUBRIC = { id: 'rubric', version: '1' } as const;
const RUBRIC_TEMPLATES: readonly [PromptTemplate] = [RUBRIC_TEMPLATE];

export const rubricProtocol: Protocol<FreeTextAnswer> & { rubricItems(q: Question): readonly RubricItem[] } = {
  ...RUBRIC,
  label: PROTOCOL_NAMES.rubric,
  description: 'A free-text answer; a judge marks each rubric item met or unmet; score = clip(Σ met points / Σ positive points, 0, 1).',
  templates: RUBRIC_TEMPLATES,
  buildRequest: (c, q, ctx) => singleTurnRequest({ ...RUBRIC, templates: RUBRIC_TEMPLATES }, c, q, ctx),
  parse: parseFreeText,
  rubricItems,
};

const OPEN = { id: 'open-question', version: '1' } as const;
const OPEN_TEMPLATES: readonly [PromptTemplate] = [OPEN_QUESTION_TEMPLATE];

export const openQuestionProtocol: Protocol<FreeTextAnswer> = {
  ...OPEN,
  label: PROTOCOL_NAMES['open-question'],
  description: 'A free-text answer, compared with the reference by similarity metrics or a judge.',
  templates: OPEN_TEMPLATES,
  buildRequest: (c, q, ctx) => singleTurnRequest({ ...OPEN, templates: OPEN_TEMPLATES }, c, q, ctx),
  parse: parseFreeText,
};
