/**
 * What a reader is asked, and how their answer is stored. Each protocol has a
 * form for people: a plain-language question (never a model's output
 * instruction such as "Answer with one JSON object…") and the fields a
 * clinician fills in. The answer is written as the text a model would have
 * written and read back by the protocol's own parser, so readers are scored
 * by the models' scorer, but only on the metrics of what they were asked
 * ({@link isAskedMetric}): a reader never asked the plane is not scored on it.
 *
 * | protocol                       | the reader gives                               | scored on                 |
 * |--------------------------------|------------------------------------------------|---------------------------|
 * | neurovlm-structured            | class (the five), subtype, confidence          | class, subtype            |
 * | mcq                            | an option                                      | correct                   |
 * | nmb-differential, structured-review | most likely diagnosis, others to consider | pass@1, pass@5            |
 * | nmb-multi-round                | the same, at each turn as it is revealed       | pass@k, per turn too      |
 * | nmb-lesion                     | type, location, side, sequence                 | every lesion field        |
 * | nmb-rationale                  | diagnosis and reasoning                        | every text metric         |
 * | rubric, open-question          | a free-text answer                             | every metric              |
 */
import type { Laterality, Question } from '../bundle/types.ts';
import { noUsage, type ResponseRecord, type Timestamp } from '../model/answer.ts';
import { InvalidInputError } from '../errors.ts';
import { NEUROVLM_CLASSES, NEUROVLM_SUBTYPES } from '../protocols/neurovlm/protocol.ts';
import { LATERALITIES } from '../protocols/nmb/lesion.ts';
import { MAX_HYPOTHESES } from '../protocols/nmb/hypotheses.ts';
import type { Protocol } from '../protocols/types.ts';
import type { TurnRecord } from '../model/answer.ts';
import { itemKeyOf, responseIdOf } from '../runner/plan.ts';

/** One input of a reader's form. Changing an id orphans drafts, never stored answers (those are stored as model text). */
export type ReaderField = 'class' | 'subtype' | 'confidence' | 'choice' | 'diagnosis' | 'alternatives' | 'lesionType' | 'location' | 'laterality' | 'sequence' | 'text';

/** A reader's answer: the form's values as typed (empty or absent = not given). */
export type ReaderAnswer = Readonly<Partial<Record<ReaderField, string>>>;

export interface ReaderForm {
  readonly protocolId: string;
  /** The question as a person reads it. */
  readonly question: string;
  /** The inputs, in order. */
  readonly fields: readonly ReaderField[];
  readonly required: readonly ReaderField[];
  /** The field consensus and agreement between readers compare. */
  readonly key: ReaderField;
  /** Multi-round: the question of each turn after the first, revealed once the previous turn is answered. */
  readonly followUps?: readonly { readonly id: string; readonly text: string; readonly images: readonly number[] }[];
}

export const READER_CLASSES: readonly string[] = NEUROVLM_CLASSES;
export const READER_SIDES: readonly Laterality[] = LATERALITIES;
/** The confidence a reader may state, as the value stored (NeuroVLM-Bench's 0–1 scale). */
export const READER_CONFIDENCE: readonly { readonly value: string; readonly label: string }[] = [
  { value: '0.3', label: 'low' },
  { value: '0.6', label: 'moderate' },
  { value: '0.9', label: 'high' },
];

/** Subtypes a class offers, in the prompt's spellings. */
export function subtypesOf(cls: string | undefined): readonly string[] {
  if (cls === 'stroke') return ['ischemic', 'hemorrhagic'];
  if (cls === 'tumor') return NEUROVLM_SUBTYPES.filter((s) => s !== 'ischemic' && s !== 'hemorrhagic');
  return [];
}

