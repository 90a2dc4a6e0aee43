/** Evaluation protocols: prompts in, typed answers out. See types.ts for the contract. */
export type * from './types.ts';
export { ANSWER_TYPE_PROTOCOL, PROTOCOLS, PROTOCOL_IDS, FAMILY_PROTOCOL, declaredTemplate, getProtocol, isMultiTurn, isProtocolId, protocolFor } from './registry.ts';
export { TEMPLATE_PLACEHOLDERS, questionVars, renderTemplate, templateHash, templateInfo, type TemplateVars } from './template.ts';
export { imageRef, imageRefs, resolveTurns } from './request.ts';
export { roughTokenCount, stripThink, stripThinkDetailed, type StrippedText } from './text.ts';
export { extractJsonObject, isRecord, repairTruncatedJson, type ExtractOptions, type JsonExtraction } from './json.ts';
export { Warnings, coerceConfidence, coerceNumber, coerceString, coerceStringList, pick } from './coerce.ts';
export { NEUROVLM_PROMPT } from './neurovlm/prompt.ts';
export {
  NEUROVLM_CLASSES, NEUROVLM_FIELDS, NEUROVLM_SCHEMA, NEUROVLM_TEMPLATE, exemplarLabel, neuroVlmProtocol, parseNeuroVlm,
  type NeuroVlmAnswer, type NeuroVlmField,
} from './neurovlm/protocol.ts';
export { MAX_HYPOTHESES, parseDifferentialText, type DifferentialAnswer, type Hypothesis } from './nmb/hypotheses.ts';
export { DIFFERENTIAL_SCHEMA, DIFFERENTIAL_TEMPLATE, nmbDifferentialProtocol, parseDifferential } from './nmb/differential.ts';
export { LATERALITIES, LESION_SCHEMA, LESION_TEMPLATE, coerceLaterality, nmbLesionProtocol, parseLesion, type LesionAnswer } from './nmb/lesion.ts';
export { RATIONALE_TEMPLATE, nmbRationaleProtocol, parseFreeText, type FreeTextAnswer } from './nmb/rationale.ts';
export { MULTI_ROUND_SCHEMA, MULTI_ROUND_TEMPLATE, nmbMultiRoundProtocol, parseMultiRound } from './nmb/multi-round.ts';
export { REVIEW_SCHEMA, REVIEW_TEMPLATE, parseReview, structuredReviewProtocol, type StructuredReview } from './nmb/review.ts';
export { DEFAULT_OPTION_KEYS, extractChoice, type McqAnswer, type McqRule } from './mcq/extract.ts';
export { MCQ_TEMPLATE, mcqProtocol } from './mcq/protocol.ts';
export { OPEN_QUESTION_TEMPLATE, RUBRIC_TEMPLATE, openQuestionProtocol, rubricItems, rubricProtocol } from './free-text.ts';
