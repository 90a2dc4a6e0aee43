/**
 * The page's side of deleting stored records: asks the database what a
 * deletion removes, deletes it, and records the new counts so the start-up
 * check for vanished data (stored-marker) knows the drop was the user's.
 */
import type { DeletionKind, DeletionPlan, Repositories } from '../../core/db/index.ts';
import { repos } from '../storage/app-db.ts';
import { storedMarker } from '../storage/stored-marker.svelte.ts';

type Action = 'plan' | 'delete';
const METHODS: Readonly<Record<DeletionKind, Record<Action, (r: Repositories, id: string) => Promise<DeletionPlan>>>> = {
  benchmark: { plan: (r, id) => r.deletions.planBenchmark(id), delete: (r, id) => r.deletions.deleteBenchmark(id) },
  run: { plan: (r, id) => r.deletions.planRun(id), delete: (r, id) => r.deletions.deleteRun(id) },
  answer: { plan: (r, id) => r.deletions.planAnswer(id), delete: (r, id) => r.deletions.deleteAnswer(id) },
  review: { plan: (r, id) => r.deletions.planReview(id), delete: (r, id) => r.deletions.deleteReview(id) },
};

/** What deleting the record would remove; stores nothing. */
export async function planDeletion(kind: DeletionKind, id: string): Promise<DeletionPlan> {
  return METHODS[kind].plan(await repos(), id);
}

/** Deletes the record with everything that belongs to it, all or nothing; returns what went. */
export async function deleteRecord(kind: DeletionKind, id: string): Promise<DeletionPlan> {
  const r = await repos();
  const done = await METHODS[kind].delete(r, id);
  storedMarker.noteDeletion();
  await storedMarker.update(r);
  return done;
}
