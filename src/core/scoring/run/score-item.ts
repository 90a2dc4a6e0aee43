/**
 * Item-level scoring: one stored answer → its metrics, each with the source
 * that decided it. Which metrics an answer gets depends on its protocol:
 *
 * | protocol                         | metrics (primary first)                                   |
 * |----------------------------------|-----------------------------------------------------------|
 * | neurovlm-structured              | `neurovlm.<field>` (diagnosis_name first), `json_valid`   |
 * | nmb-differential, structured-review | `pass@1`, `pass@5` (equivalence chain); `bertscore.p/r/f` of its free text when the reference has a rationale |
 * | nmb-multi-round                  | `pass@1`, `pass@5` (last turn with a reference diagnosis), `bertscore.p/r/f` (mean over turns with a reference rationale); per turn `turn<k>.pass@1`, `turn<k>.pass@5`, `turn<k>.bertscore.*` |
 * | nmb-lesion                       | `lesion.all`, `lesion.type/location/laterality/sequence`   |
 * | nmb-rationale, open-question     | `bertscore.f` (or `rougeL` without encoder), `cosine`, `rouge1/2/L/Lsum`, `token_f1`; `correct` (judge, open questions with a diagnosis) |
 * | mcq                              | `mcq.correct`, `mcq.invalid`                               |
 * | rubric                           | `rubric` (judge marks each item), `rubric.tag.<tag>` per tag |
 * | short-answer                     | `short.exact` (lmms-eval), `short.exact.open` / `short.exact.closed`, `short.recall.open` (LLaVA-Med, open questions) |
 * | numeric                          | `numeric.correct` (MedCalc-Bench's rules), `numeric.found`  |
 * | box                              | `box.acc50` (IoU ≥ 0.5), `box.iou`                          |
 *
 * A clinician's review overrides the primary metric (and `pass@5` when it
 * says correct); the judge is asked only where the rule says no.
 */
import type { BenchCase, Question, ReferenceAnswer } from '../../bundle/types.ts';
import type { DifferentialAnswer } from '../../protocols/nmb/hypotheses.ts';
import type { LesionAnswer } from '../../protocols/nmb/lesion.ts';
import type { McqAnswer } from '../../protocols/mcq/extract.ts';
import type { StructuredReview } from '../../protocols/nmb/review.ts';
import { stripThink } from '../../protocols/text.ts';
import type { TurnRecord } from '../../runner/types.ts';
import { ruleVerdict } from '../equivalence/normalise.ts';
import { TAXONOMY_VERSION } from '../equivalence/taxonomy.ts';
import type { BertScore } from '../metrics/bertscore.ts';
import { lesionMatch, LESION_FIELDS } from '../metrics/lesion.ts';
import { rougeScore } from '../metrics/rouge.ts';
import { rubricScore } from '../metrics/rubric.ts';
import { squadScore } from '../metrics/squad.ts';
import { ABSTAIN, NEUROVLM_SCORED_FIELDS, normaliseField } from '../neurovlm/normalise.ts';
import { scoreBoxAnswer, scoreNumericAnswer, scoreShortAnswer, type AnswerTypeScore } from '../answers/score.ts';
import type { ScorableResponse } from '../neurovlm/items.ts';
import { EQUIVALENCE_RUBRIC_VERSION, RUBRIC_ITEM_VERSION, type JudgeReply, type JudgeService } from './judge-service.ts';
import type { PairSimilarity } from './similarity.ts';
import { isContinuousMetric } from './summary.ts';
import type { ItemMetric, ItemScore, TaxonomyProposal, VerdictNote } from './types.ts';

/** Clinicians' verdict on an answer, reduced from the reviews of it. */
export interface Adjudication {
  /** null: the reviews give no correct / incorrect verdict (only rubric marks, say). */
  readonly correct: boolean | null;
  readonly reviewerId: string;
  readonly note: string;
  /** Rubric answers: met / not met per rubric item id, and who decided it. */
  readonly rubric?: Readonly<Record<string, { readonly met: boolean; readonly by: string }>>;
}

interface ItemContext {
  readonly response: ScorableResponse & { readonly id: string; readonly turns?: readonly TurnRecord[] };
  readonly caseId: string;
  readonly questionId: string;
  readonly kase: BenchCase | undefined;
  readonly question: Question | undefined;
  readonly protocolId: string;
  readonly judge?: JudgeService | undefined;
  readonly similarity?: PairSimilarity | undefined;
  readonly adjudication?: Adjudication | undefined;
  readonly proposeTaxonomy: boolean;
}

