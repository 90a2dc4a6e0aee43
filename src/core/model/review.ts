/**
 * A clinician's review of one answer, with its audit trail. Stored by the
 * database, written by the review pages, read by scoring (verdicts and rubric
 * marks replace a judge's) and by agreement statistics.
 */
import type { Timestamp } from './answer.ts';

/** The reviewable fields of a review, as kept in its audit trail. */
export interface ReviewState {
  verdict: string;
  errorClasses: string[];
  /** Quality of the model's stated reasoning, e.g. 1–5; `null` when not rated. */
  rationaleRating: number | null;
  /**
   * Rubric-protocol answers: the reviewer's met / not-met mark per rubric item
   * id; they replace the judge's marks when the run is re-scored. Absent on
   * other answers (and on reviews written before this field existed).
   */
  rubricMet?: Readonly<Record<string, boolean>> | null;
  reason: string;
  reviewerId: string;
  createdAt: Timestamp;
}

export interface ReviewRecord extends ReviewState {
  id: string;
  responseId: string;
  runId: string;
  /** Earlier states of this review, oldest first; never rewritten, only appended to. */
  previous: ReviewState[];
}
