/**
 * The runner's store on the NeuroEval database repositories: responses are
 * upserted (their id is derived from run and item) by group commit, the
 * run's status goes through `runs.updateStatus`, and what the runner learns
 * about engines into the run's provenance.
 */
import type { Repositories } from '../db/index.ts';
import { applyProvenancePatch } from '../runner/provenance.ts';
import type { ResponseRecord } from '../model/answer.ts';
import type { RunStore } from '../runner/types.ts';

export function dexieRunStore(repos: Pick<Repositories, 'runs' | 'responses'>): RunStore {
  return {
    completedItemKeys: (runId) => repos.responses.itemKeysByRun(runId),
    findCached: (cacheKey) => repos.responses.getByCacheKey(cacheKey),
    saveResponse: groupCommit((rows) => repos.responses.putBatch(rows)),
    // Progress is not stored: it is counted from the responses when needed.
    updateRun: async (runId, update) => void (await repos.runs.updateStatus(runId, update.status, { error: update.error })),
    async recordProvenance(runId, patch) {
      // Only this run's runner writes it while it holds the run lock, so read-modify-write is safe.
      const run = await repos.runs.require(runId);
      await repos.runs.put({ ...run, provenance: applyProvenancePatch(run.provenance, patch) });
    },
  };
}

/**
 * Saves by group commit: answers saved together (several requests in flight,
 * cached answers replayed one after another, a burst of failures) are written
 * in one transaction instead of one transaction each, which is what made
 * the per-answer `put` several times slower than a `bulkPut` of the same
 * rows. Saves made in the same task form one group; saves that arrive while
 * a group is being written form the next. A lone save is written at once, as
 * before. Each save resolves only when its group has committed and fails
 * with it (a group is one transaction: all of it is stored or none), so the
 * runner's rule that an answer is stored before the next request still holds.
 */
export function groupCommit(write: (rows: ResponseRecord[]) => Promise<void>): (row: ResponseRecord) => Promise<void> {
  let queue: { row: ResponseRecord; resolve: () => void; reject: (e: unknown) => void }[] = [];
  let writing = false;
  const flush = async (): Promise<void> => {
    while (queue.length > 0) {
      const group = queue;
      queue = [];
      try {
        await write(group.map((g) => g.row));
        for (const g of group) g.resolve();
      } catch (e) {
        for (const g of group) g.reject(e);
      }
    }
    writing = false;
  };
  return (row) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ row, resolve, reject });
      if (writing) return;
      writing = true;
      // After the current task, so saves made in the same task go in this group.
      queueMicrotask(() => void flush());
    });
}
