/**
 * What every protocol's scorer builds on: the item being scored, the context
 * it is scored in, the {@link Scorer} seam, and the steps several scorers
 * share (rule then judge, ranked pass@k, BERTScore, an answer's free text).
 */
import type { BenchCase, Question, ReferenceAnswer, TaskDeclaration } from '../../../bundle/types.ts';
import { stripThink } from '../../../protocols/text.ts';
import type { TurnRecord } from '../../../model/answer.ts';
import { ruleVerdict } from '../../equivalence/normalise.ts';
import type { BertScore } from '../../metrics/bertscore.ts';
import type { ScorableResponse } from '../../neurovlm/items.ts';
import { EQUIVALENCE_RUBRIC_VERSION, type JudgeReply, type JudgeService } from '../judge-service.ts';
import type { PairSimilarity } from '../similarity.ts';
import type { ItemMetric, VerdictNote } from '../types.ts';

/** Clinicians' verdict on an answer, reduced from the reviews of it. */
export interface Adjudication {
  /** null: the reviews give no correct / incorrect verdict (only rubric marks, say). */
  readonly correct: boolean | null;
  readonly reviewerId: string;
  readonly note: string;
  /** Rubric answers: met / not met per rubric item id, and who decided it. */
  readonly rubric?: Readonly<Record<string, { readonly met: boolean; readonly by: string }>>;
}

export interface ItemContext {
  readonly response: ScorableResponse & { readonly id: string; readonly turns?: readonly TurnRecord[] };
  readonly caseId: string;
  readonly questionId: string;
  readonly kase: BenchCase | undefined;
  readonly question: Question | undefined;
  readonly protocolId: string;
  /** The benchmark's declared task, whose scorer settings apply (a numeric tolerance). */
  readonly task?: TaskDeclaration | undefined;
  readonly judge?: JudgeService | undefined;
  readonly similarity?: PairSimilarity | undefined;
  readonly adjudication?: Adjudication | undefined;
  readonly proposeTaxonomy: boolean;
}

export const RULE_NONE = 'rule:none';
export const m = (value: number | null, source: ItemMetric['source'], sourceId: string): ItemMetric => ({ value, source, sourceId });
export const bit = (b: boolean): number => (b ? 1 : 0);
export const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
/** The request hash a later re-score matches on; a failed call has none, so it is asked again. */
export const reusable = (reply: JudgeReply<unknown>): { promptHash?: string } => (reply.failed ? {} : { promptHash: reply.promptHash });

/** Builder shared by the protocol scorers. */
export class Item {
  readonly metrics: Record<string, ItemMetric> = {};
  readonly verdicts: VerdictNote[] = [];
  readonly notes: string[] = [];
  primary: string | null = null;
  confidence: number | null = null;
  /** Text a judge sees as "the model's answer" when proposing error classes. */
  answerText = '';
  /** Text of the reference for the same purpose. */
  referenceText = '';
}

/** Rule, then judge: is `candidate` the reference diagnosis? Records the verdict. */
export async function equivalent(it: Item, ctx: ItemContext, candidate: string, reference: ReferenceAnswer, forMetric: string): Promise<ItemMetric> {
  const rule = ruleVerdict(candidate, reference);
  if (rule.equivalent) {
    it.verdicts.push({ hypothesis: candidate, for: forMetric, equivalent: true, source: 'rule', decidedBy: `rule:${rule.rule}`, rationale: `matched "${rule.matched}" (${rule.method})` });
    return m(1, 'rule', `rule:${rule.rule}`);
  }
  if (ctx.judge && candidate.trim() !== '') {
    const reply = await ctx.judge.equivalence(candidate, reference);
    const v = reply.parsed;
    it.verdicts.push({
      hypothesis: candidate, for: forMetric, equivalent: v.equivalent, source: 'judge', decidedBy: ctx.judge.id,
      rationale: v.error ? `undecided: ${v.error}` : v.rationale, raw: reply.raw, rubricVersion: EQUIVALENCE_RUBRIC_VERSION, ...reusable(reply),
    });
    return m(v.equivalent === null ? null : bit(v.equivalent), 'judge', ctx.judge.id);
  }
  return m(0, 'rule', RULE_NONE);
}

