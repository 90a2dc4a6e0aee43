/**
 * A reader's answer in the protocol's own answer form, turned into the text a
 * model would have written and read back by the protocol's own parser, so a
 * reader's answer is stored and scored exactly as a model's is.
 *
 * | protocol              | the reader gives                                  | stored text              |
 * |-----------------------|---------------------------------------------------|--------------------------|
 * | neurovlm-structured   | class (the benchmark's five), optional subtype    | the protocol's JSON      |
 * | mcq                   | an option letter                                  | `Answer: X`              |
 * | any other             | a free-text diagnosis                             | `Diagnosis: …` / the text |
 */
import type { Question } from '../bundle/types.ts';
import type { ResponseRecord, Timestamp } from '../db/types.ts';
import { InvalidInputError } from '../errors.ts';
import { NEUROVLM_CLASSES, NEUROVLM_SUBTYPES } from '../protocols/neurovlm/protocol.ts';
import type { Protocol } from '../protocols/types.ts';
import { itemKeyOf, responseIdOf } from '../runner/plan.ts';

export type AnswerKind = 'class' | 'choice' | 'text';

export interface ReaderAnswer {
  /** The class (NeuroVLM-Bench), the option key (MCQ) or the diagnosis (free text). */
  readonly value: string;
  /** NeuroVLM-Bench only: the subtype, or null. */
  readonly subtype?: string | null;
  /** The reader's confidence, 0–1, or null when not given. */
  readonly confidence: number | null;
}

export const READER_CLASSES: readonly string[] = NEUROVLM_CLASSES;

/** Subtypes a class offers, in the prompt's spellings. */
export function subtypesOf(cls: string): readonly string[] {
  if (cls === 'stroke') return ['ischemic', 'hemorrhagic'];
  if (cls === 'tumor') return NEUROVLM_SUBTYPES.filter((s) => s !== 'ischemic' && s !== 'hemorrhagic');
  return [];
}

/** Which form a question is answered in under a protocol. */
export function answerKind(protocolId: string, question: Pick<Question, 'options'> | undefined): AnswerKind {
  if (protocolId === 'neurovlm-structured') return 'class';
  if (protocolId === 'mcq' && question?.options?.length) return 'choice';
  return 'text';
}

/** The text a model would have written for this answer. */
export function answerText(protocolId: string, kind: AnswerKind, a: ReaderAnswer): string {
  const value = a.value.trim();
  switch (kind) {
    case 'class':
      // Fields a reader is not asked about are abstentions (null), as a model's would be.
      return JSON.stringify({
        modality: null, specialized_sequence: null, plane: null,
        diagnosis_name: value, diagnosis_detailed: a.subtype ?? null, icd10_code: null, severity_score: null,
        diagnosis_confidence: a.confidence, severity_confidence: null,
      });
    case 'choice':
      return `Answer: ${value}`;
    case 'text':
      // Differential protocols read a "Diagnosis:" line when there is no JSON; free-text ones read the text as it is.
      return protocolId === 'nmb-differential' || protocolId === 'structured-review' || protocolId === 'nmb-multi-round' ? `Diagnosis: ${value}` : value;
  }
}

/**
 * What consensus votes on: the answer as its scorer would compare it
 * (the class, the letter, or the diagnosis with case and spacing folded).
 */
export function answerKey(kind: AnswerKind, value: string): string {
  const v = value.trim().toLowerCase().replace(/\s+/g, ' ');
  return kind === 'choice' ? v.toUpperCase() : v;
}

export interface ReaderResponseInputs {
  readonly runId: string;
  readonly modelId: string;
  readonly caseId: string;
  readonly question: Question;
  readonly protocol: Protocol;
  readonly answer: ReaderAnswer;
  /** Time from showing the case to the answer. */
  readonly latencyMs: number;
  readonly now: Timestamp;
}

/** The stored answer: the same record a model's answer is, parsed by the same protocol. */
export function readerResponse(input: ReaderResponseInputs): ResponseRecord {
  const kind = answerKind(input.protocol.id, input.question);
  if (!input.answer.value.trim()) throw new InvalidInputError('Give an answer before saving.', { field: 'answer' });
  if (kind === 'class' && !READER_CLASSES.includes(input.answer.value)) throw new InvalidInputError(`"${input.answer.value}" is not one of the benchmark's classes.`, { field: 'answer' });
  const rawText = answerText(input.protocol.id, kind, input.answer);
  const parsed = input.protocol.parse(rawText, input.question);
  const itemKey = itemKeyOf({ caseId: input.caseId, questionId: input.question.id, modelId: input.modelId, variant: 'none', sample: 0 });
  const id = responseIdOf(input.runId, itemKey);
  return {
    id, runId: input.runId, itemKey, caseId: input.caseId, questionId: input.question.id,
    // Never a real request hash, so no model run reuses a reader's answer.
    cacheKey: `reader:${id}`,
    modelId: input.modelId, variant: 'none', sample: 0, rawText,
    parsed: parsed.ok ? parsed.value : null, parseError: parsed.ok ? null : parsed.error,
    usage: { promptTokens: null, completionTokens: null, ttftMs: null, prefillTps: null, decodeTps: null },
    latencyMs: Math.max(0, Math.round(input.latencyMs)), finishReason: 'stop', createdAt: input.now,
  };
}

/** The reader's answer read back from a stored response (to show it again on a revisit). */
export function storedAnswer(kind: AnswerKind, r: Pick<ResponseRecord, 'rawText' | 'parsed'>): ReaderAnswer {
  if (kind === 'class') {
    const p = (r.parsed ?? {}) as Record<string, unknown>;
    const conf = typeof p.diagnosis_confidence === 'number' ? p.diagnosis_confidence : null;
    return { value: typeof p.diagnosis_name === 'string' ? p.diagnosis_name : '', subtype: typeof p.diagnosis_detailed === 'string' ? p.diagnosis_detailed : null, confidence: conf };
  }
  if (kind === 'choice') return { value: r.rawText.replace(/^Answer:\s*/, ''), confidence: null };
  return { value: r.rawText.replace(/^Diagnosis:\s*/, ''), confidence: null };
}
