/**
 * Local run → scorer items: joins each stored response with the ground truth
 * of its case (`question.reference.labels`), and groups items per model and
 * variant, since a report mixes neither.
 */
import type { BenchCase, Question } from '../../bundle/types.ts';
import type { ResponseRecord } from '../../model/answer.ts';
import { NEUROVLM_SCORED_FIELDS, type NeuroVlmScoredField } from './normalise.ts';
import { armKey } from '../run/types.ts';
import type { NeuroVlmAnswerOutcome, NeuroVlmItem } from './types.ts';

/** A stored response as the runner writes it (`ResponseRecord`), reduced to what scoring reads. */
export type ScorableResponse = Pick<
  ResponseRecord,
  'itemKey' | 'caseId' | 'questionId' | 'modelId' | 'variant' | 'sample' | 'parsed' | 'parseError' | 'latencyMs' | 'usage' | 'rawText' | 'finishReason' | 'createdAt' | 'error'
> & { readonly id?: string };

/** The case and question a response answered, when the cases are at hand. */
export function findQuestion(cases: ReadonlyMap<string, BenchCase>, r: Pick<ScorableResponse, 'caseId' | 'questionId'>): { kase: BenchCase; question: Question | undefined } | undefined {
  const kase = cases.get(r.caseId);
  if (!kase) return undefined;
  return { kase, question: kase.questions.find((q) => q.id === r.questionId) ?? kase.questions[0] };
}

/** Ground truth of the five fields from a question's `reference.labels`; missing labels stay absent (not scorable). */
export function goldOf(question: Question | undefined): Partial<Record<NeuroVlmScoredField, string | null>> {
  const labels = question?.reference?.labels ?? {};
  const gold: Partial<Record<NeuroVlmScoredField, string | null>> = {};
  for (const f of NEUROVLM_SCORED_FIELDS) if (f in labels) gold[f] = labels[f] ?? null;
  return gold;
}

/** How a stored response counts: a failed call, an unparsed answer, or a parsed one. */
export function outcomeOf(r: ScorableResponse): NeuroVlmAnswerOutcome {
  if (r.error) return { kind: 'call-error', error: r.error };
  if (r.parseError !== null && r.parseError !== undefined) return { kind: 'parse-error', error: r.parseError };
  return { kind: 'parsed', value: r.parsed };
}

/** Scorer items of a run; responses whose case is unknown keep no ground truth (every field not scorable). */
export function neuroVlmItemsFromRun(responses: readonly ScorableResponse[], cases: readonly BenchCase[]): NeuroVlmItem[] {
  const byId = new Map(cases.map((c) => [c.id, c]));
  return responses.map((r) => ({
    id: r.itemKey,
    modelId: r.modelId,
    variant: r.variant,
    gold: goldOf(findQuestion(byId, r)?.question),
    answer: outcomeOf(r),
    latencyMs: Number.isFinite(r.latencyMs) ? r.latencyMs : null,
    usage: { promptTokens: r.usage?.promptTokens ?? null, completionTokens: r.usage?.completionTokens ?? null },
  }));
}

/** Items grouped per model and variant, in first-seen order; the key reads `model` or `model [variant]`. */
export function groupNeuroVlmItems(items: readonly NeuroVlmItem[]): Map<string, NeuroVlmItem[]> {
  const groups = new Map<string, NeuroVlmItem[]>();
  for (const item of items) {
    const key = armKey(item.modelId, item.variant);
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(item);
  }
  return groups;
}
