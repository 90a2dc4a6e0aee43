/**
 * One answer of an answer-type protocol (short answer, number, box) → its
 * figures, all decided by rules: the benchmark's own where one publishes
 * code (lmms-eval's SLAKE exact match, LLaVA-Med's recall, MedCalc-Bench's
 * checks), IoU for boxes. run/score-item.ts records them with their source.
 */
import type { BenchCase, NumericTolerance, Question } from '../../bundle/types.ts';
import { answerFrame, iou, parseBoxes, toFraction, type Box, type BoxFrame } from './boxes.ts';
import { numericFigure, numericReadings, type NumericReference, type NumericVerdict } from './numeric.ts';
import { answerTypeOf, llavaMedRecall, slakeExactMatch } from './short-answer.ts';

export interface AnswerTypeScore {
  readonly primary: string | null;
  /** Metric key → value (null: not scorable) and the rule that decided it. */
  readonly metrics: Readonly<Record<string, { readonly value: number | null; readonly rule: string }>>;
  readonly answerText: string;
  readonly referenceText: string;
  readonly notes: readonly string[];
}

const bit = (b: boolean): number => (b ? 1 : 0);
const none = (primary: string, answerText: string, note: string): AnswerTypeScore => ({ primary, metrics: {}, answerText, referenceText: '', notes: [note] });

/**
 * A short answer: lmms-eval's normalised exact match overall and for the
 * question's answer type (open or closed, as the data says; else closed
 * when the reference is yes or no), and for open questions LLaVA-Med's
 * token recall.
 */
export function scoreShortAnswer(q: Question | undefined, answer: string): AnswerTypeScore {
  const ref = q?.reference?.short;
  if (!ref || ref.text.trim() === '') return none('short.exact', answer, 'No reference short answer: not scorable.');
  const type = answerTypeOf(ref.type, ref.text);
  const exact = bit(slakeExactMatch(answer, ref.text));
  const metrics: Record<string, { value: number; rule: string }> = {
    'short.exact': { value: exact, rule: 'rule:lmms-eval-exact' },
    [`short.exact.${type}`]: { value: exact, rule: 'rule:lmms-eval-exact' },
  };
  if (type === 'open') metrics['short.recall.open'] = { value: llavaMedRecall(answer, ref.text), rule: 'rule:llava-med-recall' };
  return { primary: 'short.exact', metrics, answerText: answer, referenceText: `${ref.text} (${type})`, notes: [] };
}

/**
 * A number, date or duration by MedCalc-Bench's rules; `numeric.found` says
 * whether an answer could be read at all. The figure carries MedCalc-Bench's
 * name only where the reference names one of its calculators
 * ({@link numericFigure}). A benchmark's declared tolerance gives a decimal
 * reference without limits (and without a calculator) its limits: the
 * reference ± the larger of the two tolerances.
 */
export function scoreNumericAnswer(q: Question | undefined, reply: string, tolerance?: NumericTolerance): AnswerTypeScore {
  const given = q?.reference?.numeric;
  const key = numericFigure(given);
  if (!given || given.value.trim() === '') return none(key, reply, 'No reference number: not scorable.');
  const ref = withTolerance(given, tolerance);
  const { benchmark: v, anywhere } = numericReadings(reply, ref);
  const limits = ref.lower !== undefined && ref.upper !== undefined && v.kind === 'decimal' ? ` (limits ${ref.lower} to ${ref.upper})` : '';
  const rule = key === 'numeric.correct' ? 'medcalc' : 'neuroeval-numeric';
  return {
    primary: key,
    metrics: {
      [key]: { value: bit(v.correct), rule: `rule:${rule}-${v.kind}` },
      [`${key}.any`]: { value: bit(anywhere.correct), rule: `rule:${rule}-${v.kind}-anywhere` },
      'numeric.found': { value: bit(v.extracted !== null), rule: 'rule:medcalc-extract' },
    },
    answerText: v.extracted ?? anywhere.extracted ?? '(no answer found)',
    referenceText: `${ref.value}${limits}`,
    notes: numericNotes(v, anywhere),
  };
}

