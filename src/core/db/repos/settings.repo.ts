/** Key/value app settings. */
import { guardFor } from '../storage-errors.ts';
import type { SettingRecord } from '../tables.ts';
import type { RepoContext } from './context.ts';

export interface SettingsRepo {
  /**
   * The stored value of `key`, or `fallback` when none is stored. The value is
   * not validated: callers that cannot trust old data should check its shape.
   */
  get<T>(key: string, fallback: T): Promise<T>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
  /** Every stored setting, for export and the settings screen. */
  list(): Promise<SettingRecord[]>;
}

/** Builds the settings repository. */
export function createSettingsRepo({ db, now }: RepoContext): SettingsRepo {
  const guard = guardFor(db);
  const t = db.settings;
  return {
    get: <T>(key: string, fallback: T) =>
      guard('read a setting', async () => {
        const row = await t.get(key);
        // `undefined` cannot be told apart from "not set", so it falls back too.
        return row === undefined || row.value === undefined ? fallback : (row.value as T);
      }),
    set: (key, value) => guard('save a setting', async () => void (await t.put({ key, value, updatedAt: now() }))),
    delete: (key) => guard('delete a setting', () => t.delete(key)),
    list: () => guard('list settings', () => t.toArray()),
  };
}
