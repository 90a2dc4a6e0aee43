/** Models the user has added (from the catalogue, imported, or the self-test model). */
import { guardFor, notFound } from '../storage-errors.ts';
import type { ModelRecord } from '../../models/record.ts';
import type { RepoContext } from './context.ts';

export interface ModelsRepo {
  get(id: string): Promise<ModelRecord | undefined>;
  /** Like {@link get}, but throws NOT_FOUND when missing. */
  require(id: string): Promise<ModelRecord>;
  /** All models in the order they were added. */
  list(): Promise<ModelRecord[]>;
  listByRuntime(runtime: string): Promise<ModelRecord[]>;
  count(): Promise<number>;
  put(record: ModelRecord): Promise<void>;
  delete(id: string): Promise<void>;
}

/** Builds the models repository. */
export function createModelsRepo({ db }: RepoContext): ModelsRepo {
  const guard = guardFor(db);
  const t = db.models;
  const get = (id: string) => guard('read the model', () => t.get(id));
  return {
    get,
    async require(id) {
      const found = await get(id);
      if (!found) throw notFound('model', id);
      return found;
    },
    list: () => guard('list models', () => t.orderBy('addedAt').toArray()),
    listByRuntime: (runtime) => guard('list models', () => t.where('runtime').equals(runtime).toArray()),
    count: () => guard('count models', () => t.count()),
    put: (record) => guard('save the model', async () => void (await t.put(record))),
    delete: (id) => guard('delete the model', () => t.delete(id)),
  };
}
