/**
 * The reader study of a benchmark's current scores: splits the scored runs
 * into readers' runs and model arms, reads what each reader answered (for
 * consensus and agreement), and compares (compare.ts). Null when no reader
 * run is scored.
 */
import type { Repositories } from '../db/index.ts';
import { buildLeaderboard, rowId, type ScoredItems, type ScoredRun } from '../results/leaderboard.ts';
import { armKey } from '../scoring/run/types.ts';
import { questionKey } from '../scoring/run/summary.ts';
import { answerKey, keyField, storedAnswer } from '../readers/answer.ts';
import { readerStudy, type ModelArmInput, type ReaderInput, type ReaderStudyResult } from '../readers/compare.ts';
import { isReaderModelId, readerLabel, readerOf } from '../readers/study.ts';

/** `runs` are the scored runs' items on `metric` (stored-results `itemsFor`, or every score row for the report). */
export async function loadReaderStudy(repos: Repositories, scored: readonly ScoredRun[], runs: readonly ScoredItems[], metric: string): Promise<ReaderStudyResult | null> {
  const isReaderRun = (s: ScoredRun) => s.set.summary.arms.length > 0 && s.set.summary.arms.every((a) => isReaderModelId(a.modelId));
  const readerRunIds = new Set(scored.filter(isReaderRun).map((s) => s.run.id));
  if (readerRunIds.size === 0) return null;
  const labels = new Map(buildLeaderboard(scored.filter((s) => !readerRunIds.has(s.run.id))).rows.map((r) => [r.id, r.label]));

  const readers: ReaderInput[] = [];
  const models: ModelArmInput[] = [];
  for (const { run, items } of runs) {
    if (readerRunIds.has(run.id)) {
      const record = await repos.runs.get(run.id);
      const who = record ? readerOf(record) : null;
      const protocolOf = new Map(items.map((it) => [questionKey(it), it.protocolId]));
      const answers = new Map<string, string>();
      for (const r of await repos.responses.listByRun(run.id)) {
        const k = questionKey(r);
        const protocolId = protocolOf.get(k) ?? '';
        const form = { protocolId, key: keyField(protocolId) };
        const answer = answerKey(form, storedAnswer(form, r));
        if (answer) answers.set(k, answer);
      }
      readers.push({ id: run.id, label: who ? readerLabel(who) : run.name, items, answers });
      continue;
    }
    const arms = new Map<string, ScoredItems['items'][number][]>();
    for (const it of items) {
      const id = rowId(run.id, { key: armKey(it.modelId, it.variant) });
      const l = arms.get(id);
      if (l) l.push(it);
      else arms.set(id, [it]);
    }
    for (const [id, list] of arms) models.push({ id, label: labels.get(id) ?? id, items: list });
  }
  return readerStudy(readers, models, metric);
}
