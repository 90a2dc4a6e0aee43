/**
 * The failure gallery: per disease group and model arm, the model's worst
 * confident mistakes (wrong on the primary metric, the highest stated
 * confidence first), each with what a reader needs to judge it: the case's
 * first image, the answer (its parsed fields and the raw text, shortened),
 * the reference and the error classes, from reviews when reviewed, else the
 * local judge's proposal (labelled as such).
 */
import type { Question } from '../bundle/types.ts';
import type { JoinedAnswer } from './safety-input.ts';
import { armKeyOf } from './safety.ts';

/** At most this many mistakes per group and arm. */
export const GALLERY_PER_GROUP = 4;
/** The raw answer is cut to this many characters. */
export const RAW_TEXT_CHARS = 400;

export interface FailureCase {
  readonly responseId: string;
  readonly runId: string;
  readonly caseId: string;
  readonly confidence: number | null;
  /** Asset hash of the case's first image; null when the case has none. */
  readonly image: string | null;
  /** The parsed answer's fields, as text; empty when the answer did not parse to an object. */
  readonly fields: readonly (readonly [string, string])[];
  /** The raw answer, shortened to {@link RAW_TEXT_CHARS}. */
  readonly rawText: string;
  readonly truncated: boolean;
  readonly reference: string;
  readonly errorClasses: readonly string[];
  /** Who named the classes: clinicians' reviews, the judge's proposal, or nobody yet. */
  readonly errorSource: 'review' | 'judge' | null;
}

export interface GalleryGroup {
  readonly group: string;
  /** `key`: the leaderboard row's id (`${runId}|${arm}`). */
  readonly arms: readonly { readonly key: string; readonly wrong: number; readonly cases: readonly FailureCase[] }[];
}

const text = (v: unknown): string => (v === null ? 'null' : typeof v === 'string' ? v : JSON.stringify(v) ?? String(v));

/** The reference as a line of text: labels, else the diagnosis, else the option key. */
export function referenceText(q: Question | undefined): string {
  const r = q?.reference;
  if (!r) return '(no reference)';
  if (r.labels) return Object.entries(r.labels).filter(([, v]) => v !== null && v !== '').map(([k, v]) => `${k}: ${v}`).join('; ');
  if (r.diagnosis) return r.diagnosis;
  if (r.answer) return `option ${r.answer}`;
  if (r.lesion) return Object.values(r.lesion).filter(Boolean).join(', ');
  return r.rationale?.slice(0, RAW_TEXT_CHARS) ?? '(no reference)';
}

/** Error classes of an answer: the union of its reviews' when reviewed, else the judge's proposal. */
function errorsOf(a: JoinedAnswer): Pick<FailureCase, 'errorClasses' | 'errorSource'> {
  const reviewed = [...new Set(a.reviews.flatMap((r) => r.errorClasses))];
  if (a.reviews.length) return { errorClasses: reviewed, errorSource: 'review' };
  const proposed = a.row.taxonomy?.classes ?? [];
  return proposed.length ? { errorClasses: proposed, errorSource: 'judge' } : { errorClasses: [], errorSource: null };
}

function failureCase(a: JoinedAnswer): FailureCase {
  const raw = a.response?.rawText ?? '';
  const parsed = a.response?.parsed;
  const fields = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && a.response?.parseError === null
    ? Object.entries(parsed as Record<string, unknown>).map(([k, v]) => [k, text(v)] as const)
    : [];
  return {
    responseId: a.row.responseId, runId: a.row.runId, caseId: a.row.caseId, confidence: a.confidence,
    image: a.kase?.images[0]?.sha256 ?? null, fields,
    rawText: raw.length > RAW_TEXT_CHARS ? `${raw.slice(0, RAW_TEXT_CHARS - 1)}…` : raw, truncated: raw.length > RAW_TEXT_CHARS,
    reference: referenceText(a.question), ...errorsOf(a),
  };
}

/** Most confident first; answers without a confidence last; then by case id, so the order is stable. */
function worstFirst(a: JoinedAnswer, b: JoinedAnswer): number {
  const ca = a.confidence ?? -Infinity;
  const cb = b.confidence ?? -Infinity;
  return cb - ca || (a.row.caseId < b.row.caseId ? -1 : a.row.caseId > b.row.caseId ? 1 : a.row.sample - b.row.sample);
}

/** The gallery: groups in name order, arms in first-seen order, mistakes worst first. */
export function failureGallery(answers: readonly JoinedAnswer[], perGroup = GALLERY_PER_GROUP): GalleryGroup[] {
  const arms = [...new Set(answers.map(armKeyOf))];
  const groups = [...new Set(answers.map((a) => a.group))].sort((a, b) => a.localeCompare(b));
  return groups.map((group) => ({
    group,
    arms: arms.map((key) => {
      const wrong = answers.filter((a) => a.group === group && armKeyOf(a) === key && a.correct !== null && a.correct < 0.5).sort(worstFirst);
      return { key, wrong: wrong.length, cases: wrong.slice(0, perGroup).map(failureCase) };
    }).filter((arm) => arm.wrong > 0),
  })).filter((g) => g.arms.length > 0);
}
