/**
 * Migration test harness: builds and inspects IndexedDB databases with the RAW
 * IndexedDB API, deliberately not Dexie, so a test can recreate exactly what an
 * older release left in a user's browser, independent of today's schema code.
 *
 * Version numbers: Dexie opens its schema version N as IndexedDB version
 * N × 10 (Dexie version 1 is IDB version 10, version 2 is 20). Functions here
 * take and report the raw IndexedDB version. A Dexie database that holds
 * version N therefore has `version === N * 10`; a value that is not a multiple
 * of 10 means Dexie patched a schema that differed from its declaration.
 *
 * Dexie naming, for writing stores by hand: a Dexie index `name` is an IDB
 * index named `name` with keyPath `'name'`; `[a+b]` is an index named `[a+b]`
 * with keyPath `['a', 'b']`; `&x` is unique, `*x` multiEntry. A compound
 * primary key `[a+b]` is the store keyPath `['a', 'b']`. Dexie tables have no
 * autoIncrement unless the key is written `++id`.
 */

export interface IndexSpec {
  name: string;
  keyPath: string | string[];
  unique?: boolean;
  multiEntry?: boolean;
}

export interface StoreSpec {
  name: string;
  keyPath: string | string[] | null;
  autoIncrement?: boolean;
  indexes?: IndexSpec[];
}

/** The shape of an existing database as IndexedDB reports it, normalised for `toEqual`. */
export interface DatabaseShape {
  version: number;
  stores: Array<Required<StoreSpec> & { indexes: Array<Required<IndexSpec>> }>;
}

/**
 * Creates database `name` at IndexedDB version `idbVersion` with the given
 * stores and indexes, then inserts `rows` (store name → records; stores with
 * out-of-line keys are not supported). The database must not exist yet.
 */
export async function buildDatabaseByHand(
  factory: IDBFactory,
  name: string,
  idbVersion: number,
  stores: StoreSpec[],
  rows: Record<string, unknown[]>,
): Promise<void> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = factory.open(name, idbVersion);
    req.onupgradeneeded = (event) => {
      if (event.oldVersion !== 0) {
        req.transaction?.abort();
        reject(new Error(`buildDatabaseByHand: database ${name} already exists (version ${event.oldVersion})`));
        return;
      }
      for (const spec of stores) {
        const store = req.result.createObjectStore(spec.name, {
          keyPath: spec.keyPath,
          autoIncrement: spec.autoIncrement ?? false,
        });
        for (const idx of spec.indexes ?? []) {
          store.createIndex(idx.name, idx.keyPath, { unique: idx.unique ?? false, multiEntry: idx.multiEntry ?? false });
        }
      }
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  try {
    const names = Object.keys(rows).filter((s) => (rows[s] ?? []).length > 0);
    if (names.length === 0) return;
    const tx = db.transaction(names, 'readwrite');
    for (const s of names) for (const row of rows[s] ?? []) tx.objectStore(s).put(row);
    await transactionDone(tx);
  } finally {
    db.close();
  }
}

/** Reads every record of `store` in key order, without Dexie. */
export async function readAllByHand(factory: IDBFactory, name: string, store: string): Promise<unknown[]> {
  return withExisting(factory, name, async (db) => {
    const tx = db.transaction(store, 'readonly');
    const all = await requestDone(tx.objectStore(store).getAll());
    await transactionDone(tx);
    return all;
  });
}

/** Reports the version, stores and indexes of an existing database, sorted by name. */
export async function inspectDatabaseByHand(factory: IDBFactory, name: string): Promise<DatabaseShape> {
  return withExisting(factory, name, async (db) => {
    const storeNames = [...db.objectStoreNames].sort();
    const stores: DatabaseShape['stores'] = [];
    if (storeNames.length > 0) {
      const tx = db.transaction(storeNames, 'readonly');
      for (const s of storeNames) {
        const store = tx.objectStore(s);
        const indexes = [...store.indexNames].sort().map((i) => {
          const idx = store.index(i);
          // An index always has a key path (only stores may have none).
          const keyPath = copyKeyPath(idx.keyPath) ?? '';
          return { name: idx.name, keyPath, unique: idx.unique, multiEntry: idx.multiEntry };
        });
        stores.push({ name: s, keyPath: copyKeyPath(store.keyPath), autoIncrement: store.autoIncrement, indexes });
      }
      await transactionDone(tx);
    }
    return { version: db.version, stores };
  });
}

/** Normalises hand-written store specs the way {@link inspectDatabaseByHand} reports them. */
export function normaliseShape(version: number, stores: StoreSpec[]): DatabaseShape {
  return {
    version,
    stores: [...stores]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((s) => ({
        name: s.name,
        keyPath: s.keyPath,
        autoIncrement: s.autoIncrement ?? false,
        indexes: [...(s.indexes ?? [])]
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          .map((i) => ({ name: i.name, keyPath: i.keyPath, unique: i.unique ?? false, multiEntry: i.multiEntry ?? false })),
      })),
  };
}

/** Deletes a database; resolves even when it does not exist. */
export function deleteDatabaseByHand(factory: IDBFactory, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = factory.deleteDatabase(name);
    req.onsuccess = () => resolve();
    req.onerror = () => reject(req.error);
  });
}

// Opens without a version, which never upgrades; refuses to create a database
// as a side effect of reading one that is not there.
async function withExisting<T>(factory: IDBFactory, name: string, use: (db: IDBDatabase) => Promise<T>): Promise<T> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = factory.open(name);
    req.onupgradeneeded = () => {
      req.transaction?.abort();
      reject(new Error(`database ${name} does not exist`));
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = (event) => {
      event.preventDefault();
      reject(req.error ?? new Error(`could not open ${name}`));
    };
  });
  try {
    return await use(db);
  } finally {
    db.close();
  }
}

// IDB keyPath arrays are live DOMStringList-like objects in some implementations; copy to plain values.
function copyKeyPath(keyPath: string | string[] | null): string | string[] | null {
  return Array.isArray(keyPath) ? [...keyPath] : keyPath;
}

function requestDone<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function transactionDone(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('transaction aborted'));
  });
}
