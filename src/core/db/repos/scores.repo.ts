/**
 * Scores: versioned score sets per run, each with one row per answer.
 * Saving a set writes the set, all its rows and its results digest
 * (results/digest.ts) in one transaction, so a failed or cancelled re-score
 * leaves the previous version as it was, and a stored set always has the
 * digest the results page opens with.
 */
import type { BenchCase } from '../../bundle/types.ts';
import { buildDigest, currentFor, digestId, type DetailDigest, type OpenDigest } from '../../results/digest.ts';
import { guardFor } from '../storage-errors.ts';
import type { ScoreRecord, ScoreSetRecord } from '../../scoring/run/records.ts';
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
  /** Some answers' scores in one set, in the order asked; answers the set has no row for are left out. */
  listByResponses(scoreSetId: string, responseIds: readonly string[]): Promise<ScoreRecord[]>;
  /** One case's answers in one set (drill-down). */
  listBySetAndCase(scoreSetId: string, caseId: string): Promise<ScoreRecord[]>;
  /**
   * Stores a new version (previous max + 1) with its rows and results digest,
   * all or nothing. `cases` are the run's benchmark's cases when the caller
   * already holds them; otherwise they are read in the same transaction.
   */
  saveVersion(runId: string, draft: ScoreSetDraft, items: readonly ItemScore[], cases?: readonly BenchCase[]): Promise<ScoreSetRecord>;
  /**
   * One part of a set's results digest, if stored and still current: built
   * by this digest format from this set, scorer and benchmark content, and
   * not before the set was marked outdated. Undefined otherwise.
   */
  openDigest(set: ScoreSetRecord, benchmarkHash: string): Promise<OpenDigest | undefined>;
  /** The other part, as {@link openDigest}: what paired tests and breakdowns read. */
  detailDigest(set: ScoreSetRecord, benchmarkHash: string): Promise<DetailDigest | undefined>;
  /** Computes a set's digest from its rows and the benchmark's cases and stores it (a set stored before digests, or a stale digest). */
  rebuildDigest(set: ScoreSetRecord, benchmark: { id: string; contentHash: string }): Promise<{ open: OpenDigest; detail: DetailDigest }>;
}

export function createScoresRepo({ db, meter, now }: RepoContext): ScoresRepo {
  const guard = guardFor(db);
  const t = db.scores;
  const sets = db.scoreSets;
  const listSets = (runId: string) => sets.where('[runId+version]').between([runId, -Infinity], [runId, Infinity]).reverse().toArray();
  const currentDigest = (set: ScoreSetRecord, part: 'open' | 'detail', benchmarkHash: string) =>
    guard('read the results digest', async () => {
      const stored = await db.resultDigests.get(digestId(set.id, part));
      return stored && currentFor(stored, set, benchmarkHash) ? stored : undefined;
    });
  return {
    count: () => guard('count scores', () => t.count()),
    listSets: (runId) => guard('list score versions', () => listSets(runId)),
    latestSet: (runId) => guard('read the scores', async () => (await listSets(runId))[0]),
    listBySet: (scoreSetId) => guard('list scores', () => t.where('scoreSetId').equals(scoreSetId).toArray()),
    openDigest: async (set, benchmarkHash) => {
      const d = await currentDigest(set, 'open', benchmarkHash);
      return d?.part === 'open' ? d : undefined;
    },
    detailDigest: async (set, benchmarkHash) => {
      const d = await currentDigest(set, 'detail', benchmarkHash);
      return d?.part === 'detail' ? d : undefined;
    },
    rebuildDigest: (set, benchmark) =>
      guard('store the results digest', () =>
        db.transaction('rw', [t, db.resultDigests, db.cases], async () => {
          const [rows, cases] = await Promise.all([t.where('scoreSetId').equals(set.id).toArray(), db.cases.where('benchmarkId').equals(benchmark.id).toArray()]);
          const built = buildDigest(set, rows, cases, benchmark.contentHash);
          await db.resultDigests.bulkPut([{ ...built.open, id: digestId(set.id, 'open') }, { ...built.detail, id: digestId(set.id, 'detail') }]);
          return built;
        }),
      ),
    listByResponses: (scoreSetId, responseIds) =>
      guard('list scores', async () => (await t.bulkGet(responseIds.map((r) => `${scoreSetId}|${r}`))).filter((r): r is ScoreRecord => r !== undefined)),
    listBySetAndCase: (scoreSetId, caseId) => guard('list scores', () => t.where('[scoreSetId+caseId]').equals([scoreSetId, caseId]).toArray()),
    saveVersion: (runId, draft, items, given) =>
      guard('save scores', () =>
        db.transaction('rw', [t, sets, db.resultDigests, db.runs, db.benchmarks, db.cases], async () => {
          const run = await db.runs.get(runId);
          const benchmark = run ? await db.benchmarks.get(run.benchmarkId) : undefined;
          const previous = await sets.where('[runId+version]').between([runId, -Infinity], [runId, Infinity]).last();
          const version = (previous?.version ?? 0) + 1;
          const set: ScoreSetRecord = { ...draft, id: `${runId}/v${version}`, runId, version, createdAt: now() };
          await sets.add(set);
          const rows = items.map((it): ScoreRecord => ({ ...it, id: `${set.id}|${it.responseId}`, scoreSetId: set.id, runId }));
          meter.recordWrite(rows);
          await t.bulkAdd(rows);
          // Without its run or benchmark (a bare set in a test) there is no page to open; the digest waits.
          if (run && benchmark) {
            const cases = given ?? (await db.cases.where('benchmarkId').equals(run.benchmarkId).toArray());
            const { open, detail } = buildDigest(set, rows, cases, benchmark.contentHash);
            await db.resultDigests.bulkPut([{ ...open, id: digestId(set.id, 'open') }, { ...detail, id: digestId(set.id, 'detail') }]);
          }
          return set;
        }),
      ),
  };
}
