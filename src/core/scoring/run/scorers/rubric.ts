/** Rubric answers (HealthBench's layout): each rubric item marked met by a reviewer or a judge; the points met, overall and per tag. */
import { rubricScore } from '../../metrics/rubric.ts';
import { RUBRIC_ITEM_VERSION } from '../judge-service.ts';
import { defineScorer, freeText, m, reusable } from './item.ts';

export const rubricScorer = defineScorer<string>({
  protocols: ['rubric'],
  read: (parsed, ctx) => freeText(parsed, ctx.response.rawText),
  async score(it, ctx, text) {
    const q = ctx.question;
    const items = q?.reference?.rubric ?? [];
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
  },
});
