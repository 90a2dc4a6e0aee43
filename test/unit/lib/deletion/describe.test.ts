/** The words a deletion's confirmation and notice use for its counts. */
import { describe, expect, it } from 'vitest';
import type { DeletionCounts } from '../../../../src/core/db/index.ts';
import { deletionLines, deletionNotes, deletionSummary } from '../../../../src/lib/deletion/describe.ts';

const none: DeletionCounts = { benchmarks: 0, cases: 0, images: 0, imageBytes: 0, sharedImages: 0, runs: 0, answers: 0, scores: 0, scoreSets: 0, reviews: 0, outdatedScoreSets: 0, other: {} };

describe('deletion counts in words', () => {
  it('lists only the kinds that go, with image bytes in binary units', () => {
    const c = { ...none, benchmarks: 1, cases: 1200, images: 3, imageBytes: 3 * 1024 * 1024, runs: 1, answers: 1, reviews: 2, other: { resultDigests: 2, notes: 1, empty: 0 } };
    expect(deletionLines(c)).toEqual(['1 benchmark', '1,200 cases', '3 images and bundle files (3 MiB)', '1 run', '1 answer', '2 clinician reviews', '2 stored results summaries', '1 stored notes row']);
    expect(deletionSummary('benchmark', 'Demo', c)).toBe('Deleted benchmark "Demo": 1 benchmark, 1,200 cases, 3 images and bundle files (3 MiB), 1 run, 1 answer, 2 clinician reviews, 2 stored results summaries, 1 stored notes row.');
  });

  it('says what is kept or must be redone', () => {
    expect(deletionNotes({ ...none, sharedImages: 1, outdatedScoreSets: 2 })).toEqual([
      '1 image also used by another benchmark is kept.',
      '2 score versions that counted it will be marked outdated: re-score the run.',
    ]);
    expect(deletionNotes(none)).toEqual([]);
  });
});
