/**
 * Rubric stage (docs/protocols.md#related-protocols, HealthBench/LiveMedBench style): the local
 * judge marks ONE rubric item met or unmet for one free-text answer; the
 * scorer then computes clip(Σ met points ÷ Σ positive points, 0, 1). One call
 * per item, as HealthBench grades, so a long rubric cannot blur items
 * together. An unreadable reply is undecided (`met: null`), counted as not
 * met by the metric and flagged for review.
 */
import { textTurn } from '../../chat/turn.ts';
import type { GenerateRequest } from '../../engines/engine.ts';
import { extractJsonObject, isRecord } from '../../protocols/json.ts';
import { stripThink } from '../../protocols/text.ts';
import { JUDGE_SAMPLING } from './judge.ts';

export const RUBRIC_JUDGE_VERSION = '1.0.0';

const RUBRIC_JUDGE_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: 'object',
  properties: { met: { type: 'boolean' }, rationale: { type: 'string' } },
  required: ['met', 'rationale'],
  additionalProperties: false,
});

const SYSTEM = [
  'You are a senior physician grading a colleague\'s written answer against ONE rubric criterion.',
  'The criterion is met only if the answer clearly and correctly does what the criterion describes.',
  'If the criterion describes something undesirable (e.g. "recommends thrombolysis despite haemorrhage"), "met" means the answer DOES that undesirable thing.',
  'Judge only this criterion; ignore style and everything else in the answer.',
  'Answer with ONLY one JSON object, no prose and no code fence:',
  '{"met": true|false, "rationale": "<one sentence>"}',
].join('\n');

export interface RubricJudgeInput {
  readonly question: string;
  readonly answer: string;
  readonly criterion: string;
  readonly points: number;
}

/** The request asking the judge whether one criterion is met. */
export function buildRubricItemRequest(input: RubricJudgeInput): GenerateRequest {
  const user = [
    `QUESTION: ${input.question.trim()}`,
    '',
    `ANSWER: ${input.answer.trim()}`,
    '',
    `CRITERION (${input.points >= 0 ? '+' : ''}${input.points} points): ${input.criterion.trim()}`,
    '',
    'Is the criterion met by the answer? Reply with the JSON object only.',
  ].join('\n');
  return { messages: [textTurn('system', SYSTEM), textTurn('user', user)], sampling: { ...JUDGE_SAMPLING }, jsonSchema: RUBRIC_JUDGE_SCHEMA };
}

export interface ParsedRubricVerdict {
  readonly met: boolean | null;
  readonly rationale: string;
  readonly error?: string;
}

/** Reads a rubric reply: `met` must be a real boolean, else undecided. */
export function parseRubricVerdict(raw: string): ParsedRubricVerdict {
  const ex = extractJsonObject(stripThink(raw));
  if (!ex.ok) return { met: null, rationale: '', error: `no JSON object: ${ex.error}` };
  if (!isRecord(ex.value)) return { met: null, rationale: '', error: 'JSON is not an object' };
  const rationale = typeof ex.value.rationale === 'string' ? ex.value.rationale : '';
  if (typeof ex.value.met !== 'boolean') return { met: null, rationale, error: '"met" is not a boolean' };
  return { met: ex.value.met, rationale };
}
