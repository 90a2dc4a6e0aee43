/**
 * Reading and writing the app's IndexedDB database from a browser test, with
 * raw IndexedDB in the page (no app code), so a test can seed known rows or
 * check exactly what the app stored.
 */
import type { Page } from '@playwright/test';

/** Every row of one store of the `neuroeval` database. */
export async function readStore<T>(page: Page, store: string): Promise<T[]> {
  return page.evaluate(async (name) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('neuroeval');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    try {
      return await new Promise<unknown[]>((resolve, reject) => {
        const req = db.transaction(name).objectStore(name).getAll();
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
    } finally {
      db.close();
    }
  }, store) as Promise<T[]>;
}

/** Puts rows into several stores in one transaction, as the app would write them. */
export async function putRows(page: Page, rows: Readonly<Record<string, readonly unknown[]>>): Promise<void> {
  await page.evaluate(async (byStore) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('neuroeval');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const tx = db.transaction(Object.keys(byStore), 'readwrite');
        for (const [store, list] of Object.entries(byStore)) for (const row of list) tx.objectStore(store).put(row);
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
      });
    } finally {
      db.close();
    }
  }, rows as Record<string, unknown[]>);
}
