/**
 * Scores: versioned score sets per run, each with one row per answer.
 * Saving a set writes the set and all its rows in one transaction, so a
 * failed or cancelled re-score leaves the previous version as it was.
 */
import { guard } from '../storage-errors.ts';
import { approxBytes } from '../write-meter.ts';
import type { ScoreRecord, ScoreSetRecord } from '../types.ts';
import type { ItemScore } from '../../scoring/run/types.ts';
import type { RepoContext } from './context.ts';

type ScoreSetDraft = Omit<ScoreSetRecord, 'id' | 'runId' | 'version' | 'createdAt'>;

export interface ScoresRepo {
  /** Answer-score rows in the table, across runs and versions. */
  count(): Promise<number>;
  /** A run's score sets, newest version first. */
  listSets(runId: string): Promise<ScoreSetRecord[]>;
  /** The run's current scores: its newest set. */
  latestSet(runId: string): Promise<ScoreSetRecord | undefined>;
  /** Every answer's scores in one set. */
  listBySet(scoreSetId: string): Promise<ScoreRecord[]>;
  /** One case's answers in one set (drill-down). */
  listBySetAndCase(scoreSetId: string, caseId: string): Promise<ScoreRecord[]>;
  /** Stores a new version (previous max + 1) with its rows, all or nothing. */
  saveVersion(runId: string, draft: ScoreSetDraft, items: readonly ItemScore[]): Promise<ScoreSetRecord>;
}

export function createScoresRepo({ db, meter, now }: RepoContext): ScoresRepo {
  const t = db.scores;
  const sets = db.scoreSets;
  const listSets = (runId: string) => sets.where('[runId+version]').between([runId, -Infinity], [runId, Infinity]).reverse().toArray();
  return {
    count: () => guard('count scores', () => t.count()),
    listSets: (runId) => guard('list score versions', () => listSets(runId)),
    latestSet: (runId) => guard('read the scores', async () => (await listSets(runId))[0]),
    listBySet: (scoreSetId) => guard('list scores', () => t.where('scoreSetId').equals(scoreSetId).toArray()),
    listBySetAndCase: (scoreSetId, caseId) => guard('list scores', () => t.where('[scoreSetId+caseId]').equals([scoreSetId, caseId]).toArray()),
    saveVersion: (runId, draft, items) =>
      guard('save scores', () =>
        db.transaction('rw', [t, sets], async () => {
          const previous = await sets.where('[runId+version]').between([runId, -Infinity], [runId, Infinity]).last();
          const version = (previous?.version ?? 0) + 1;
          const set: ScoreSetRecord = { ...draft, id: `${runId}/v${version}`, runId, version, createdAt: now() };
          await sets.add(set);
          const rows = items.map((it): ScoreRecord => ({ ...it, id: `${set.id}|${it.responseId}`, scoreSetId: set.id, runId }));
          meter.record(approxBytes(rows));
          await t.bulkAdd(rows);
          return set;
        }),
      ),
  };
}
