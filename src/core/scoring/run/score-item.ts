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
 * | numeric                          | `numeric.correct` (MedCalc-Bench's rules; `numeric.match` without a calculator id), `numeric.found` |
 * | box                              | `box.acc50` (IoU ≥ 0.5), `box.iou`                          |
 *
 * Each protocol's scorer is its own module in scorers/ (one `Scorer` seam,
 * typed by the protocol's answer); this file runs the one of an answer's
 * protocol, then applies what every protocol shares. A clinician's review
 * overrides the primary metric (and `pass@5` when it says correct); the
 * judge is asked only where the rule says no.
 */
import { TAXONOMY_VERSION } from '../equivalence/taxonomy.ts';
import type { Question } from '../../bundle/types.ts';
import { scorerFor } from './scorers/index.ts';
import { bit, Item, m, reusable, type Adjudication, type ItemContext } from './scorers/item.ts';
import { isContinuousMetric } from './summary.ts';
import type { ItemScore, TaxonomyProposal } from './types.ts';

/**
 * The reference texts BERTScore compares an answer with, one per scored
 * pair, for IDF weights (bert_score counts each pair's reference).
 */
export function similarityReferences(protocolId: string, question: Question | undefined, response: { readonly turns?: readonly unknown[] }): string[] {
  return scorerFor(protocolId)?.references(question, response) ?? [];
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
    const scorer = scorerFor(ctx.protocolId);
    if (scorer) await scorer.run(it, ctx, parsed);
    else it.notes.push(`Protocol "${ctx.protocolId}" has no scorer.`);
    if (parseError !== null && !scorer?.countsParseErrors) it.notes.push(`The answer could not be parsed: ${parseError}`);
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
