/**
 * The paraphrase consistency probe's wordings (variant `probe:paraphrase`):
 * one hand-written paraphrase per protocol. Only the surrounding instruction
 * is reworded; every placeholder and every output-format instruction (field
 * names, allowed values, the JSON shape, "Answer: X", "plain text") is left
 * word for word, so the question and the answer it asks for do not change.
 * A model whose diagnosis changes under these wordings reacts to phrasing,
 * not to the case. Listed in docs/committee.md.
 */
import { BOX_TEMPLATE, NUMERIC_TEMPLATE, SHORT_ANSWER_TEMPLATE } from '../answers/index.ts';
import { OPEN_QUESTION_TEMPLATE, RUBRIC_TEMPLATE } from '../free-text.ts';
import { MCQ_TEMPLATE } from '../mcq/protocol.ts';
import { NEUROVLM_TEMPLATE } from '../neurovlm/protocol.ts';
import { DIFFERENTIAL_TEMPLATE } from '../nmb/differential.ts';
import { LESION_TEMPLATE } from '../nmb/lesion.ts';
import { MULTI_ROUND_TEMPLATE } from '../nmb/multi-round.ts';
import { RATIONALE_TEMPLATE } from '../nmb/rationale.ts';
import { REVIEW_TEMPLATE } from '../nmb/review.ts';
import type { PromptTemplate, ProtocolId } from '../types.ts';
import { paraphraseTemplate, type Rewording } from './reword.ts';

export { paraphraseTemplate, reword, type Rewording, type RewordedField } from './reword.ts';

/** NeuroVLM-Bench's system prompt: the persona, the task and the field descriptions; every "Choose exactly one of", value list, note on null and the schema and examples stay. */
const NEUROVLM_SYSTEM: readonly Rewording[] = [
  [
    'You are a radiologist with a subspecialty in Neuroradiology that has a high level of expertise in identifying, diagnosing and treating disorders of the brain, spine, and central nervous system using medical imaging technique like MRI and CT.',
    'You are a neuroradiologist: a radiologist highly skilled at using medical imaging such as MRI and CT to identify, diagnose and treat disorders of the brain, the spine and the central nervous system.',
  ],
  [
    'A user has uploaded a **medical image from a head scan** (e.g., CT, MRI). Based on the image content, with a high level of attentiveness and precision, provide a concise and structured medical interpretation that includes the following elements:',
    'You have been given a **medical image from a head scan** (for instance CT or MRI). Looking at it carefully and precisely, write a brief, structured medical reading of what it shows, covering these elements:',
  ],
  ['The imaging technique used.', 'Which imaging technique produced the image.'],
  ['Anatomical plane.', 'The anatomical plane of the image.'],
  ['The primary category of finding, visible in the scan, considering the image content.', 'The main category of finding that the scan shows, judged from what the image contains.'],
  ['The ICD-10 code only if confidently mappable; else null.', 'The ICD-10 code when it can be mapped with confidence; else null.'],
  [
    'representing the extent of abnormality (e.g., lesion burden, tumor size/margins, or volume of affected tissue)',
    'expressing how extensive the abnormality is (for instance lesion burden, tumor size/margins, or the volume of tissue affected)',
  ],
  ['representing confidence in diagnosis_name.', 'expressing how confident you are in diagnosis_name.'],
  ['representing confidence in severity_score.', 'expressing how confident you are in severity_score.'],
  ['If a field cannot be determined from the image, set it to null.', 'Whenever the image does not allow a field to be determined, set it to null.'],
];

const NEUROVLM = paraphraseTemplate(NEUROVLM_TEMPLATE, {
  system: NEUROVLM_SYSTEM,
  fewShotHeader: [['Below are example images and ONLY their class label. Use them to calibrate class boundaries.', 'The images below are examples, each shown with ONLY its class label. Use them to calibrate where one class ends and the next begins.']],
  fewShotFooter: [['Now analyze the next image and', 'The image to read comes next:']],
  fewShotQuery: [['Analyze this image and', 'Read this image, then']],
});

/** Neural-MedBench's shared system prompt (NeuroEval's own wording, so its paraphrase is too). */
const NMB_SYSTEM_WORDS: readonly Rewording[] = [
  ['You are an experienced neurologist with expertise in neuroradiology.', 'You are a neurologist with long experience and expertise in neuroradiology.'],
  ['You are given a patient case: clinical information and brain imaging', 'A patient case is put to you: clinical information and brain imaging'],
  ['when there are several images they are given in order as image 1, image 2, …', 'several images come numbered in order as image 1, image 2, …'],
  ['Base your answer on what the images and the record actually show; do not invent findings.', 'Answer from what the images and the record really show, and do not make up findings.'],
];

/** The case block's labels; the placeholders and the question itself are sent as they are. */
const CASE_BLOCK_WORDS: readonly Rewording[] = [
  ['Clinical information:\n', 'Clinical information about the patient:\n'],
  ['Images: {{imageCount}}, in order.', 'Attached images: {{imageCount}}, in order.'],
  ['Question: {{question}}', 'Question to answer: {{question}}'],
];

