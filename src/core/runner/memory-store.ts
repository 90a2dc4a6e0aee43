/** A run store in memory: for tests and command-line runs that keep nothing. */
import type { RunStatus, ResponseRecord } from '../model/answer.ts';
import { applyProvenancePatch } from './provenance.ts';
import type { RunStore, RunUpdate } from './types.ts';

export interface MemoryRunStore extends RunStore {
  /** Every stored response by id. */
  readonly responses: Map<string, ResponseRecord>;
  /** Status updates in order, per run. */
  readonly updates: Map<string, RunUpdate[]>;
  readonly provenance: Map<string, unknown>;
  /** The latest status of a run. */
  status(runId: string): RunStatus | undefined;
}

export function memoryRunStore(): MemoryRunStore {
  const responses = new Map<string, ResponseRecord>();
  const updates = new Map<string, RunUpdate[]>();
  const provenance = new Map<string, unknown>();
  return {
    responses,
    updates,
    provenance,
    status: (runId) => updates.get(runId)?.at(-1)?.status,
    async completedItemKeys(runId) {
      return new Set([...responses.values()].filter((r) => r.runId === runId).map((r) => r.itemKey));
    },
    async findCached(cacheKey) {
      let newest: ResponseRecord | undefined;
      for (const r of responses.values()) if (r.cacheKey === cacheKey && (!newest || r.createdAt >= newest.createdAt)) newest = r;
      return newest;
    },
    async saveResponse(row) {
      responses.set(row.id, structuredClone(row));
    },
    async updateRun(runId, update) {
      updates.set(runId, [...(updates.get(runId) ?? []), update]);
    },
    async recordProvenance(runId, patch) {
      provenance.set(runId, applyProvenancePatch(provenance.get(runId), patch));
    },
  };
}
