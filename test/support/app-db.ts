/**
 * Reading and writing the app's IndexedDB database from a browser test, with
 * raw IndexedDB in the page (no app code), so a test can seed known rows or
 * check exactly what the app stored.
 */
import type { Page } from '@playwright/test';
import type { Provenance } from '../../src/core/runner/provenance.ts';
import { dumpIndexedDb } from './db-dump.ts';

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

/**
 * The provenance of a seeded run, shaped as the runner stores it (schema v3:
 * the run's `config` is a field of its own; a seeded run has none).
 */
export function seededProvenance(benchmark: { id: string; contentHash?: string }, modelIds: readonly string[], protocolId = 'auto'): Provenance {
  return {
    schema: 1,
    app: { version: 'test', commit: 'test' },
    runtimes: {},
    environment: { userAgent: 'test', crossOriginIsolated: false, wasmThreads: null, adapter: null },
    models: modelIds.map((id) => ({ id, runtime: 'transformers', quantization: null, files: [], filesHash: '' })),
    engines: {},
    protocol: { id: protocolId, version: '1', templateHashes: {} },
    sampling: { temperature: 0, topP: 1, seed: 0, maxTokens: 256 },
    samples: 1,
    variants: ['none'],
    benchmark: { id: benchmark.id, contentHash: benchmark.contentHash ?? '' },
    selection: null,
    startedAt: null,
    endedAt: null,
  };
}

/** Every row of every store of the app's database, blobs read as bytes, as one text (see db-dump.ts). */
export async function dumpDatabase(page: Page): Promise<string> {
  return page.evaluate(dumpIndexedDb, 'neuroeval');
}
