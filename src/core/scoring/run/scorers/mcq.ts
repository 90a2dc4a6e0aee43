/** Multiple choice: the option the answer chose (mcq/extract.ts) against the key; an answer with no option is invalid. */
import type { McqAnswer } from '../../../protocols/mcq/extract.ts';
import { bit, defineScorer, isObj, m } from './item.ts';

export const mcqScorer = defineScorer<McqAnswer | null>({
  protocols: ['mcq'],
  countsParseErrors: true,
  read: (parsed) => (isObj(parsed) && typeof parsed.choice === 'string' ? (parsed as unknown as McqAnswer) : null),
  score(it, ctx, answer) {
    const gold = ctx.question?.reference?.answer;
    it.primary = 'mcq.correct';
    const choice = answer?.choice ?? null;
    it.answerText = choice ?? '(no option found)';
    if (!gold) {
      it.notes.push('No answer key: not scorable.');
      return;
    }
    const option = ctx.question?.options?.find((o) => o.key === gold);
    it.referenceText = option ? `${gold}. ${option.text}` : gold;
    it.metrics['mcq.correct'] = m(bit(choice !== null && choice.toUpperCase() === gold.toUpperCase()), 'rule', choice === null ? 'rule:invalid' : `rule:${answer!.rule}`);
    it.metrics['mcq.invalid'] = m(bit(choice === null), 'rule', 'rule:invalid');
  },
});