/** The question when the case's own text is only instructions for a model. */
const PLAIN_QUESTION: Readonly<Record<string, string>> = {
  'neurovlm-structured': 'What does this image show? Choose the diagnosis, and the subtype if you can tell it.',
  mcq: 'Choose one option.',
  'nmb-differential': 'What is your diagnosis? Give the most likely first, and the others you would consider.',
  'structured-review': 'What is your diagnosis? Give the most likely first, and the others you would consider.',
  'nmb-multi-round': 'What is your diagnosis? Give the most likely first, and the others you would consider.',
  'nmb-lesion': 'Identify the main lesion: its type, where it is, its side, and the sequence on which it is best seen.',
  'nmb-rationale': 'What is the most likely diagnosis, and why? Explain your reasoning.',
};

/** Sentences that tell a model how to format its output, not what to answer. */
const MODEL_INSTRUCTION = /(\bJSON\b|^(answer|respond|reply|output|return|format) (with|in|as|only)\b|\bthe letter of (one|the) option\b)/i;

/** A case's question text without the sentences that only instruct a model on its output format. */
export function forPeople(text: string): string {
  return text
    .split(/(?<=[.?!])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s && !MODEL_INSTRUCTION.test(s))
    .join(' ');
}

const FIELDS: Readonly<Record<string, { fields: readonly ReaderField[]; required: readonly ReaderField[]; key: ReaderField }>> = {
  'neurovlm-structured': { fields: ['class', 'subtype', 'confidence'], required: ['class'], key: 'class' },
  mcq: { fields: ['choice'], required: ['choice'], key: 'choice' },
  'nmb-differential': { fields: ['diagnosis', 'alternatives'], required: ['diagnosis'], key: 'diagnosis' },
  'structured-review': { fields: ['diagnosis', 'alternatives'], required: ['diagnosis'], key: 'diagnosis' },
  'nmb-multi-round': { fields: ['diagnosis', 'alternatives'], required: ['diagnosis'], key: 'diagnosis' },
  'nmb-lesion': { fields: ['lesionType', 'location', 'laterality', 'sequence'], required: ['lesionType'], key: 'lesionType' },
  'nmb-rationale': { fields: ['diagnosis', 'text'], required: ['text'], key: 'diagnosis' },
};
const FREE_TEXT = { fields: ['text'], required: ['text'], key: 'text' } as const;

/** The form a reader answers `question` in under `protocolId`. */
export function readerForm(protocolId: string, question: Pick<Question, 'text' | 'options' | 'followUps'>): ReaderForm {
  const shape = protocolId === 'mcq' && !question.options?.length ? FREE_TEXT : (FIELDS[protocolId] ?? FREE_TEXT);
  const own = protocolId === 'neurovlm-structured' ? '' : forPeople(question.text);
  const form: ReaderForm = { protocolId, question: own || PLAIN_QUESTION[protocolId] || 'Answer the question in your own words.', ...shape };
  if (protocolId !== 'nmb-multi-round' || !question.followUps?.length) return form;
  return { ...form, followUps: question.followUps.map((f) => ({ id: f.id, text: forPeople(f.text) || f.text, images: f.images ?? [] })) };
}

/**
 * The images a reader sees at `turn` of a question: all of the case's, or in a
 * dialogue, as the model saw them: the opening turn shows every image no
 * follow-up reveals, and each answered turn adds the next follow-up's.
 */
export function imagesForTurn<I>(images: readonly I[], form: Pick<ReaderForm, 'followUps'>, turn: number): I[] {
  if (!form.followUps?.length) return [...images];
  const later = new Set(form.followUps.flatMap((f) => f.images));
  const shown = new Set(form.followUps.slice(0, turn).flatMap((f) => f.images));
  return images.filter((_, i) => !later.has(i) || shown.has(i));
}

/**
 * Whether a reader answering under `protocolId` was asked what `metric`
 * scores. JSON validity, the imaging fields a reader is not asked
 * (modality, sequence, plane), an MCQ's "invalid" and similarity to a
 * rationale nobody asked a differential reader to write are not theirs.
 */
