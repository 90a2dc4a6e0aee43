/**
 * The review queue: which answers a clinician grades, in which order, and
 * under which blind labels. Pure, so the order and labels are the same on
 * every visit and testable.
 */
import type { ReviewRecord } from '../../core/model/review.ts';
import type { ScoreRecord } from '../../core/scoring/run/records.ts';
import { machineVerdict } from '../../core/results/agreement.ts';
import { sha256Hex } from '../../core/hash/sha256.ts';

export type QueueFilter = 'unreviewed' | 'all' | 'machine-wrong' | 'judge' | 'reviewed';

export const QUEUE_FILTERS: readonly { readonly id: QueueFilter; readonly label: string }[] = [
  { id: 'unreviewed', label: 'Not yet reviewed by me' },
  { id: 'all', label: 'All answers' },
  { id: 'machine-wrong', label: 'Machine says wrong' },
  { id: 'judge', label: 'Decided (or left undecided) by the local judge' },
  { id: 'reviewed', label: 'Reviewed by me' },
];

/**
 * "Model A", "Model B"… per run: the order comes from a hash of run id and
 * model id, so it does not follow the model names (or the order they ran in).
 */
export function blindLabels(runId: string, modelIds: readonly string[]): Map<string, string> {
  const sorted = [...new Set(modelIds)].sort((a, b) => sha256Hex(`${runId}|${a}`).localeCompare(sha256Hex(`${runId}|${b}`)));
  return new Map(sorted.map((m, i) => [m, `Model ${i < 26 ? String.fromCharCode(65 + i) : i + 1}`]));
}

function judged(it: ScoreRecord): boolean {
  const m = it.primary ? it.metrics[it.primary] : undefined;
  return m?.source === 'judge' || it.verdicts.some((v) => v.source === 'judge' && v.for === it.primary);
}

/** Scorable answers in case order (then question, variant, sample, blind label), filtered for this reviewer. */
export function reviewQueue(items: readonly ScoreRecord[], reviews: readonly ReviewRecord[], reviewerId: string, filter: QueueFilter, labels: ReadonlyMap<string, string>): ScoreRecord[] {
  const mine = new Set(reviews.filter((r) => r.reviewerId === reviewerId).map((r) => r.responseId));
  const collator = new Intl.Collator('en', { numeric: true });
  return items
    .filter((it) => it.primary !== null)
    .filter((it) => {
      switch (filter) {
        case 'unreviewed': return !mine.has(it.responseId);
        case 'reviewed': return mine.has(it.responseId);
        case 'machine-wrong': return machineVerdict(it)?.correct === false;
        case 'judge': return judged(it);
        default: return true;
      }
    })
    .sort((a, b) =>
      collator.compare(a.caseId, b.caseId) || collator.compare(a.questionId, b.questionId) || collator.compare(a.variant, b.variant) ||
      a.sample - b.sample || collator.compare(labels.get(a.modelId) ?? a.modelId, labels.get(b.modelId) ?? b.modelId));
}