const DIFFERENTIAL = paraphraseTemplate(DIFFERENTIAL_TEMPLATE, {
  system: NMB_SYSTEM_WORDS,
  user: [
    ...CASE_BLOCK_WORDS,
    ['Give your differential diagnosis:', 'Name the diagnoses you would consider, as'],
    ['ranked from most to least likely. For each, give your confidence', 'ranked from most to least likely. With each one, state how confident you are'],
    ['and the evidence from the images and the clinical information that supports it.', 'and which findings in the images and the clinical information support it.'],
  ],
});

const LESION = paraphraseTemplate(LESION_TEMPLATE, {
  system: NMB_SYSTEM_WORDS,
  user: [
    ...CASE_BLOCK_WORDS,
    [
      'Identify the main lesion: its type, its anatomical location, its side, and the image sequence that shows it best.',
      'Find the principal lesion and describe its type, where it lies anatomically, which side it is on, and the image sequence on which it is seen best.',
    ],
  ],
});

const RATIONALE = paraphraseTemplate(RATIONALE_TEMPLATE, {
  system: NMB_SYSTEM_WORDS,
  user: [
    ...CASE_BLOCK_WORDS,
    [
      'Explain your reasoning in a few paragraphs of plain text: the key imaging and clinical findings, how they lead to the most likely diagnosis, and what argues against the main alternatives.',
      'Set out how you reasoned, in a few paragraphs of plain text: which imaging and clinical findings matter most, how they point to the most likely diagnosis, and what speaks against the main alternatives.',
    ],
  ],
});

// The reply format (the JSON shape and what goes in it) is repeated every turn and stays word for word.
const MULTI_ROUND = paraphraseTemplate(MULTI_ROUND_TEMPLATE, {
  system: [...NMB_SYSTEM_WORDS, ['This is a consultation over several turns: new information may arrive after each of your answers.', 'The consultation runs over several turns: after each of your answers, new information may be given.']],
  user: CASE_BLOCK_WORDS,
  followUp: [['New images: {{imageCount}}.', 'Further images: {{imageCount}}.']],
});

const REVIEW = paraphraseTemplate(REVIEW_TEMPLATE, {
  system: NMB_SYSTEM_WORDS,
  user: [
    ...CASE_BLOCK_WORDS,
    ['Review the case with this checklist:', 'Go through the case point by point:'],
    ['anatomy: the region, level and plane shown;', 'anatomy: which region, level and plane the images show;'],
    ['key_findings: each abnormal finding (', 'key_findings: every abnormal finding you see ('],
    ['sequence_recognition: the modality and sequence of each image;', 'sequence_recognition: for each image, its modality and sequence;'],
    ['confidence: your overall confidence (0–1) in the leading hypothesis.', 'confidence: how confident you are overall (0–1) in the leading hypothesis.'],
  ],
});

const MCQ = paraphraseTemplate(MCQ_TEMPLATE, {
  user: [
    ['Hint: {{clinical}}', 'Context: {{clinical}}'],
    ['Please select the correct answer from the options above.', 'Pick the option above that answers the question correctly.'],
  ],
});

const RUBRIC = paraphraseTemplate(RUBRIC_TEMPLATE, {
  system: [
    ['You are an experienced physician.', 'You are a physician with long experience.'],
    ['Answer the question as you would for a colleague: accurate, complete and safe.', 'Reply to the question the way you would reply to a colleague: accurately, completely and safely.'],
  ],
  user: [['Images: {{imageCount}}, in order.', 'Attached images: {{imageCount}}, in order.']],
});

const OPEN_QUESTION = paraphraseTemplate(OPEN_QUESTION_TEMPLATE, {
  system: [
    ['You are an experienced neurologist with expertise in neuroradiology.', 'You are a neurologist with long experience and expertise in neuroradiology.'],
    ['Answer concisely and base your answer on what the images and the record show.', 'Keep your answer short and ground it in what the images and the record show.'],
  ],
  user: CASE_BLOCK_WORDS,
});

const SHORT_ANSWER = paraphraseTemplate(SHORT_ANSWER_TEMPLATE, {
  user: [['Answer the question using a single word or phrase.', 'Reply with one word or a short phrase.']],
});

const NUMERIC = paraphraseTemplate(NUMERIC_TEMPLATE, {
  system: [['Please think step-by-step to solve the question and then generate the required score.', 'Work through the question step by step, then give the required score.']],
  user: [['Here is the task:', 'The task:']],
});

const BOX = paraphraseTemplate(BOX_TEMPLATE, {
  user: [['Give the bounding box as', 'Write the bounding box as']],
});

/** Each protocol's paraphrased template (a record over every protocol id, so a new protocol cannot be forgotten). */
export const PARAPHRASES: Readonly<Record<ProtocolId, PromptTemplate>> = {
  'neurovlm-structured': NEUROVLM,
  'nmb-differential': DIFFERENTIAL,
  'nmb-lesion': LESION,
  'nmb-rationale': RATIONALE,
  'nmb-multi-round': MULTI_ROUND,
  'structured-review': REVIEW,
  mcq: MCQ,
  rubric: RUBRIC,
  'open-question': OPEN_QUESTION,
  'short-answer': SHORT_ANSWER,
  numeric: NUMERIC,
  box: BOX,
};

/** The paraphrase of a protocol's default template; undefined for an unknown id. */
export function paraphraseOf(protocolId: string): PromptTemplate | undefined {
  return Object.hasOwn(PARAPHRASES, protocolId) ? PARAPHRASES[protocolId as ProtocolId] : undefined;
}
