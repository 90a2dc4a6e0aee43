/** Scores of responses, from rules, judge models or human reviewers. */
import { guard } from '../storage-errors.ts';
import type { ScoreRecord } from '../types.ts';
import type { RepoContext } from './context.ts';

export interface ScoresRepo {
  get(id: string): Promise<ScoreRecord | undefined>;
  /** All rows in the table, across runs. */
  count(): Promise<number>;
  listByRun(runId: string): Promise<ScoreRecord[]>;
  listByResponse(responseId: string): Promise<ScoreRecord[]>;
  listByRunAndMetric(runId: string, metric: string): Promise<ScoreRecord[]>;
  countByRun(runId: string): Promise<number>;
  put(record: ScoreRecord): Promise<void>;
  /** Stores all scores in one transaction: all or nothing. */
  bulkPut(records: readonly ScoreRecord[]): Promise<void>;
  delete(id: string): Promise<void>;
  /** Deletes a run's scores (e.g. before rescoring); returns how many. */
  deleteByRun(runId: string): Promise<number>;
}

/** Builds the scores repository. */
export function createScoresRepo({ db }: RepoContext): ScoresRepo {
  const t = db.scores;
  return {
    count: () => guard('count scores', () => t.count()),
    get: (id) => guard('read the score', () => t.get(id)),
    listByRun: (runId) => guard('list scores', () => t.where('runId').equals(runId).toArray()),
    listByResponse: (responseId) => guard('list scores', () => t.where('responseId').equals(responseId).toArray()),
    listByRunAndMetric: (runId, metric) =>
      guard('list scores', () => t.where('[runId+metric]').equals([runId, metric]).toArray()),
    countByRun: (runId) => guard('count scores', () => t.where('runId').equals(runId).count()),
    put: (record) => guard('save the score', async () => void (await t.put(record))),
    bulkPut: (records) =>
      guard('save scores', async () => {
        if (records.length === 0) return;
        await db.transaction('rw', t, () => t.bulkPut([...records]));
      }),
    delete: (id) => guard('delete the score', () => t.delete(id)),
    deleteByRun: (runId) => guard('delete scores', () => t.where('runId').equals(runId).delete()),
  };
}
