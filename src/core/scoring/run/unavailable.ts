/**
 * Figures a run's answers cannot produce, and why: an arm's headline metric
 * (or any metric it lists) with no value on any answer. Results say this in
 * words ("no case has a reference class (diagnosis_name)…; 4 of the 5
 * answers did not parse") where they would otherwise show an empty cell, a
 * NaN, or a failure gallery that reads "No wrong answers".
 */
import type { BenchCase } from '../../bundle/types.ts';
import { numericFigure } from '../answers/numeric.ts';
import { referenceNeed, type ReferenceNeed } from './reference-needs.ts';
import type { ItemScore, MetricSummary, UnavailableMetric } from './types.ts';

/** What {@link unavailableMetrics} reads of an answer. */
interface AnswerState {
  readonly error?: string | null | undefined;
  readonly parseError?: string | null | undefined;
}

/**
 * The headline metric of each protocol's answers (score-item.ts), for
 * answers whose own `primary` is null: a failed call, or a free-text answer
 * with no reference to compare with.
 */
const PROTOCOL_PRIMARY: Readonly<Record<string, string>> = {
  'neurovlm-structured': 'neurovlm.diagnosis_name',
  'nmb-differential': 'pass@1',
  'structured-review': 'pass@1',
  'nmb-multi-round': 'pass@1',
  'nmb-lesion': 'lesion.all',
  mcq: 'mcq.correct',
  rubric: 'rubric',
  'nmb-rationale': 'rougeL',
  'open-question': 'rougeL',
  'short-answer': 'short.exact',
  box: 'box.acc50',
};

/** The headline metric an answer would have had: its protocol's, a number's named by its reference as scoring names it. */
function expectedPrimary(it: ItemScore, cases: ReadonlyMap<string, BenchCase>): string | undefined {
  if (it.protocolId === 'numeric') return numericFigure(cases.get(it.caseId)?.questions.find((q) => q.id === it.questionId)?.reference?.numeric);
  return PROTOCOL_PRIMARY[it.protocolId];
}

const hasValue = (it: ItemScore, metric: string): boolean => typeof it.metrics[metric]?.value === 'number';

/** "all 5 answers", "the answer" (one of one), "2 of the 5 answers". */
const answersOf = (k: number, n: number): string => (k < n ? `${k} of the ${n} answers` : n === 1 ? 'the answer' : `all ${n} answers`);

/** Why none of `items` has a value of `metric`: one sentence with its counts. */
function reasonFor(metric: string, items: readonly ItemScore[], answers: ReadonlyMap<string, AnswerState>, cases: ReadonlyMap<string, BenchCase>): string {
  const n = items.length;
  let failed = 0;
  let unparsed = 0;
  let judgeUndecided = 0;
  let noValue = 0;
  let noJudge = 0;
  const noScorer = new Set<string>();
  let need: ReferenceNeed | undefined;
  /** Questions (cases) with an answer that is not a failed call; of them, those whose reference lacks what the protocol needs. */
  const answered = new Set<string>();
  const lacking = new Set<string>();
  const other = new Map<string, number>();
  for (const it of items) {
    const answer = answers.get(it.responseId);
    if (answer?.error) {
      failed++;
      continue;
    }
    if (answer?.parseError) unparsed++;
    const key = `${it.caseId}#${it.questionId}`;
    answered.add(key);
    const v = it.metrics[metric];
    if (v) {
      if (v.source === 'judge') judgeUndecided++;
      else noValue++;
      continue;
    }
    const required = referenceNeed(it.protocolId);
    const question = cases.get(it.caseId)?.questions.find((q) => q.id === it.questionId);
    if (!required) noScorer.add(it.protocolId);
    else if (!required.has(question)) {
      need ??= required;
      lacking.add(key);
    } else if (it.protocolId === 'rubric') noJudge++;
    else {
      const note = it.notes[0] ?? 'no value';
      other.set(note, (other.get(note) ?? 0) + 1);
    }
  }
  const parts: string[] = [];
  if (failed === n) return `every call failed (${n} of ${n}), so there is no answer to score.`;
  if (failed) parts.push(`${failed} of the ${n} calls failed`);
  if (lacking.size && need) {
    const total = answered.size;
    parts.push(lacking.size === total ? `no ${failed ? 'answered ' : ''}case has ${need.what} to score against` : `${lacking.size} of the ${total} ${failed ? 'answered ' : ''}cases ${lacking.size === 1 ? 'has' : 'have'} no ${need.bare} to score against`);
  }
  if (noJudge) parts.push(`${answersOf(noJudge, n)} could not be marked: rubric items need a local judge, or every item marked in review`);
  if (judgeUndecided) parts.push(`the local judge could not decide ${answersOf(judgeUndecided, n)}`);
  if (noValue) parts.push(`${answersOf(noValue, n)} got no value`);
  for (const id of noScorer) parts.push(`NeuroEval has no scorer for protocol "${id}"`);
  for (const [note, k] of other) parts.push(`${answersOf(k, n)}: ${note.replace(/\.$/, '')}`);
  if (unparsed) parts.push(unparsed === n ? `none of the ${n} answers parsed` : `${unparsed} of the ${n} answers did not parse`);
  const sentence = parts.length ? parts.join('; ') : 'no answer has a value';
  return `${sentence}.${lacking.size && need ? ` ${need.hint}` : ''}`;
}

/**
 * The metrics of one arm with no value on any answer: the headline metric of
 * each protocol it was asked under (absent from the summary when no answer
 * could be scored on it) and every listed metric whose answers all came out
 * without a value. `metrics` are the arm's summaries; `label` names a metric.
 */
export function unavailableMetrics(
  items: readonly ItemScore[],
  answers: ReadonlyMap<string, AnswerState>,
  cases: ReadonlyMap<string, BenchCase>,
  metrics: readonly MetricSummary[],
  label: (metric: string) => string,
): UnavailableMetric[] {
  const groups = new Map<string, ItemScore[]>();
  const add = (metric: string, it: ItemScore) => {
    const list = groups.get(metric) ?? [];
    list.push(it);
    groups.set(metric, list);
  };
  for (const it of items) {
    const expected = it.primary ?? expectedPrimary(it, cases);
    if (expected) add(expected, it);
  }
  for (const m of metrics) {
    if (m.n > 0 || groups.has(m.metric)) continue;
    for (const it of items) if (it.metrics[m.metric]) add(m.metric, it);
  }
  const out: UnavailableMetric[] = [];
  for (const [metric, list] of groups) {
    if (items.some((it) => hasValue(it, metric))) continue;
    out.push({ metric, label: label(metric), answers: list.length, reason: reasonFor(metric, list, answers, cases) });
  }
  return out;
}
