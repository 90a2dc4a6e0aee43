/** Neural-MedBench's lesion answer: type, location, laterality and sequence each against the reference, and all of them together. */
import type { LesionAnswer } from '../../../protocols/nmb/lesion.ts';
import { lesionMatch, LESION_FIELDS } from '../../metrics/lesion.ts';
import { bit, defineScorer, isObj, m } from './item.ts';

export const lesionScorer = defineScorer<Partial<LesionAnswer>>({
  protocols: ['nmb-lesion'],
  read: (parsed) => (isObj(parsed) ? parsed : {}) as Partial<LesionAnswer>,
  score(it, ctx, a) {
    const ref = ctx.question?.reference?.lesion;
    it.primary = 'lesion.all';
    it.answerText = [a.type, a.location, a.laterality, a.sequence].filter(Boolean).join(', ');
    if (!ref) {
      it.notes.push('No reference lesion: not scorable.');
      return;
    }
    it.referenceText = [ref.type, ref.location, ref.laterality, ref.sequence].filter(Boolean).join(', ');
    const match = lesionMatch(a, ref);
    for (const f of [...LESION_FIELDS, 'all'] as const) if (match[f] !== null) it.metrics[`lesion.${f}`] = m(bit(match[f]), 'rule', `rule:lesion-${f}`);
  },
});