export function isAskedMetric(protocolId: string, metric: string): boolean {
  switch (protocolId) {
    case 'neurovlm-structured':
      return metric === 'neurovlm.diagnosis_name' || metric === 'neurovlm.diagnosis_detailed';
    case 'mcq':
      return metric === 'mcq.correct';
    case 'nmb-differential':
    case 'structured-review':
      return /^pass@\d+$/.test(metric);
    case 'nmb-multi-round':
      return /^(turn\d+\.)?pass@\d+$/.test(metric);
    default:
      return true;
  }
}

const given = (v: string | undefined): string | null => (v?.trim() ? v.trim() : null);

/** The ranked list a diagnosis and its alternatives make (at most five). */
function hypotheses(a: ReaderAnswer): { diagnosis: string }[] {
  const list = [a.diagnosis ?? '', ...(a.alternatives ?? '').split(/\n|;/)].map((s) => s.trim()).filter(Boolean);
  return list.slice(0, MAX_HYPOTHESES).map((diagnosis) => ({ diagnosis }));
}

/** The text a model would have written for this answer (one turn). */
export function answerText(form: Pick<ReaderForm, 'protocolId'>, a: ReaderAnswer): string {
  switch (form.protocolId) {
    case 'neurovlm-structured': {
      const confidence = given(a.confidence);
      // Fields a reader is not asked about are written as abstentions and never scored (isAskedMetric).
      return JSON.stringify({
        modality: null, specialized_sequence: null, plane: null,
        diagnosis_name: given(a.class), diagnosis_detailed: given(a.subtype), icd10_code: null, severity_score: null,
        diagnosis_confidence: confidence === null ? null : Number(confidence), severity_confidence: null,
      });
    }
    case 'mcq':
      return given(a.choice) ? `Answer: ${given(a.choice)}` : (given(a.text) ?? '');
    case 'nmb-differential':
    case 'nmb-multi-round':
      return JSON.stringify({ differential: hypotheses(a) });
    case 'structured-review':
      return JSON.stringify({ diagnostic_hypotheses: hypotheses(a) });
    case 'nmb-lesion':
      return JSON.stringify({ lesion_type: given(a.lesionType), location: given(a.location), laterality: given(a.laterality), sequence: given(a.sequence) });
    case 'nmb-rationale': {
      const dx = given(a.diagnosis);
      return `${dx ? `Most likely diagnosis: ${dx}.\n\n` : ''}${given(a.text) ?? ''}`;
    }
    default:
      return given(a.text) ?? '';
  }
}

/** The first required field left empty, or null. */
export function missingField(form: Pick<ReaderForm, 'required'>, a: ReaderAnswer): ReaderField | null {
  return form.required.find((f) => !given(a[f])) ?? null;
}

/** The field consensus compares under a protocol (the class, the letter, the diagnosis, the lesion type, the text). */
export function keyField(protocolId: string): ReaderField {
  return (FIELDS[protocolId] ?? FREE_TEXT).key;
}

/** What consensus votes on: the key field as its scorer would compare it (the class, the letter, the diagnosis with case and spacing folded). */
export function answerKey(form: Pick<ReaderForm, 'key'>, a: ReaderAnswer): string {
  const v = (a[form.key] ?? '').trim().toLowerCase().replace(/\s+/g, ' ');
  return form.key === 'choice' ? v.toUpperCase() : v;
}

export interface ReaderResponseInputs {
  readonly runId: string;
  readonly modelId: string;
  readonly caseId: string;
  readonly question: Question;
  readonly protocol: Protocol;
  readonly form: ReaderForm;
  /** One answer, or (multi-round) one per turn, the opening turn first. */
  readonly answers: readonly ReaderAnswer[];
  /** Time from showing the case to the answer (each turn's, for a dialogue). */
  readonly latencyMs: readonly number[];
  readonly now: Timestamp;
}


