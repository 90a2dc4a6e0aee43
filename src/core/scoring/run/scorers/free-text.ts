/** Free-text answers (Neural-MedBench's rationale, open questions): ROUGE, token F1 and BERTScore against the reference text; an open question with a diagnosis is also judged right or wrong. */
import { rougeScore } from '../../metrics/rouge.ts';
import { squadScore } from '../../metrics/squad.ts';
import { defineScorer, equivalent, freeText, m } from './item.ts';

export const freeTextScorer = defineScorer<string>({
  protocols: ['nmb-rationale', 'open-question'],
  read: (parsed, ctx) => freeText(parsed, ctx.response.rawText),
  async score(it, ctx, text) {
    const ref = ctx.question?.reference;
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
  },
  references(question) {
    const t = question?.reference?.rationale ?? question?.reference?.diagnosis;
    return t ? [t] : [];
  },
});
