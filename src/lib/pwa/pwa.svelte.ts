/**
 * Service-worker registration and the state the UI shows about it:
 * whether the app is ready to work offline, and whether an update waits.
 */

interface OfflineStatus {
  readonly buildId: string;
  readonly version: string;
  readonly commit: string;
  readonly cached: number;
  readonly total: number;
  readonly bytes: number;
}

class PwaState {
  #supported = $state(typeof navigator !== 'undefined' && 'serviceWorker' in navigator);
  #status = $state<OfflineStatus | null>(null);
  #updateReady = $state(false);
  #error = $state<string | null>(null);
  #registration: ServiceWorkerRegistration | null = null;

  get supported() {
    return this.#supported;
  }
  /** Precache status reported by the active service worker. */
  get status() {
    return this.#status;
  }
  /** True once every file of this build is in the offline cache. */
  get offlineReady() {
    return this.#status !== null && this.#status.total > 0 && this.#status.cached === this.#status.total;
  }
  get updateReady() {
    return this.#updateReady;
  }
  get error() {
    return this.#error;
  }

  /** Registers `sw.js` next to index.html. Only in production builds: the dev server serves source files. */
  async register(): Promise<void> {
    if (!this.#supported || import.meta.env.DEV) return;
    const sw = navigator.serviceWorker;
    try {
      const reg = await sw.register(`${import.meta.env.BASE_URL}sw.js`, { scope: import.meta.env.BASE_URL });
      this.#registration = reg;
      sw.addEventListener('message', (e: MessageEvent) => {
        const data = e.data as ({ type?: string } & OfflineStatus) | null;
        if (data?.type === 'STATUS') this.#status = data;
      });
      // A reload after the user accepted an update swaps to the new version.
      let reloading = false;
      sw.addEventListener('controllerchange', () => {
        if (this.#updateReady && !reloading) {
          reloading = true;
          location.reload();
        } else {
          void this.refreshStatus();
        }
      });
      if (reg.waiting && sw.controller) this.#updateReady = true;
      reg.addEventListener('updatefound', () => {
        const installing = reg.installing;
        installing?.addEventListener('statechange', () => {
          if (installing.state === 'installed') {
            if (sw.controller) this.#updateReady = true;
            void this.refreshStatus();
          }
          if (installing.state === 'activated') void this.refreshStatus();
        });
      });
      await sw.ready;
      await this.refreshStatus();
      // Look for a new deployment when the tab comes back to the front.
      document.addEventListener('visibilitychange', () => {
        if (document.visibilityState === 'visible') void this.checkForUpdate();
      });
    } catch (error) {
      this.#error = `The offline cache could not be set up: ${String(error)}`;
    }
  }

  /** Asks the active worker how much of the build it holds. */
  async refreshStatus(): Promise<void> {
    const reg = this.#registration ?? (await navigator.serviceWorker.getRegistration());
    reg?.active?.postMessage({ type: 'GET_STATUS' });
  }

  async checkForUpdate(): Promise<void> {
    try {
      await this.#registration?.update();
    } catch {
      // Offline or server down: nothing to update from, which is fine.
    }
  }

  /** Activates the waiting version; the page reloads when it takes control. */
  applyUpdate(): void {
    this.#registration?.waiting?.postMessage({ type: 'SKIP_WAITING' });
  }
}

export const pwa = new PwaState();
