/** All protocols by id, and the default protocol for a case. */
import type { AnswerType, BenchCase, ProtocolDefaults, TaskDeclaration, TaskFamily } from '../bundle/types.ts';
import { boxProtocol, numericProtocol, shortAnswerProtocol } from './answers/index.ts';
import { openQuestionProtocol, rubricProtocol } from './free-text.ts';
import { mcqProtocol } from './mcq/protocol.ts';
import { neuroVlmProtocol } from './neurovlm/protocol.ts';
import { nmbDifferentialProtocol } from './nmb/differential.ts';
import { nmbLesionProtocol } from './nmb/lesion.ts';
import { nmbMultiRoundProtocol } from './nmb/multi-round.ts';
import { nmbRationaleProtocol } from './nmb/rationale.ts';
import { structuredReviewProtocol } from './nmb/review.ts';
import type { MultiTurnProtocol, PromptTemplate, Protocol, ProtocolId } from './types.ts';

export const PROTOCOLS: Readonly<Record<ProtocolId, Protocol>> = {
  'neurovlm-structured': neuroVlmProtocol,
  'nmb-differential': nmbDifferentialProtocol,
  'nmb-lesion': nmbLesionProtocol,
  'nmb-rationale': nmbRationaleProtocol,
  'nmb-multi-round': nmbMultiRoundProtocol,
  'structured-review': structuredReviewProtocol,
  mcq: mcqProtocol,
  rubric: rubricProtocol,
  'open-question': openQuestionProtocol,
  'short-answer': shortAnswerProtocol,
  numeric: numericProtocol,
  box: boxProtocol,
};

export const PROTOCOL_IDS = Object.keys(PROTOCOLS) as ProtocolId[];

/** The protocol that asks for and scores each declared answer type (bundle/types.ts `TaskDeclaration`). */
export const ANSWER_TYPE_PROTOCOL: Readonly<Record<AnswerType, ProtocolId>> = {
  choice: 'mcq',
  short: 'short-answer',
  numeric: 'numeric',
  boxes: 'box',
  rubric: 'rubric',
  diagnosis: 'nmb-differential',
  class: 'neurovlm-structured',
  'free-text': 'open-question',
};

/**
 * The template a declared prompt makes of its answer type's own: the user
 * turn replaced, the system turn too where the declaration gives one (an empty
 * one drops it), everything else (few-shot blocks, follow-ups) kept. Its
 * version says it was declared; its hash goes into a run's provenance like
 * any template's.
 */
export function declaredTemplate(task: TaskDeclaration): { readonly protocolId: ProtocolId; readonly template: PromptTemplate } | null {
  if (!task.prompt) return null;
  const protocolId = ANSWER_TYPE_PROTOCOL[task.answerType];
  const base = PROTOCOLS[protocolId].templates[0];
  const { system: _system, ...rest } = base;
  const system = task.prompt.system ?? base.system;
  return { protocolId, template: { ...rest, version: `${base.version}+declared`, user: task.prompt.user, ...(system ? { system } : {}) } };
}

/** Default protocol of each task family. `open-question` becomes `rubric` when the case has rubric items. */
export const FAMILY_PROTOCOL: Readonly<Record<TaskFamily, ProtocolId>> = {
  classification: 'neurovlm-structured',
  'differential-diagnosis': 'nmb-differential',
  'lesion-recognition': 'nmb-lesion',
  'rationale-generation': 'nmb-rationale',
  'multi-turn': 'nmb-multi-round',
  'multiple-choice': 'mcq',
  'open-question': 'open-question',
};

export function isProtocolId(id: string): id is ProtocolId {
  return Object.hasOwn(PROTOCOLS, id);
}

/** The protocol with this id, or undefined for an unknown id (e.g. from an older bundle). */
export function getProtocol(id: string): Protocol | undefined {
  return isProtocolId(id) ? PROTOCOLS[id] : undefined;
}

export function isMultiTurn(p: Protocol): p is MultiTurnProtocol {
  return typeof (p as Partial<MultiTurnProtocol>).buildTurn === 'function';
}

function hasOptions(c: BenchCase): boolean {
  return c.questions.length > 0 && c.questions.every((q) => q.options?.length);
}

/** Whether a protocol can run a case at all: options need `mcq` and only it; NeuroVLM-Bench needs an image. */
export function fits(id: ProtocolId, c: BenchCase): boolean {
  if (id === 'mcq' || hasOptions(c)) return id === 'mcq' && hasOptions(c);
  return id !== 'neurovlm-structured' || c.images.length > 0;
}

/** The answer-type protocol every question of a case asks for by its reference (a short answer, a number, boxes), if one. */
function answerTypeProtocol(c: BenchCase): Protocol | undefined {
  if (c.questions.length === 0) return undefined;
  const all = (has: (q: BenchCase['questions'][number]) => boolean) => c.questions.every(has);
  if (all((q) => !!q.reference?.short)) return shortAnswerProtocol;
  if (all((q) => !!q.reference?.numeric)) return numericProtocol;
  if (all((q) => (q.reference?.boxes?.length ?? 0) > 0)) return boxProtocol;
  return undefined;
}

/**
 * The protocol a case runs with by default: the declared task's
 * (`protocolDefaults.task`, by its answer type) when it fits the case, the
 * bundle's `protocolDefaults.protocol` when it is known and fits, else by
 * task family (`mcq` for questions with options, the answer type's protocol
 * for questions whose reference is a short answer, a number or boxes,
 * `rubric` for open questions that carry rubric items).
 */
export function protocolFor(c: BenchCase, defaults?: ProtocolDefaults): Protocol {
  const declared = defaults?.task ? PROTOCOLS[ANSWER_TYPE_PROTOCOL[defaults.task.answerType]] : undefined;
  if (declared && fits(declared.id, c)) return declared;
  const preferred = defaults?.protocol ? getProtocol(defaults.protocol) : undefined;
  if (preferred && fits(preferred.id, c)) return preferred;
  if (hasOptions(c)) return mcqProtocol;
  const byAnswer = answerTypeProtocol(c);
  if (byAnswer) return byAnswer;
  const family = FAMILY_PROTOCOL[c.taskFamily] ?? 'open-question';
  if (family === 'open-question' && c.questions.some((q) => q.reference?.rubric?.length)) return rubricProtocol;
  if (!fits(family, c)) return openQuestionProtocol;
  return PROTOCOLS[family];
}
