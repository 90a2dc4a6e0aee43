/**
 * Multiple-choice VQA, VLMEvalKit style (GMAI-MMBench, MedFrameQA,
 * MMRareBench…): the question, the options as "A. …" lines, and a request
 * for a last line "Answer: X". All case images are sent in case order
 * (multi-image items keep their order). MediConfusion pairs (`pairId`) use
 * the same prompt and parser; the pair rule is the scorer's.
 */
import { singleTurnRequest } from '../request.ts';
import type { PromptTemplate, Protocol } from '../types.ts';
import { extractChoice, type McqAnswer } from './extract.ts';
import { PROTOCOL_NAMES } from '../names.ts';

export const MCQ_TEMPLATE: PromptTemplate = {
  id: 'mcq-vlmevalkit',
  version: '1',
  user:
    '{{#clinical}}Hint: {{clinical}}\n{{/clinical}}' +
    'Question: {{question}}\n' +
    'Options:\n{{options}}\n' +
    'Please select the correct answer from the options above. The last line of your response must be of the form ' +
    '"Answer: X", where X is one of {{optionKeys}}.',
};

const META = { id: 'mcq', version: '1' } as const;
const TEMPLATES: readonly [PromptTemplate] = [MCQ_TEMPLATE];

export const mcqProtocol: Protocol<McqAnswer> = {
  ...META,
  label: PROTOCOL_NAMES['mcq'],
  description: 'Options listed as "A. …"; the answer letter is extracted in a fixed rule order; unparsed answers are invalid and scored wrong.',
  templates: TEMPLATES,
  buildRequest: (c, q, ctx) => {
    const request = singleTurnRequest({ ...META, templates: TEMPLATES }, c, q, ctx);
    if (q.options?.length) return request;
    return { ...request, warnings: [...(request.warnings ?? []), `Question ${q.id} of case ${c.id} has no options.`] };
  },
  parse: (rawText, question) => extractChoice(rawText, question?.options),
};
