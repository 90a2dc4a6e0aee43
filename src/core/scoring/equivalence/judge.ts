/**
 * Judge stage of diagnosis equivalence (docs/protocols.md#diagnosis-equivalence): a local model asked,
 * with a fixed and versioned rubric, whether a candidate diagnosis is
 * clinically equivalent to the reference. A reply that cannot be read as
 * `{"equivalent": <boolean>, …}` is *undecided* (`equivalent: null`), never
 * a silent pass.
 */
import { textTurn } from '../../chat/turn.ts';
import type { ReferenceAnswer } from '../../bundle/types.ts';
import type { GenerateRequest } from '../../engines/engine.ts';
import { extractJsonObject, isRecord } from '../../protocols/json.ts';
import { stripThink } from '../../protocols/text.ts';

/** Shown in the UI next to every judge-decided score. */
export const JUDGE_CAVEAT =
  'Equivalence decided by a local judge model with a fixed rubric. It is NOT equivalent to the GPT-4o rubric grader used in the Neural-MedBench paper (calibrated against neurologists), so pass@k figures are not directly comparable with published numbers.';

interface JudgeRubric {
  readonly id: string;
  readonly version: string;
  readonly system: string;
  /** Placeholders: `{{candidate}}`, `{{reference}}`, `{{aliases}}`. */
  readonly user: string;
}

export const JUDGE_RUBRIC_V1: JudgeRubric = Object.freeze({
  id: 'neuroeval/diagnosis-equivalence',
  version: '1.0.0',
  system: [
    'You are a board-certified neurologist and neuroradiologist grading answers to a neurology benchmark.',
    'Decide whether a CANDIDATE diagnosis is clinically equivalent to the REFERENCE diagnosis.',
    'Rubric:',
    '1. Equivalent: the same disease entity, including synonyms, abbreviations, eponyms, spelling variants, and a more specific subtype of the reference only when the reference does not itself name a different subtype.',
    '2. Not equivalent: a different disease, a broader category than the reference (e.g. "stroke" for "intracerebral hemorrhage"), a different subtype, a different location or laterality when the reference states one, a differential list that hedges between several diseases, or a symptom/finding instead of a diagnosis.',
    '3. Ignore hedging words ("probable", "consistent with") and wording or spelling differences.',
    '4. If unsure, answer false.',
    'Answer with ONLY one JSON object, no prose and no code fence:',
    '{"equivalent": true|false, "confidence": <number 0-1>, "rationale": "<one sentence>"}',
  ].join('\n'),
  user: ['REFERENCE diagnosis: {{reference}}', 'Accepted aliases of the reference: {{aliases}}', 'CANDIDATE diagnosis: {{candidate}}', '', 'Is the candidate clinically equivalent to the reference? Reply with the JSON object only.'].join('\n'),
});

/** The JSON Schema of the judge's answer (sent to engines that can enforce one). */
export const JUDGE_VERDICT_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: 'object',
  properties: {
    equivalent: { type: 'boolean' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    rationale: { type: 'string' },
  },
  required: ['equivalent', 'confidence', 'rationale'],
  additionalProperties: false,
});

/** Fixed sampling: greedy, seeded, short. */
export const JUDGE_SAMPLING = Object.freeze({ temperature: 0, topP: 1, seed: 20240601, maxTokens: 256 });

function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (m, key: string) => values[key] ?? m);
}

/** The request asking the judge about one candidate. */
export function buildJudgeRequest(candidate: string, reference: ReferenceAnswer, rubric: JudgeRubric = JUDGE_RUBRIC_V1): GenerateRequest {
  const aliases = reference.aliases && reference.aliases.length > 0 ? reference.aliases.join('; ') : '(none)';
  return {
    messages: [
      textTurn('system', rubric.system),
      textTurn('user', fill(rubric.user, { candidate: candidate.trim(), reference: (reference.diagnosis ?? '').trim(), aliases })),
    ],
    sampling: { ...JUDGE_SAMPLING },
    jsonSchema: JUDGE_VERDICT_SCHEMA,
  };
}

export interface ParsedJudgeVerdict {
  /** null = undecided (the reply could not be read). */
  readonly equivalent: boolean | null;
  readonly confidence: number | null;
  readonly rationale: string;
  /** Why the reply was undecided. */
  readonly error?: string;
}

/** Reads a judge reply: reasoning stripped, JSON extracted, `equivalent` must be a real boolean. */
export function parseJudgeVerdict(raw: string): ParsedJudgeVerdict {
  const text = stripThink(raw);
  const ex = extractJsonObject(text);
  if (!ex.ok) return { equivalent: null, confidence: null, rationale: '', error: `no JSON object: ${ex.error}` };
  const v = ex.value;
  if (!isRecord(v)) return { equivalent: null, confidence: null, rationale: '', error: 'JSON is not an object' };
  const rationale = typeof v.rationale === 'string' ? v.rationale : '';
  const c = v.confidence;
  const confidence = typeof c === 'number' && Number.isFinite(c) && c >= 0 && c <= 1 ? c : null;
  if (typeof v.equivalent !== 'boolean') return { equivalent: null, confidence, rationale, error: '"equivalent" is not a boolean' };
  return { equivalent: v.equivalent, confidence, rationale };
}