/** pass@1 and pass@5 over a ranked list: evaluation stops at the first equivalent hypothesis. */
export async function rankedPass(it: Item, ctx: ItemContext, names: readonly string[], reference: ReferenceAnswer, prefix = ''): Promise<void> {
  let first: ItemMetric | null = null;
  let matchAt: ItemMetric | null = null;
  let undecided = false;
  for (let i = 0; i < Math.min(5, names.length); i++) {
    const v = await equivalent(it, ctx, names[i]!, reference, `${prefix}pass@${i === 0 ? 1 : 5}`);
    if (i === 0) first = v;
    if (v.value === null) undecided = true;
    if (v.value === 1) {
      matchAt = v;
      break;
    }
  }
  const none = m(0, 'rule', RULE_NONE);
  it.metrics[`${prefix}pass@1`] = first ?? none;
  it.metrics[`${prefix}pass@5`] = matchAt ?? (undecided ? m(null, 'judge', ctx.judge?.id ?? '') : { ...(first ?? none), value: 0 });
}

/** BERTScore of `candidate` against the reference's rationale; null without an encoder or a rationale. */
export async function similarityOf(ctx: ItemContext, candidate: string, ref: ReferenceAnswer): Promise<BertScore | null> {
  if (!ctx.similarity || !ref.rationale) return null;
  return (await ctx.similarity.score(candidate, ref.rationale)).bert;
}

export function setBert(it: Item, prefix: string, b: BertScore, encoderId: string): void {
  it.metrics[`${prefix}bertscore.p`] = m(b.precision, 'encoder', encoderId);
  it.metrics[`${prefix}bertscore.r`] = m(b.recall, 'encoder', encoderId);
  it.metrics[`${prefix}bertscore.f`] = m(b.f, 'encoder', encoderId);
}

/** The free text of an answer: the parsed `text` where the protocol gives one, else what the model wrote without its thinking. */
export function freeText(parsed: unknown, raw: string): string {
  if (isObj(parsed) && typeof parsed.text === 'string') return parsed.text;
  return stripThink(raw).trim();
}

/**
 * One protocol's scorer (in the spirit of Inspect AI's `(state, target) ->
 * Score`): it reads the protocol's answer from what was stored, typed, and
 * turns it into the item's metrics against the question's reference.
 */
export interface Scorer<A> {
  /** The protocols whose answers it scores. */
  readonly protocols: readonly string[];
  /** The protocol's answer from the stored one; `parsed` is null where the answer did not parse. */
  read(parsed: unknown, ctx: ItemContext): A;
  score(it: Item, ctx: ItemContext, answer: A): Promise<void> | void;
  /** The reference texts BERTScore compares an answer with, one per scored pair (bert_score counts each pair's reference for IDF). */
  references?(question: Question | undefined, response: { readonly turns?: readonly unknown[] }): string[];
  /** An answer that did not parse is counted by a metric of its own (`json_valid`, `mcq.invalid`), so no note is added for it. */
  readonly countsParseErrors?: boolean;
}

/** A scorer with its answer type closed over: what the registry holds. */
export interface ProtocolScorer {
  readonly protocols: readonly string[];
  readonly countsParseErrors: boolean;
  run(it: Item, ctx: ItemContext, parsed: unknown): Promise<void> | void;
  references(question: Question | undefined, response: { readonly turns?: readonly unknown[] }): string[];
}

export function defineScorer<A>(s: Scorer<A>): ProtocolScorer {
  return {
    protocols: s.protocols,
    countsParseErrors: s.countsParseErrors ?? false,
    run: (it, ctx, parsed) => s.score(it, ctx, s.read(parsed, ctx)),
    references: (question, response) => s.references?.(question, response) ?? [],
  };
}