const RULE_NONE = 'rule:none';
const m = (value: number | null, source: ItemMetric['source'], sourceId: string): ItemMetric => ({ value, source, sourceId });
const bit = (b: boolean): number => (b ? 1 : 0);
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
/** The request hash a later re-score matches on; a failed call has none, so it is asked again. */
const reusable = (reply: JudgeReply<unknown>): { promptHash?: string } => (reply.failed ? {} : { promptHash: reply.promptHash });

/** Builder shared by the protocol scorers. */
class Item {
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
async function equivalent(it: Item, ctx: ItemContext, candidate: string, reference: ReferenceAnswer, forMetric: string): Promise<ItemMetric> {
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
async function rankedPass(it: Item, ctx: ItemContext, names: readonly string[], reference: ReferenceAnswer, prefix = ''): Promise<void> {
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

function hypothesisNames(answer: unknown): string[] {
  const list = isObj(answer) && Array.isArray(answer.hypotheses) ? (answer.hypotheses as DifferentialAnswer['hypotheses']) : [];
  return [...list].sort((a, b) => a.rank - b.rank).map((h) => h.diagnosis).filter((d) => typeof d === 'string' && d.trim() !== '');
}

function topConfidence(answer: unknown): number | null {
  if (!isObj(answer)) return null;
  if (typeof answer.confidence === 'number') return answer.confidence;
  const list = Array.isArray(answer.hypotheses) ? (answer.hypotheses as DifferentialAnswer['hypotheses']) : [];
  const top = [...list].sort((a, b) => a.rank - b.rank)[0];
  return top && typeof top.confidence === 'number' ? top.confidence : null;
}

/**
 * The free text of a differential answer, for BERTScore against the
 * reference rationale: the reply that came with the list, else each
 * hypothesis with its evidence, else what the model wrote (an answer that
 * did not parse).
 */
function differentialText(parsed: unknown, raw: string): string {
  if (isObj(parsed) && typeof parsed.text === 'string' && parsed.text.trim()) return parsed.text;
  const list = isObj(parsed) && Array.isArray(parsed.hypotheses) ? [...(parsed.hypotheses as DifferentialAnswer['hypotheses'])].sort((a, b) => a.rank - b.rank) : [];
  if (list.length) return list.map((h) => (h.evidence ? `${h.diagnosis}: ${h.evidence}` : h.diagnosis)).join('\n');
  return stripThink(raw).trim();
}

/** BERTScore of `candidate` against the reference's rationale; null without an encoder or a rationale. */
async function similarityOf(ctx: ItemContext, candidate: string, ref: ReferenceAnswer): Promise<BertScore | null> {
  if (!ctx.similarity || !ref.rationale) return null;
  return (await ctx.similarity.score(candidate, ref.rationale)).bert;
}

function setBert(it: Item, prefix: string, b: BertScore, encoderId: string): void {
  it.metrics[`${prefix}bertscore.p`] = m(b.precision, 'encoder', encoderId);
  it.metrics[`${prefix}bertscore.r`] = m(b.recall, 'encoder', encoderId);
  it.metrics[`${prefix}bertscore.f`] = m(b.f, 'encoder', encoderId);
}

/**
 * The reference texts BERTScore compares an answer with, one per scored
 * pair, for IDF weights (bert_score counts each pair's reference).
 */
export function similarityReferences(protocolId: string, question: Question | undefined, response: { readonly turns?: readonly unknown[] }): string[] {
  const ref = question?.reference;
  switch (protocolId) {
    case 'nmb-rationale':
    case 'open-question': {
      const t = ref?.rationale ?? ref?.diagnosis;
      return t ? [t] : [];
    }
    case 'nmb-differential':
    case 'structured-review':
      return ref?.rationale ? [ref.rationale] : [];
    case 'nmb-multi-round': {
      const answered = Math.max(1, response.turns?.length ?? 0);
      return turnReferences(question).slice(0, answered).flatMap((r) => (r?.rationale ? [r.rationale] : []));
    }
    default:
      return [];
  }
}

async function scoreDifferential(it: Item, ctx: ItemContext, parsed: unknown): Promise<void> {
  const ref = ctx.question?.reference;
  it.primary = 'pass@1';
  const names = hypothesisNames(parsed);
  it.answerText = names.map((n, i) => `${i + 1}. ${n}`).join('; ');
  it.confidence = topConfidence(parsed);
  // BERTScore where the reference has a rationale, even when it names no diagnosis.
  const bert = ref ? await similarityOf(ctx, differentialText(parsed, ctx.response.rawText), ref) : null;
  if (bert) setBert(it, '', bert, ctx.similarity!.id);
  if (!ref?.diagnosis) {
    it.notes.push('No reference diagnosis: pass@k is not scorable.');
    return;
  }
  it.referenceText = ref.diagnosis;
  await rankedPass(it, ctx, names, ref);
  if (ctx.protocolId === 'structured-review' && isObj(parsed)) {
    const review = parsed as unknown as StructuredReview;
    const seq = ctx.kase?.sequences?.[0] ?? ctx.kase?.images.find((i) => i.sequence)?.sequence;
    if (seq && review.sequenceRecognition) it.metrics['review.sequence'] = m(bit(review.sequenceRecognition.toLowerCase().includes(seq.toLowerCase())), 'rule', 'rule:sequence');
  }
}

function turnParsed(t: TurnRecord): unknown {
  return t.parseError ? null : t.parsed;
}

/** The answers of a dialogue, turn by turn (a stored single answer counts as the opening turn). */
function dialogueTurns(r: ItemContext['response']): readonly TurnRecord[] {
  return r.turns?.length ? r.turns : [{ id: 'initial', rawText: r.rawText, parsed: r.parsed, parseError: r.parseError ?? null } as TurnRecord];
}

/** Each turn's reference: a follow-up's own, else the dialogue's (docs/protocols.md#neural-medbench-multi-round-dialogue). */
function turnReferences(q: Question | undefined): (ReferenceAnswer | undefined)[] {
  return [q?.reference, ...(q?.followUps ?? []).map((f) => f.reference ?? q?.reference)];
}

/**
 * A multi-round dialogue: each turn's ranked differential gets pass@1 and
 * pass@5 against that turn's reference, and its reply BERTScore against the
 * turn's reference rationale. The dialogue's pass@k is its last scored turn
 * (the diagnosis the consultation ends with); its BERTScore the mean over the
 * turns that have one.
 */
async function scoreMultiRound(it: Item, ctx: ItemContext): Promise<void> {
  it.primary = 'pass@1';
  const turns = dialogueTurns(ctx.response);
  const refs = turnReferences(ctx.question);
  let last = -1;
  const berts: BertScore[] = [];
  for (let k = 0; k < turns.length; k++) {
    const ref = refs[k];
    if (!ref) continue;
    const parsed = turnParsed(turns[k]!);
    if (ref.diagnosis) {
      const names = hypothesisNames(parsed);
      await rankedPass(it, ctx, names, ref, `turn${k + 1}.`);
      last = k;
      it.answerText = names.join('; ');
      it.referenceText = ref.diagnosis;
      it.confidence = topConfidence(parsed);
    }
    const bert = await similarityOf(ctx, differentialText(parsed, turns[k]!.rawText), ref);
    if (bert) {
      setBert(it, `turn${k + 1}.`, bert, ctx.similarity!.id);
      berts.push(bert);
    }
  }
  if (last >= 0) {
    it.metrics['pass@1'] = it.metrics[`turn${last + 1}.pass@1`]!;
    it.metrics['pass@5'] = it.metrics[`turn${last + 1}.pass@5`]!;
  } else it.notes.push('No turn has a reference diagnosis: pass@k is not scorable.');
  if (berts.length) {
    const mean = (f: (b: BertScore) => number) => berts.reduce((a, b) => a + f(b), 0) / berts.length;
    setBert(it, '', { precision: mean((b) => b.precision), recall: mean((b) => b.recall), f: mean((b) => b.f) }, ctx.similarity!.id);
  }
  if (turns.length < refs.length) it.notes.push(`Answered ${turns.length} of ${refs.length} turns.`);
}

function scoreLesion(it: Item, ctx: ItemContext, parsed: unknown): void {
  const ref = ctx.question?.reference?.lesion;
  it.primary = 'lesion.all';
  const a = (isObj(parsed) ? parsed : {}) as Partial<LesionAnswer>;
  it.answerText = [a.type, a.location, a.laterality, a.sequence].filter(Boolean).join(', ');
  if (!ref) {
    it.notes.push('No reference lesion: not scorable.');
    return;
  }
  it.referenceText = [ref.type, ref.location, ref.laterality, ref.sequence].filter(Boolean).join(', ');
  const match = lesionMatch(a, ref);
  for (const f of [...LESION_FIELDS, 'all'] as const) if (match[f] !== null) it.metrics[`lesion.${f}`] = m(bit(match[f]), 'rule', `rule:lesion-${f}`);
}

function freeText(parsed: unknown, raw: string): string {
  if (isObj(parsed) && typeof parsed.text === 'string') return parsed.text;
  return stripThink(raw).trim();
}

async function scoreFreeText(it: Item, ctx: ItemContext, parsed: unknown): Promise<void> {
  const ref = ctx.question?.reference;
  const text = freeText(parsed, ctx.response.rawText);
  it.answerText = text.slice(0, 1500);
  const target = ref?.rationale ?? ref?.diagnosis;
  it.primary = ctx.similarity?.tokens ? 'bertscore.f' : ctx.similarity ? 'cosine' : 'rougeL';
  if (!target) {
    it.notes.push('No reference text: similarity is not scorable.');
    it.primary = null;
  } else {
    it.referenceText = target.slice(0, 1500);
    const r = rougeScore(target, text, ['rouge1', 'rouge2', 'rougeL', 'rougeLsum'], { useStemmer: true });
    it.metrics.rouge1 = m(r.rouge1.f, 'rule', 'rule:rouge');
    it.metrics.rouge2 = m(r.rouge2.f, 'rule', 'rule:rouge');
    it.metrics.rougeL = m(r.rougeL.f, 'rule', 'rule:rouge');
    it.metrics.rougeLsum = m(r.rougeLsum.f, 'rule', 'rule:rouge');
    it.metrics.token_f1 = m(squadScore(text, [target])?.f1 ?? null, 'rule', 'rule:squad-f1');
    if (ctx.similarity) {
      const s = await ctx.similarity.score(text, target);
      const id = ctx.similarity.id;
      if (s.bert) {
        it.metrics['bertscore.p'] = m(s.bert.precision, 'encoder', id);
        it.metrics['bertscore.r'] = m(s.bert.recall, 'encoder', id);
        it.metrics['bertscore.f'] = m(s.bert.f, 'encoder', id);
      }
      it.metrics.cosine = m(s.cosine, 'encoder', id);
    }
  }
  // An open question with a diagnosis is also right or wrong; only a judge can read prose for that.
  if (ctx.protocolId === 'open-question' && ref?.diagnosis && ctx.judge) {
    it.metrics.correct = await equivalent(it, ctx, text, ref, 'correct');
    it.primary = 'correct';
    it.referenceText = ref.diagnosis;
  }
}

async function scoreRubric(it: Item, ctx: ItemContext, parsed: unknown): Promise<void> {
  const q = ctx.question;
  const items = q?.reference?.rubric ?? [];
  const text = freeText(parsed, ctx.response.rawText);
  it.answerText = text.slice(0, 1500);
  it.primary = 'rubric';
  it.referenceText = items.map((r) => `${r.text} (${r.points})`).join('; ');
  if (items.length === 0) {
    it.notes.push('No rubric items: not scorable.');
    it.primary = null;
    return;
  }
  const marks = ctx.adjudication?.rubric ?? {};
  if (!ctx.judge && !items.every((r) => marks[r.id])) {
    it.notes.push('Rubric items are marked by a judge or by reviewers: choose a local judge model, or mark every item in review.');
    return;
  }
  const met: { points: number; met: boolean | null; tags: readonly string[] }[] = [];
  const reviewers = new Set<string>();
  let reviewerMarked = 0;
  for (const r of items) {
    const mark = marks[r.id];
    if (mark) {
      met.push({ points: r.points, met: mark.met, tags: r.tags ?? [] });
      reviewerMarked++;
      for (const who of mark.by.split(', ')) reviewers.add(who);
      it.verdicts.push({ hypothesis: r.text, for: `rubric:${r.id}`, equivalent: mark.met, source: 'reviewer', decidedBy: mark.by });
      continue;
    }
    if (!ctx.judge) continue;
    const reply = await ctx.judge.rubricItem({ question: q?.text ?? '', answer: text, criterion: r.text, points: r.points });
    met.push({ points: r.points, met: reply.parsed.met, tags: r.tags ?? [] });
    it.verdicts.push({
      hypothesis: r.text, for: `rubric:${r.id}`, equivalent: reply.parsed.met, source: 'judge', decidedBy: ctx.judge.id,
      rationale: reply.parsed.error ? `undecided: ${reply.parsed.error}` : reply.parsed.rationale, raw: reply.raw, rubricVersion: RUBRIC_ITEM_VERSION, ...reusable(reply),
    });
  }
  const score = rubricScore(met);
  const judged = met.length > reviewerMarked && !!ctx.judge;
  const decided = (v: number | null) => (judged ? m(v, 'judge', ctx.judge!.id) : m(v, 'reviewer', [...reviewers].join(', ')));
  it.metrics.rubric = decided(score ? score.score : null);
  // Per tag (HealthBench's axes and themes): the same score over the items that carry the tag.
  for (const tag of new Set(met.flatMap((x) => x.tags))) {
    const s = rubricScore(met.filter((x) => x.tags.includes(tag)));
    if (s) it.metrics[`rubric.tag.${tag}`] = decided(s.score);
  }
  if (met.some((x) => x.met === null)) it.notes.push('Some rubric items were undecided (counted as not met): review them.');
}

function scoreMcq(it: Item, ctx: ItemContext, parsed: unknown, parseError: string | null): void {
  const gold = ctx.question?.reference?.answer;
  it.primary = 'mcq.correct';
  const choice = parseError === null && isObj(parsed) && typeof parsed.choice === 'string' ? (parsed as unknown as McqAnswer).choice : null;
  it.answerText = choice ?? '(no option found)';
  if (!gold) {
    it.notes.push('No answer key: not scorable.');
    return;
  }
  const option = ctx.question?.options?.find((o) => o.key === gold);
  it.referenceText = option ? `${gold}. ${option.text}` : gold;
  it.metrics['mcq.correct'] = m(bit(choice !== null && choice.toUpperCase() === gold.toUpperCase()), 'rule', choice === null ? 'rule:invalid' : `rule:${(parsed as unknown as McqAnswer).rule}`);
  it.metrics['mcq.invalid'] = m(bit(choice === null), 'rule', 'rule:invalid');
}

function scoreNeuroVlm(it: Item, ctx: ItemContext, parsed: unknown, parseError: string | null): void {
  const labels = ctx.question?.reference?.labels ?? {};
  const answer = parseError === null && isObj(parsed) ? parsed : null;
  it.primary = 'neurovlm.diagnosis_name';
  it.metrics.json_valid = m(bit(answer !== null), 'rule', 'rule:json');
  const c = answer?.diagnosis_confidence;
  it.confidence = typeof c === 'number' && Number.isFinite(c) ? c : typeof c === 'string' && Number.isFinite(Number(c)) && c.trim() !== '' ? Number(c) : null;
  for (const field of NEUROVLM_SCORED_FIELDS) {
    const raw = labels[field];
    if (raw === null || raw === undefined) continue;
    const gold = normaliseField(field, raw);
    if (gold === ABSTAIN) continue;
    const pred = answer ? normaliseField(field, answer[field]) : ABSTAIN;
    it.metrics[`neurovlm.${field}`] = m(bit(pred === gold), 'rule', 'rule:neurovlm-normalise');
  }
  if (!it.metrics['neurovlm.diagnosis_name']) it.notes.push('No ground-truth class: diagnosis is not scorable.');
  it.answerText = answer ? JSON.stringify(answer).slice(0, 1500) : stripThink(ctx.response.rawText).slice(0, 1500);
  it.referenceText = Object.entries(labels).filter(([, v]) => v).map(([k, v]) => `${k}: ${v}`).join('; ');
}

/** An answer type's rule-decided figures (scoring/answers/score.ts) into the item. */
function applyAnswerType(it: Item, s: AnswerTypeScore): void {
  it.primary = s.primary;
  it.answerText = s.answerText.slice(0, 1500);
  it.referenceText = s.referenceText.slice(0, 1500);
  for (const [k, v] of Object.entries(s.metrics)) it.metrics[k] = m(v.value, 'rule', v.rule);
  it.notes.push(...s.notes);
}

/** The reviewers' verdict replaces the machine's on the primary metric. */
function applyAdjudication(it: Item, a: Adjudication): void {
  // A correct/incorrect verdict replaces 0/1 metrics only; rubric points and similarity keep their value.
  if (!it.primary || a.correct === null || isContinuousMetric(it.primary)) return;
  // Keep what the machine said, so agreement between machine and clinicians can still be measured.
  const before = it.metrics[it.primary];
  const primary = it.primary;
  if (before && (before.value === 0 || before.value === 1) && !it.verdicts.some((x) => x.for === primary && x.source !== 'reviewer')) {
    it.verdicts.push({ hypothesis: it.answerText, for: primary, equivalent: before.value === 1, source: before.source === 'judge' ? 'judge' : 'rule', decidedBy: before.sourceId });
  }
  const v = m(bit(a.correct), 'reviewer', a.reviewerId);
  it.metrics[it.primary] = v;
  if (it.primary === 'pass@1' && a.correct) it.metrics['pass@5'] = v;
  it.verdicts.push({ hypothesis: it.answerText, for: it.primary, equivalent: a.correct, source: 'reviewer', decidedBy: a.reviewerId, rationale: a.note });
}

async function proposeTaxonomy(it: Item, ctx: ItemContext): Promise<TaxonomyProposal | null> {
  const primary = it.primary ? it.metrics[it.primary] : undefined;
  if (!ctx.judge || !ctx.proposeTaxonomy || !primary || primary.value === null || primary.value >= 0.5 || !it.referenceText) return null;
  const reply = await ctx.judge.taxonomy({
    ...(ctx.question?.text ? { question: ctx.question.text } : {}),
    candidate: it.answerText || '(empty answer)',
    reference: it.referenceText,
  });
  return {
    classes: reply.parsed.classes, rationale: reply.parsed.rationale, sourceId: ctx.judge.id, taxonomyVersion: TAXONOMY_VERSION,
    raw: reply.raw, ...reusable(reply), ...(reply.parsed.error ? { error: reply.parsed.error } : {}),
  };
}

/** Scores one stored answer. */
export async function scoreItem(ctx: ItemContext): Promise<ItemScore> {
  const r = ctx.response;
  const it = new Item();
  const failed = !!r.error;
  if (failed) it.notes.push(`The call failed (${r.error}); left out of every metric.`);
  else {
    const parseError = r.parseError ?? null;
    const parsed = parseError === null ? r.parsed : null;
    switch (ctx.protocolId) {
      case 'neurovlm-structured':
        scoreNeuroVlm(it, ctx, parsed, parseError);
        break;
      case 'nmb-differential':
      case 'structured-review':
        await scoreDifferential(it, ctx, parsed);
        break;
      case 'nmb-multi-round':
        await scoreMultiRound(it, ctx);
        break;
      case 'nmb-lesion':
        scoreLesion(it, ctx, parsed);
        break;
      case 'mcq':
        scoreMcq(it, ctx, parsed, parseError);
        break;
      case 'rubric':
        await scoreRubric(it, ctx, parsed);
        break;
      case 'nmb-rationale':
      case 'open-question':
        await scoreFreeText(it, ctx, parsed);
        break;
      case 'short-answer':
        applyAnswerType(it, scoreShortAnswer(ctx.question, freeText(parsed, ctx.response.rawText)));
        break;
      case 'numeric':
        applyAnswerType(it, scoreNumericAnswer(ctx.question, ctx.response.rawText));
        break;
      case 'box':
        applyAnswerType(it, scoreBoxAnswer(ctx.kase, ctx.question, stripThink(ctx.response.rawText)));
        break;
      default:
        it.notes.push(`Protocol "${ctx.protocolId}" has no scorer.`);
    }
    if (parseError !== null && ctx.protocolId !== 'mcq' && ctx.protocolId !== 'neurovlm-structured') it.notes.push(`The answer could not be parsed: ${parseError}`);
    if (ctx.adjudication) applyAdjudication(it, ctx.adjudication);
  }
  const taxonomy = failed ? null : await proposeTaxonomy(it, ctx);
  return {
    responseId: r.id,
    itemKey: r.itemKey,
    caseId: ctx.caseId,
    questionId: ctx.questionId,
    modelId: r.modelId,
    variant: r.variant,
    sample: r.sample,
    protocolId: ctx.protocolId,
    primary: failed ? null : it.primary,
    metrics: it.metrics,
    confidence: it.confidence,
    verdicts: it.verdicts,
    taxonomy,
    notes: it.notes,
  };
}
