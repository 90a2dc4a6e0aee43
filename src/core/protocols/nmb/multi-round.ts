/**
 * Neural-MedBench multi-round dialogue: the opening question, then each
 * follow-up revealed after the model's previous answer, with the images that
 * follow-up names. Every turn asks for a reply plus the updated ranked
 * differential, parsed like `nmb-differential`.
 */
import type { BenchCase, Question } from '../../bundle/types.ts';
import { InvalidInputError } from '../../errors.ts';
import { assistantTurn, imageRefs, makeRequest, sentImages, systemTurn, templateOf, userTurn } from '../request.ts';
import { questionVars, renderTemplate } from '../template.ts';
import { stripThink } from '../text.ts';
import type { BuildContext, FollowUpTurn, MultiTurnProtocol, ParseResult, PromptTemplate, ProtocolRequest, ProtocolTurn } from '../types.ts';
import { HYPOTHESIS_EXAMPLE, NMB_CASE_BLOCK, NMB_SYSTEM } from './common.ts';
import { HYPOTHESES_ARRAY_SCHEMA, MAX_HYPOTHESES, parseDifferentialText, type DifferentialAnswer } from './hypotheses.ts';
import { PROTOCOL_NAMES } from '../names.ts';

export const MULTI_ROUND_SCHEMA: Readonly<Record<string, unknown>> = {
  type: 'object',
  properties: { answer: { type: 'string' }, differential: HYPOTHESES_ARRAY_SCHEMA },
  required: ['answer', 'differential'],
};

const REPLY_FORMAT =
  `Answer with one JSON object only: your reply to the question, and your differential diagnosis updated with everything ` +
  `known so far (up to ${MAX_HYPOTHESES}, most likely first, each with confidence 0–1 and evidence):\n` +
  `{"answer": "...", "differential": [${HYPOTHESIS_EXAMPLE}]}`;

export const MULTI_ROUND_TEMPLATE: PromptTemplate = {
  id: 'nmb-multi-round',
  version: '1',
  system: `${NMB_SYSTEM} This is a consultation over several turns: new information may arrive after each of your answers.`,
  user: NMB_CASE_BLOCK + REPLY_FORMAT,
  followUp: '{{followUp}}\n\n{{#imageCount}}New images: {{imageCount}}.\n\n{{/imageCount}}' + REPLY_FORMAT,
};

const META = { id: 'nmb-multi-round', version: '1' } as const;
const TEMPLATES: readonly [PromptTemplate] = [MULTI_ROUND_TEMPLATE];

/** Image indices a follow-up reveals; the opening turn shows every other image. */
function revealedLater(q: Question): Set<number> {
  return new Set((q.followUps ?? []).flatMap((f) => f.images ?? []));
}

/** Parses one turn's reply: the differential plus the `answer` text. */
export function parseMultiRound(rawText: string): ParseResult<DifferentialAnswer> {
  return parseDifferentialText(rawText, { textKeys: ['answer', 'reply', 'response', '回答', 'reasoning', 'rationale'] });
}

function followUpTurns(c: BenchCase, q: Question, ctx: BuildContext = {}, warnings: string[] = []): FollowUpTurn[] {
  const t = templateOf(TEMPLATES, ctx);
  const vars = questionVars(c, q, 0);
  return (q.followUps ?? []).map((f, k) => {
    const images = sentImages(imageRefs(c, f.images ?? [], warnings), ctx);
    const text = renderTemplate(t.followUp ?? '{{followUp}}', { ...vars, followUp: f.text, turn: k + 2, imageCount: images.length });
    return { id: f.id, turn: userTurn(text, images) };
  });
}

function buildTurn(c: BenchCase, q: Question, turnIndex: number, previousAnswers: readonly string[], ctx: BuildContext = {}): ProtocolRequest {
  const followUps = q.followUps ?? [];
  if (!Number.isInteger(turnIndex) || turnIndex < 0 || turnIndex > followUps.length) {
    throw new InvalidInputError(`Question ${q.id} of case ${c.id} has ${followUps.length + 1} turns; there is no turn ${turnIndex + 1}.`);
  }
  if (previousAnswers.length < turnIndex) {
    throw new InvalidInputError(`Turn ${turnIndex + 1} of case ${c.id} needs the model's ${turnIndex} earlier answers; got ${previousAnswers.length}.`);
  }
  const t = templateOf(TEMPLATES, ctx);
  const warnings: string[] = [];
  const later = revealedLater(q);
  const opening = sentImages(imageRefs(c, c.images.map((_, i) => i).filter((i) => !later.has(i)), warnings), ctx);
  const vars = questionVars(c, q, opening.length);
  const messages: ProtocolTurn[] = [...systemTurn(renderTemplate(t.system ?? '', vars)), userTurn(renderTemplate(t.user, vars), opening)];
  const revealed = followUpTurns(c, q, ctx, warnings);
  for (let k = 0; k < turnIndex; k++) {
    // Reasoning is not replayed: chat templates drop it from the history too.
    messages.push(assistantTurn(stripThink(previousAnswers[k]!)), revealed[k]!.turn);
  }
  return makeRequest(META, t, messages, { jsonSchema: (ctx.enforceSchema ?? true) ? MULTI_ROUND_SCHEMA : undefined, warnings });
}

export const nmbMultiRoundProtocol: MultiTurnProtocol<DifferentialAnswer> = {
  ...META,
  label: PROTOCOL_NAMES['nmb-multi-round'],
  description: 'Follow-up information and images revealed after each answer; an updated ranked differential every turn.',
  templates: TEMPLATES,
  outputSchema: MULTI_ROUND_SCHEMA,
  turnCount: (q) => 1 + (q.followUps?.length ?? 0),
  buildTurn,
  followUpTurns: (c, q, ctx) => followUpTurns(c, q, ctx),
  buildRequest: (c, q, ctx) => buildTurn(c, q, 0, [], ctx),
  parse: parseMultiRound,
};
