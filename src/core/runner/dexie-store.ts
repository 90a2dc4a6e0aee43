/**
 * The runner's store on the NeuroEval database repositories: responses are
 * written one by one with `put` (an upsert on the id derived from run and
 * item), the run's status through `runs.updateStatus`, and what the runner
 * learns about engines into the run's provenance.
 */
import type { Repositories } from '../db/index.ts';
import { applyProvenancePatch } from './provenance.ts';
import type { RunStore } from './types.ts';

export function dexieRunStore(repos: Pick<Repositories, 'runs' | 'responses'>): RunStore {
  return {
    completedItemKeys: (runId) => repos.responses.itemKeysByRun(runId),
    findCached: (cacheKey) => repos.responses.getByCacheKey(cacheKey),
    saveResponse: (row) => repos.responses.put(row),
    // Progress is not stored: it is counted from the responses when needed.
    updateRun: async (runId, update) => void (await repos.runs.updateStatus(runId, update.status, { error: update.error })),
    async recordProvenance(runId, patch) {
      // Only this run's runner writes it while it holds the run lock, so read-modify-write is safe.
      const run = await repos.runs.require(runId);
      await repos.runs.put({ ...run, provenance: applyProvenancePatch(run.provenance, patch) });
    },
  };
}
