/**
 * Protocols of the answer types benchmarks publish beyond multiple choice:
 * a short answer (VQA-RAD, SLAKE: one word or phrase), a number
 * (MedCalc-Bench: a JSON answer), and a box (grounding: MedSG-Bench).
 * Parsing keeps what the model wrote; the scorer (scoring/answers/) applies
 * each benchmark's own reading of it.
 */
import type { BenchCase, BoxFrame, Question } from '../../bundle/types.ts';
import { parseBoxes, type Box } from './box-parse.ts';
import { stripThinkDetailed } from '../text.ts';
import { PROTOCOL_NAMES } from '../names.ts';
import { singleTurnRequest } from '../request.ts';
import type { BuildContext, ParseResult, PromptTemplate, Protocol, ProtocolRequest } from '../types.ts';

export interface ShortAnswer {
  readonly text: string;
}

/** lmms-eval's SLAKE prompt: the question, then "Answer the question using a single word or phrase." */
export const SHORT_ANSWER_TEMPLATE: PromptTemplate = {
  id: 'short-answer-lmms-eval',
  version: '1',
  user: '{{#clinical}}{{clinical}}\n\n{{/clinical}}{{question}}\nAnswer the question using a single word or phrase.',
};

/** MedCalc-Bench's zero-shot prompt (evaluation/run.py `zero_shot`): a JSON dict with the reasoning and the answer. */
export const NUMERIC_TEMPLATE: PromptTemplate = {
  id: 'numeric-medcalc-zero-shot',
  version: '1',
  system:
    'You are a helpful assistant for calculating a score for a given patient note. Please think step-by-step to solve the question and then generate the required score. Your output should only contain a JSON dict formatted as {"step_by_step_thinking": str(your_step_by_step_thinking_procress_to_solve_the_question), "answer": str(short_and_direct_answer_of_the_question)}.',
  user:
    'Here is the patient note:\n{{notes}}\n\nHere is the task:\n{{question}}\n\nPlease directly output the JSON dict formatted as {"step_by_step_thinking": str(your_step_by_step_thinking_procress_to_solve_the_question), "answer": str(short_and_direct_answer_of_the_question)}:',
};

export const BOX_TEMPLATE: PromptTemplate = {
  id: 'box-grounding',
  version: '1',
  user: '{{#clinical}}{{clinical}}\n\n{{/clinical}}{{question}}\nGive the bounding box as [x1, y1, x2, y2], the top-left corner first, in {{boxFrame}}.',
};

function parseText(rawText: string): ParseResult<ShortAnswer> {
  const { text, unterminated } = stripThinkDetailed(rawText);
  if (!text) return { ok: false, error: unterminated ? 'only unterminated reasoning, no answer' : 'empty answer' };
  return { ok: true, value: { text } };
}

const SHORT = { id: 'short-answer', version: '1' } as const;
const SHORT_TEMPLATES: readonly [PromptTemplate] = [SHORT_ANSWER_TEMPLATE];
export const shortAnswerProtocol: Protocol<ShortAnswer> = {
  ...SHORT,
  label: PROTOCOL_NAMES['short-answer'],
  description: 'One word or phrase; scored by normalised exact match (lmms-eval) and token recall (LLaVA-Med), split into open and closed questions.',
  templates: SHORT_TEMPLATES,
  buildRequest: (c, q, ctx) => singleTurnRequest({ ...SHORT, templates: SHORT_TEMPLATES }, c, q, ctx),
  parse: parseText,
};

const NUMERIC = { id: 'numeric', version: '1' } as const;
const NUMERIC_TEMPLATES: readonly [PromptTemplate] = [NUMERIC_TEMPLATE];
export const numericProtocol: Protocol<ShortAnswer> = {
  ...NUMERIC,
  label: PROTOCOL_NAMES.numeric,
  description: "A number, date or duration in a JSON answer; scored by MedCalc-Bench's rules (exact for integers and dates, within the limits for decimals).",
  templates: NUMERIC_TEMPLATES,
  buildRequest: (c, q, ctx) => singleTurnRequest({ ...NUMERIC, templates: NUMERIC_TEMPLATES }, c, q, ctx),
  parse: parseText,
};

export interface BoxAnswer {
  readonly boxes: readonly Box[];
  readonly text: string;
}

/** How the prompt names the frame the boxes are asked in. */
function framePhrase(c: BenchCase, q: Question): string {
  const frame: BoxFrame = q.reference?.boxFrame ?? 'pixels';
  if (frame === 'fraction') return 'fractions of the image width and height (0 to 1)';
  if (frame === 'grid1000') return 'coordinates from 0 to 1000 across the image width and height';
  const img = c.images[q.reference?.boxes?.[0]?.image ?? 0];
  return img?.width && img.height ? `pixels of the image (${img.width} × ${img.height}, origin at the top left)` : 'pixels of the image (origin at the top left)';
}

const BOX = { id: 'box', version: '1' } as const;
const BOX_TEMPLATES: readonly [PromptTemplate] = [BOX_TEMPLATE];
export const boxProtocol: Protocol<BoxAnswer> = {
  ...BOX,
  label: PROTOCOL_NAMES.box,
  description: 'A bounding box written as [x1, y1, x2, y2]; scored by IoU with the reference box and accuracy at IoU ≥ 0.5.',
  templates: BOX_TEMPLATES,
  buildRequest: (c, q, ctx?: BuildContext): ProtocolRequest => {
    const phrase = framePhrase(c, q);
    const request = singleTurnRequest({ ...BOX, templates: BOX_TEMPLATES }, c, q, ctx);
    // {{boxFrame}} is filled here: the frame is the question's, not a variable every protocol offers.
    return { ...request, messages: request.messages.map((t) => ({ ...t, parts: t.parts.map((p) => (p.type === 'text' ? { ...p, text: p.text.replace('{{boxFrame}}', phrase) } : p)) })) };
  },
  parse: (rawText) => {
    const { text } = stripThinkDetailed(rawText);
    const boxes = parseBoxes(text);
    return boxes.length ? { ok: true, value: { boxes, text } } : { ok: false, error: 'no box [x1, y1, x2, y2] found' };
  },
};
