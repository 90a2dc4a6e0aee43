/**
 * The figures of a benchmark's results that no answer could give a value,
 * gathered across leaderboard rows: one line per metric and reason, naming
 * the models it holds for. Shown under the leaderboard, beside an empty
 * failure gallery, and in the report, so a missing figure is never a blank.
 */
import type { LeaderboardRow } from './leaderboard.ts';

export interface NoValueNote {
  readonly metric: string;
  readonly label: string;
  readonly reason: string;
  /** The rows (models) it holds for, as `name` gave them. */
  readonly models: readonly string[];
}

/** One note per metric and reason, in the order rows list them. */
export function noValueNotes<R extends Pick<LeaderboardRow, 'unavailable'>>(rows: readonly R[], name: (row: R) => string): NoValueNote[] {
  const notes = new Map<string, { metric: string; label: string; reason: string; models: string[] }>();
  for (const r of rows) {
    for (const u of r.unavailable ?? []) {
      const key = `${u.metric}\u0000${u.reason}`;
      const note = notes.get(key) ?? { metric: u.metric, label: u.label, reason: u.reason, models: [] };
      note.models.push(name(r));
      notes.set(key, note);
    }
  }
  return [...notes.values()];
}
