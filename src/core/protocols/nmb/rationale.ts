/** Neural-MedBench rationale generation: free text compared with the expert narrative (BERTScore, judge). */
import { singleTurnRequest } from '../request.ts';
import { stripThinkDetailed } from '../text.ts';
import type { ParseResult, PromptTemplate, Protocol } from '../types.ts';
import { NMB_CASE_BLOCK, NMB_SYSTEM } from './common.ts';
import { PROTOCOL_NAMES } from '../names.ts';

export interface FreeTextAnswer {
  readonly text: string;
}

export const RATIONALE_TEMPLATE: PromptTemplate = {
  id: 'nmb-rationale',
  version: '1',
  system: NMB_SYSTEM,
  user:
    NMB_CASE_BLOCK +
    'Explain your reasoning in a few paragraphs of plain text: the key imaging and clinical findings, how they lead to ' +
    'the most likely diagnosis, and what argues against the main alternatives.',
};

/** Free text without reasoning blocks, trimmed; an empty answer is an error. */
export function parseFreeText(rawText: string): ParseResult<FreeTextAnswer> {
  const { text, unterminated } = stripThinkDetailed(rawText);
  if (!text) return { ok: false, error: unterminated ? 'only unterminated reasoning, no answer' : 'empty answer' };
  return { ok: true, value: { text }, ...(unterminated ? { warnings: ['the answer ended inside an unterminated <think> block'] } : {}) };
}

const META = { id: 'nmb-rationale', version: '1' } as const;
const TEMPLATES: readonly [PromptTemplate] = [RATIONALE_TEMPLATE];

export const nmbRationaleProtocol: Protocol<FreeTextAnswer> = {
  ...META,
  label: PROTOCOL_NAMES['nmb-rationale'],
  description: 'A free-text explanation compared with the expert narrative.',
  templates: TEMPLATES,
  buildRequest: (c, q, ctx) => singleTurnRequest({ ...META, templates: TEMPLATES }, c, q, ctx),
  parse: parseFreeText,
};
