/**
 * The app's one database connection and its repositories, opened lazily.
 * The first large write asks the browser to persist our storage.
 */
import { openDatabase, createRepositories, type Repositories } from '../../core/db/index.ts';
import { persistence } from './persistence.svelte.ts';
import { storedMarker } from './stored-marker.svelte.ts';

let opening: Promise<Repositories> | null = null;

/** Opens the database once per page; later calls share the same connection. */
export function repos(): Promise<Repositories> {
  opening ??= openDatabase().then((db) => {
    // Fired when the browser closes the database under us (site data cleared, storage evicted).
    db.on('close', () => storedMarker.noteClosed());
    return createRepositories(db, {
      onLargeWrite: () => {
        void persistence.request();
      },
    });
  });
  // A failed open (e.g. data from a newer app version) must be retried on the next call, not cached.
  opening.catch(() => {
    opening = null;
  });
  return opening;
}
