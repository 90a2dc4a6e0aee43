/**
 * An answer of a run in words: which case, which question, which model, which
 * image variant and which sample, instead of the runner's item key
 * (`case_11#1|self-test|none|s0`), which is an identity for storage only.
 */
import type { ItemIdentity } from '../../core/model/answer.ts';
import { variantLabel } from '../../core/runner/index.ts';
import type { Provenance } from '../../core/runner/provenance.ts';

export type AnswerIdentity = Omit<ItemIdentity, 'itemKey'>;

export interface AnswerLabel {
  readonly caseId: string;
  readonly question: string;
  readonly model: string;
  /** Variant and sample, left out where the run has only one of each. */
  readonly extra: string;
}

/** "question 1" for ids `1` and `q1`; other ids as they are. */
function questionWords(id: string): string {
  const n = /^q?(\d+)$/i.exec(id)?.[1];
  return `question ${n ?? id}`;
}

/** Labels for the answers of one run, given its provenance (model names, samples and variants asked for). */
export function answerLabeller(p: Pick<Provenance, 'models' | 'samples' | 'variants'>): (a: AnswerIdentity) => AnswerLabel {
  const names = new Map(p.models.map((m) => [m.id, m.label ?? m.id]));
  return (a) => {
    const extra = [
      ...(p.variants.length > 1 || a.variant !== 'none' ? [variantLabel(a.variant)] : []),
      ...(p.samples > 1 ? [`sample ${a.sample + 1} of ${p.samples}`] : []),
    ];
    return { caseId: a.caseId, question: questionWords(a.questionId), model: names.get(a.modelId) ?? a.modelId, extra: extra.join(' · ') };
  };
}

/** The whole label as one line, e.g. "case_11 · question 1 · SmolVLM 256M · noise, level 2 of 3". */
export function answerLine(l: AnswerLabel): string {
  return [`${l.caseId}`, l.question, l.model, ...(l.extra ? [l.extra] : [])].join(' · ');
}
