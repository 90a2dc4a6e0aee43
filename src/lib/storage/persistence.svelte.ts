/**
 * Persistent storage: without it the browser may evict IndexedDB (benchmarks,
 * hours of model answers) under storage pressure. We ask at the first large
 * write, as browsers grant it more readily once a site stores real data, and
 * show the answer on Home and in Settings.
 */

type PersistState = 'unknown' | 'granted' | 'denied' | 'unsupported';

class Persistence {
  #state = $state<PersistState>('unknown');
  #askedAt = $state<string | null>(null);
  #asking: Promise<PersistState> | null = null;

  get state() {
    return this.#state;
  }
  /** When we asked (ISO time), or null if we have not asked in this session. */
  get askedAt() {
    return this.#askedAt;
  }

  /** Reads the current grant without asking. */
  async refresh(): Promise<PersistState> {
    if (!navigator.storage?.persisted) return (this.#state = 'unsupported');
    this.#state = (await navigator.storage.persisted()) ? 'granted' : this.#state === 'denied' ? 'denied' : 'unknown';
    return this.#state;
  }

  /** Asks the browser to keep our data; asks at most once at a time. */
  request(): Promise<PersistState> {
    if (!navigator.storage?.persist) return Promise.resolve((this.#state = 'unsupported'));
    this.#asking ??= navigator.storage.persist().then(
      (granted) => {
        this.#askedAt = new Date().toISOString();
        this.#asking = null;
        return (this.#state = granted ? 'granted' : 'denied');
      },
      () => {
        this.#asking = null;
        return (this.#state = 'denied');
      },
    );
    return this.#asking;
  }
}

export const persistence = new Persistence();
