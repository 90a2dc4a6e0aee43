/** Short, numeric and box answers: rule-decided figures of scoring/answers (lmms-eval's exact match, MedCalc-Bench's tolerances, IoU). */
import { stripThink } from '../../../protocols/text.ts';
import { scoreBoxAnswer, scoreNumericAnswer, scoreShortAnswer, type AnswerTypeScore } from '../../answers/score.ts';
import { defineScorer, freeText, m, type Item } from './item.ts';

/** An answer type's rule-decided figures (scoring/answers/score.ts) into the item. */
function applyAnswerType(it: Item, s: AnswerTypeScore): void {
  it.primary = s.primary;
  it.answerText = s.answerText.slice(0, 1500);
  it.referenceText = s.referenceText.slice(0, 1500);
  for (const [k, v] of Object.entries(s.metrics)) it.metrics[k] = m(v.value, 'rule', v.rule);
  it.notes.push(...s.notes);
}

export const shortAnswerScorer = defineScorer<string>({
  protocols: ['short-answer'],
  read: (parsed, ctx) => freeText(parsed, ctx.response.rawText),
  score: (it, ctx, text) => applyAnswerType(it, scoreShortAnswer(ctx.question, text)),
});

export const numericScorer = defineScorer<string>({
  protocols: ['numeric'],
  read: (_parsed, ctx) => ctx.response.rawText,
  score: (it, ctx, text) => applyAnswerType(it, scoreNumericAnswer(ctx.question, text, ctx.task?.scorer?.tolerance)),
});

export const boxScorer = defineScorer<string>({
  protocols: ['box'],
  read: (_parsed, ctx) => stripThink(ctx.response.rawText),
  score: (it, ctx, text) => applyAnswerType(it, scoreBoxAnswer(ctx.kase, ctx.question, text)),
});
