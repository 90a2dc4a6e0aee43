/** The database's own words: its table names and the settings table's row. Every other record belongs to the code that owns it. */
import type { Timestamp } from '../model/answer.ts';

/** Names of the tables, in declaration order. */
export type StoreName =
  | 'benchmarks'
  | 'cases'
  | 'assets'
  | 'models'
  | 'runs'
  | 'responses'
  | 'scores'
  | 'scoreSets'
  | 'resultDigests'
  | 'scoringCache'
  | 'reviews'
  | 'settings';

export interface SettingRecord {
  key: string;
  value: unknown;
  updatedAt: Timestamp;
}
