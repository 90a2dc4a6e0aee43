import { liveQuery } from 'dexie';
import type { Repositories } from '../../core/db/index.ts';
import { repos } from './app-db.ts';

/**
 * Reactive result of a database query that re-runs whenever the tables it
 * read change (Dexie liveQuery), also when another tab writes them.
 * Create it during component initialisation; it unsubscribes with the component.
 */
export class LiveQuery<T> {
  #value = $state<T | undefined>(undefined);
  #error = $state<string | null>(null);

  /**
   * `signal` aborts when the component goes away: a long query (a scan of
   * every case) can stop there instead of holding the main thread for a page
   * no longer shown. Dexie cannot cancel a query itself.
   */
  constructor(query: (r: Repositories, signal: AbortSignal) => Promise<T>) {
    $effect(() => {
      let sub: { unsubscribe(): void } | null = null;
      const gone = new AbortController();
      repos().then(
        (r) => {
          if (gone.signal.aborted) return;
          sub = liveQuery(() => query(r, gone.signal)).subscribe({
            next: (v) => {
              this.#value = v;
              this.#error = null;
            },
            error: (e: unknown) => {
              this.#error = e instanceof Error ? e.message : String(e);
            },
          });
        },
        (e: unknown) => {
          this.#error = e instanceof Error ? e.message : String(e);
        },
      );
      return () => {
        gone.abort();
        sub?.unsubscribe();
      };
    });
  }

  /** Undefined until the first result arrives. */
  get value(): T | undefined {
    return this.#value;
  }
  get error(): string | null {
    return this.#error;
  }
}