function withTolerance(ref: NumericReference, tolerance: NumericTolerance | undefined): NumericReference {
  const value = Number(ref.value);
  if (!tolerance || ref.calculatorId !== undefined || (ref.kind ?? 'decimal') !== 'decimal' || ref.lower !== undefined || ref.upper !== undefined || !Number.isFinite(value)) return ref;
  const delta = Math.max(tolerance.absolute ?? 0, (tolerance.relative ?? 0) * Math.abs(value));
  return { ...ref, lower: value - delta, upper: value + delta };
}

/** Why a number was not counted, as a reader of the drill-down needs it. */
function numericNotes(v: NumericVerdict, anywhere: NumericVerdict): string[] {
  if (v.extracted !== null) return [];
  const why = v.error ? `MedCalc-Bench's code raises ${v.error} on this answer, which its run counts as wrong` : "MedCalc-Bench's reading found no number, date or duration in the JSON answer";
  return [`${why}.${anywhere.extracted !== null ? ` Read anywhere in the reply: ${anywhere.extracted} (${anywhere.correct ? 'right' : 'wrong'}; NeuroEval's "read anywhere" figure).` : ''}`];
}

/** The size of image `index` of a case, when stored. */
function sizeOf(c: BenchCase | undefined, index: number): { width: number; height: number } | undefined {
  const img = c?.images[index];
  return img?.width && img.height ? { width: img.width, height: img.height } : undefined;
}

/**
 * A box answer: the model's first box against each reference box of the
 * question, both brought to fractions of the image; IoU is the best over the
 * reference boxes, and `box.acc50` is IoU ≥ 0.5. The model's box is read in
 * the frame the question asked for (the reference's); without a stored image
 * size, a pixel box cannot be compared and is not scorable.
 */
export function scoreBoxAnswer(c: BenchCase | undefined, q: Question | undefined, text: string): AnswerTypeScore {
  const refs = q?.reference?.boxes ?? [];
  if (!refs.length) return none('box.acc50', text, 'No reference box: not scorable.');
  const frame: BoxFrame = q?.reference?.boxFrame ?? 'pixels';
  const found = parseBoxes(text);
  const fmt = (b: Box) => `[${b.x1}, ${b.y1}, ${b.x2}, ${b.y2}]`;
  const referenceText = refs.map((b) => `${b.label ? `${b.label}: ` : ''}${fmt(b)}`).join('; ');
  const answer = found[0];
  if (!answer) {
    return { primary: 'box.acc50', metrics: { 'box.acc50': { value: 0, rule: 'rule:box-none' }, 'box.iou': { value: 0, rule: 'rule:box-none' } }, answerText: text, referenceText, notes: ['No box [x1, y1, x2, y2] found in the answer (counted wrong).'] };
  }
  let best: number | null = null;
  for (const r of refs) {
    const size = sizeOf(c, r.image ?? 0);
    const read = answerFrame(answer, frame);
    if ((frame === 'pixels' || read === 'pixels') && !size) continue;
    const a = toFraction(answer, read, size?.width ?? 1, size?.height ?? 1);
    const b = toFraction(r, frame, size?.width ?? 1, size?.height ?? 1);
    const v = iou(a, b);
    if (best === null || v > best) best = v;
  }
  if (best === null) return { primary: 'box.acc50', metrics: {}, answerText: fmt(answer), referenceText, notes: ['The image size is not stored, so a box in pixels cannot be compared: not scorable.'] };
  return {
    primary: 'box.acc50',
    metrics: { 'box.acc50': { value: bit(best >= 0.5), rule: 'rule:iou' }, 'box.iou': { value: best, rule: 'rule:iou' } },
    answerText: fmt(answer),
    referenceText,
    notes: [],
  };
}
