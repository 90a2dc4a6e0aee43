/**
 * Neural-MedBench's ranked differential (also the structured review, which
 * carries one) and its multi-round dialogue: pass@1 and pass@5 by the
 * equivalence chain, and BERTScore of the reply against the reference
 * rationale.
 */
import type { Question, ReferenceAnswer } from '../../../bundle/types.ts';
import type { DifferentialAnswer } from '../../../protocols/nmb/hypotheses.ts';
import type { StructuredReview } from '../../../protocols/nmb/review.ts';
import { stripThink } from '../../../protocols/text.ts';
import type { TurnRecord } from '../../../model/answer.ts';
import type { BertScore } from '../../metrics/bertscore.ts';
import { bit, defineScorer, isObj, m, rankedPass, setBert, similarityOf, type ItemContext } from './item.ts';

/** A differential as the scorer reads it: hypothesis names by rank, the top confidence, the reply's text, and the structured review where there is one. */
interface DifferentialReading {
  readonly names: readonly string[];
  readonly confidence: number | null;
  readonly text: string;
  readonly review: StructuredReview | null;
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

function readDifferential(parsed: unknown, raw: string): DifferentialReading {
  return { names: hypothesisNames(parsed), confidence: topConfidence(parsed), text: differentialText(parsed, raw), review: isObj(parsed) ? (parsed as unknown as StructuredReview) : null };
}

export const differentialScorer = defineScorer<DifferentialReading>({
  protocols: ['nmb-differential', 'structured-review'],
  read: (parsed, ctx) => readDifferential(parsed, ctx.response.rawText),
  async score(it, ctx, answer) {
    const ref = ctx.question?.reference;
    it.primary = 'pass@1';
    const names = answer.names;
    it.answerText = names.map((n, i) => `${i + 1}. ${n}`).join('; ');
    it.confidence = answer.confidence;
    // BERTScore where the reference has a rationale, even when it names no diagnosis.
    const bert = ref ? await similarityOf(ctx, answer.text, ref) : null;
    if (bert) setBert(it, '', bert, ctx.similarity!.id);
    if (!ref?.diagnosis) {
      it.notes.push('No reference diagnosis: pass@k is not scorable.');
      return;
    }
    it.referenceText = ref.diagnosis;
    await rankedPass(it, ctx, names, ref);
    const review = answer.review;
    if (ctx.protocolId === 'structured-review' && review) {
      const seq = ctx.kase?.sequences?.[0] ?? ctx.kase?.images.find((i) => i.sequence)?.sequence;
      if (seq && review.sequenceRecognition) it.metrics['review.sequence'] = m(bit(review.sequenceRecognition.toLowerCase().includes(seq.toLowerCase())), 'rule', 'rule:sequence');
    }
  },
  references: (question) => (question?.reference?.rationale ? [question.reference.rationale] : []),
});

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
export const multiRoundScorer = defineScorer<readonly TurnRecord[]>({
  protocols: ['nmb-multi-round'],
  read: (_parsed, ctx) => dialogueTurns(ctx.response),
  async score(it, ctx, turns) {
    it.primary = 'pass@1';
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
  },
  references(question, response) {
    const answered = Math.max(1, response.turns?.length ?? 0);
    return turnReferences(question).slice(0, answered).flatMap((r) => (r?.rationale ? [r.rationale] : []));
  },
});
