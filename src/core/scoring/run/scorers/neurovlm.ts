/** NeuroVLM-Bench's structured answer: each labelled field right or wrong after the benchmark's normalisation, and whether the answer was valid JSON. */
import { stripThink } from '../../../protocols/text.ts';
import { ABSTAIN, NEUROVLM_SCORED_FIELDS, normaliseField } from '../../neurovlm/normalise.ts';
import { bit, defineScorer, isObj, m } from './item.ts';

export const neuroVlmScorer = defineScorer<Readonly<Record<string, unknown>> | null>({
  protocols: ['neurovlm-structured'],
  countsParseErrors: true,
  read: (parsed) => (isObj(parsed) ? parsed : null),
  score(it, ctx, answer) {
    const labels = ctx.question?.reference?.labels ?? {};
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
  },
});
