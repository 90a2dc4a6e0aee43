/** Content-addressed image blobs, keyed by SHA-256. */
import { guardFor, notFound } from '../storage-errors.ts';
import type { AssetRecord } from '../../bundle/records.ts';
import type { RepoContext } from './context.ts';

export interface AssetsRepo {
  get(sha256: string): Promise<AssetRecord | undefined>;
  /** Like {@link get}, but throws NOT_FOUND when missing. */
  require(sha256: string): Promise<AssetRecord>;
  has(sha256: string): Promise<boolean>;
  /** Which of `sha256s` are not stored yet, so importers write only new images. */
  missing(sha256s: readonly string[]): Promise<string[]>;
  /** All stored hashes; reads only keys, not blobs. */
  keys(): Promise<string[]>;
  count(): Promise<number>;
  /** Sum of the `bytes` field over all assets. */
  totalBytes(): Promise<number>;
  put(record: AssetRecord): Promise<void>;
  /** Stores all assets in one transaction: all or nothing. */
  bulkPut(records: readonly AssetRecord[]): Promise<void>;
  delete(sha256: string): Promise<void>;
  bulkDelete(sha256s: readonly string[]): Promise<void>;
}

/** Builds the assets repository. */
export function createAssetsRepo({ db, meter }: RepoContext): AssetsRepo {
  const guard = guardFor(db);
  const t = db.assets;
  const get = (sha256: string) => guard('read the image', () => t.get(sha256));
  return {
    get,
    async require(sha256) {
      const found = await get(sha256);
      if (!found) throw notFound('image', sha256);
      return found;
    },
    has: (sha256) => guard('look up the image', async () => (await t.where('sha256').equals(sha256).count()) > 0),
    missing: (sha256s) =>
      guard('look up images', async () => {
        const present = new Set(await t.where('sha256').anyOf([...sha256s]).primaryKeys());
        return [...new Set(sha256s)].filter((s) => !present.has(s));
      }),
    keys: () => guard('list images', () => t.toCollection().primaryKeys()),
    count: () => guard('count images', () => t.count()),
    totalBytes: () =>
      guard('measure images', async () => {
        let total = 0;
        await t.each((a) => void (total += a.bytes));
        return total;
      }),
    put: (record) =>
      guard('save the image', async () => {
        await t.put(record);
        meter.recordWrite(record);
      }),
    bulkPut: (records) =>
      guard('save images', async () => {
        if (records.length === 0) return;
        // Without an explicit transaction Dexie commits the rows that succeeded.
        await db.transaction('rw', t, () => t.bulkPut([...records]));
        meter.recordWrite(records);
      }),
    delete: (sha256) => guard('delete the image', () => t.delete(sha256)),
    bulkDelete: (sha256s) => guard('delete images', () => t.bulkDelete([...sha256s])),
  };
}
