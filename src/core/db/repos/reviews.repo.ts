/** Human reviews of responses, with an append-only audit trail of changes. */
import { guardFor, notFound } from '../storage-errors.ts';
import type { ReviewRecord, ReviewState } from '../../model/review.ts';
import type { RepoContext } from './context.ts';

/** Fields a reviewer may change; the reviewer making the change is required. */
export type ReviewChange = Partial<Pick<ReviewState, 'verdict' | 'errorClasses' | 'rationaleRating' | 'reason'>> &
  Pick<ReviewState, 'reviewerId'>;

export interface ReviewsRepo {
  get(id: string): Promise<ReviewRecord | undefined>;
  /** All rows in the table, across runs. */
  count(): Promise<number>;
  /** Like {@link get}, but throws NOT_FOUND when missing. */
  require(id: string): Promise<ReviewRecord>;
  listByResponse(responseId: string): Promise<ReviewRecord[]>;
  listByRun(runId: string): Promise<ReviewRecord[]>;
  listByReviewer(reviewerId: string): Promise<ReviewRecord[]>;
  put(record: ReviewRecord): Promise<void>;
  /**
   * Changes a review, first appending its current state to `previous`, so the
   * audit trail keeps every earlier verdict. Returns the updated review.
   * Throws NOT_FOUND if it does not exist.
   */
  amend(id: string, change: ReviewChange): Promise<ReviewRecord>;
  /**
   * One reviewer's verdict on one answer: creates the review, or amends it
   * (keeping the earlier state in its audit trail) when it exists. Id:
   * {@link reviewIdOf}.
   */
  record(input: Omit<ReviewState, 'createdAt'> & { responseId: string; runId: string }): Promise<ReviewRecord>;
  delete(id: string): Promise<void>;
}

/** The reviewable state of a review, as kept in its audit trail. */
function stateOf(r: ReviewRecord): ReviewState {
  const { verdict, errorClasses, rationaleRating, rubricMet, reason, reviewerId, createdAt } = r;
  return { verdict, errorClasses, rationaleRating, ...(rubricMet ? { rubricMet } : {}), reason, reviewerId, createdAt };
}

/** A reviewer's review of an answer has a fixed id, so each reviewer has one review (with history) per answer. */
function reviewIdOf(responseId: string, reviewerId: string): string {
  return `${responseId}::${reviewerId}`;
}

/** Builds the reviews repository. */
export function createReviewsRepo({ db, now }: RepoContext): ReviewsRepo {
  const guard = guardFor(db);
  const t = db.reviews;
  const get = (id: string) => guard('read the review', () => t.get(id));
  return {
    get,
    async require(id) {
      const found = await get(id);
      if (!found) throw notFound('review', id);
      return found;
    },
    count: () => guard('count reviews', () => t.count()),
    listByResponse: (responseId) => guard('list reviews', () => t.where('responseId').equals(responseId).toArray()),
    listByRun: (runId) => guard('list reviews', () => t.where('runId').equals(runId).toArray()),
    listByReviewer: (reviewerId) => guard('list reviews', () => t.where('reviewerId').equals(reviewerId).toArray()),
    put: (record) => guard('save the review', async () => void (await t.put(record))),
    amend: (id, change) =>
      guard('update the review', () =>
        db.transaction('rw', t, async () => {
          const current = await t.get(id);
          if (!current) throw notFound('review', id);
          const next: ReviewRecord = {
            ...current,
            ...change,
            createdAt: now(),
            previous: [...current.previous, stateOf(current)],
          };
          await t.put(next);
          return next;
        }),
      ),
    record: (input) =>
      guard('save the review', () =>
        db.transaction('rw', t, async () => {
          const id = reviewIdOf(input.responseId, input.reviewerId);
          const current = await t.get(id);
          const state: ReviewState = {
            verdict: input.verdict, errorClasses: [...input.errorClasses], rationaleRating: input.rationaleRating,
            ...(input.rubricMet ? { rubricMet: { ...input.rubricMet } } : {}), reason: input.reason, reviewerId: input.reviewerId, createdAt: now(),
          };
          if (!current) {
            const created: ReviewRecord = { ...state, id, responseId: input.responseId, runId: input.runId, previous: [] };
            await t.put(created);
            return created;
          }
          const { rubricMet: _dropped, ...rest } = current;
          const next: ReviewRecord = { ...rest, ...state, previous: [...current.previous, stateOf(current)] };
          await t.put(next);
          return next;
        }),
      ),
    delete: (id) => guard('delete the review', () => t.delete(id)),
  };
}