/** The stored answer: the same record a model's answer is, parsed by the same protocol. */
export function readerResponse(input: ReaderResponseInputs): ResponseRecord & { readonly turns?: readonly TurnRecord[] } {
  const { form, answers } = input;
  const turnsExpected = 1 + (form.followUps?.length ?? 0);
  if (answers.length !== turnsExpected) throw new InvalidInputError(`This question has ${turnsExpected} turn${turnsExpected === 1 ? '' : 's'}; ${answers.length} answered.`, { field: 'answer' });
  for (const a of answers) {
    const missing = missingField(form, a);
    if (missing) throw new InvalidInputError(`Give an answer before saving (${missing === 'class' ? 'the diagnosis' : missing === 'lesionType' ? 'the lesion type' : missing}).`, { field: missing });
    if (form.fields.includes('class') && !READER_CLASSES.includes(a.class!.trim())) throw new InvalidInputError(`"${a.class}" is not one of the benchmark's classes.`, { field: 'class' });
  }
  const texts = answers.map((a) => answerText(form, a));
  // Every turn of a dialogue is read by the protocol's parser, as the runner reads a model's turns.
  const parsed = texts.map((text) => input.protocol.parse(text, input.question));
  const last = parsed.length - 1;
  const itemKey = itemKeyOf({ caseId: input.caseId, questionId: input.question.id, modelId: input.modelId, variant: 'none', sample: 0 });
  const id = responseIdOf(input.runId, itemKey);
  const latency = (i: number) => Math.max(0, Math.round(input.latencyMs[i] ?? 0));
  const turns: TurnRecord[] | undefined = form.followUps?.length
    ? texts.map((rawText, i) => {
        const p = parsed[i]!;
        return { id: i === 0 ? 'initial' : form.followUps![i - 1]!.id, rawText, parsed: p.ok ? p.value : null, parseError: p.ok ? null : p.error, finishReason: 'stop', usage: noUsage(), latencyMs: latency(i) };
      })
    : undefined;
  const final = parsed[last]!;
  return {
    id, runId: input.runId, itemKey, caseId: input.caseId, questionId: input.question.id,
    // Never a real request hash, so no model run reuses a reader's answer.
    cacheKey: `reader:${id}`,
    modelId: input.modelId, variant: 'none', sample: 0, rawText: texts[last]!,
    parsed: final.ok ? final.value : null, parseError: final.ok ? null : final.error,
    usage: noUsage(),
    latencyMs: input.latencyMs.reduce((s, _, i) => s + latency(i), 0), finishReason: 'stop', createdAt: input.now,
    ...(turns ? { turns } : {}),
  };
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const rec = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** A reader's answer read back from a stored response (to show it again on a revisit, and for consensus). */
export function storedAnswer(form: Pick<ReaderForm, 'protocolId'>, r: Pick<ResponseRecord, 'rawText' | 'parsed'>): ReaderAnswer {
  const p = rec(r.parsed);
  switch (form.protocolId) {
    case 'neurovlm-structured':
      return { class: text(p.diagnosis_name), subtype: text(p.diagnosis_detailed), confidence: typeof p.diagnosis_confidence === 'number' ? String(p.diagnosis_confidence) : '' };
    case 'mcq':
      return { choice: text(p.choice) };
    case 'nmb-differential':
    case 'nmb-multi-round':
    case 'structured-review': {
      const list = (Array.isArray(p.hypotheses) ? p.hypotheses : []).map((h) => text(rec(h).diagnosis));
      return { diagnosis: list[0] ?? '', alternatives: list.slice(1).join('\n') };
    }
    case 'nmb-lesion':
      return { lesionType: text(p.type), location: text(p.location), laterality: text(p.laterality), sequence: text(p.sequence) };
    case 'nmb-rationale': {
      const m = /^Most likely diagnosis: (.*)\.\n\n/.exec(r.rawText);
      return { diagnosis: m?.[1] ?? '', text: m ? r.rawText.slice(m[0].length) : r.rawText };
    }
    default:
      return { text: r.rawText };
  }
}
