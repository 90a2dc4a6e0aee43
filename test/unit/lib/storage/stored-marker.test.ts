/**
 * The record of what was stored, compared with the database at start-up:
 * only a drop is reported, by how much.
 */
import { describe, expect, it } from 'vitest';
import { missingData } from '../../../../src/lib/storage/stored-marker.svelte.ts';

describe('stored-data record', () => {
  it('reports what the database no longer holds', () => {
    expect(missingData({ benchmarks: 2, runs: 3, answers: 480 }, { benchmarks: 1, runs: 0, answers: 0 })).toEqual({ benchmarks: 1, runs: 3, answers: 480 });
  });
  it('says nothing when the database holds as much or more, or there is no record', () => {
    expect(missingData({ benchmarks: 1, runs: 1, answers: 10 }, { benchmarks: 1, runs: 2, answers: 30 })).toBeNull();
    expect(missingData(null, { benchmarks: 0, runs: 0, answers: 0 })).toBeNull();
  });
});
