/**
 * Every row of every store of an IndexedDB database, blobs read as bytes
 * (Latin-1, one character per byte), as one searchable text: what a test
 * searches for patient identifiers that must never be stored.
 *
 * Self-contained on purpose (no imports, nothing from outside the function):
 * browser tests hand it to `page.evaluate`, which runs its source in the page
 * with the page's `indexedDB`; Node tests call it with fake-indexeddb's.
 */
export async function dumpIndexedDb(name: string, factory: IDBFactory = indexedDB): Promise<string> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = factory.open(name);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const parts: string[] = [];
  for (const store of [...db.objectStoreNames]) {
    const rows = await new Promise<unknown[]>((resolve, reject) => {
      const req = db.transaction(store).objectStore(store).getAll();
      req.onsuccess = () => resolve(req.result as unknown[]);
      req.onerror = () => reject(req.error);
    });
    const blobs: Blob[] = [];
    parts.push(store, JSON.stringify(rows, (_k, v: unknown) => (v instanceof Blob ? (blobs.push(v), `<blob ${blobs.length}>`) : v)));
    for (const b of blobs) parts.push(new TextDecoder('latin1').decode(await b.arrayBuffer()));
  }
  db.close();
  return parts.join('\n');
}
