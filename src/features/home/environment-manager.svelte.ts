import { pwa } from '../../lib/pwa/pwa.svelte.ts';
import { persistence } from '../../lib/storage/persistence.svelte.ts';
import type { GpuFacts } from '../../core/env/gpu.ts';
import { evaluateEnvironment, type Check, type EnvironmentFacts } from './environment-checks.ts';
import { probeMainThreadGpu, probeWorkerGpu, storageEstimate, wasmSimdSupported } from './environment.service.ts';

/** State of the Home page's environment check. */
class EnvironmentManager {
  #gpu = $state<GpuFacts | null>(null);
  #workerGpu = $state<EnvironmentFacts['workerGpu']>(null);
  #storage = $state<EnvironmentFacts['storage']>(null);
  #loading = $state(false);

  /** All checks, recomputed when any fact (or the service worker / persistence state) changes. */
  readonly checks: Check[] = $derived.by(() => {
    if (!this.#gpu) return [];
    return evaluateEnvironment({
      secureContext: window.isSecureContext,
      gpu: this.#gpu,
      workerGpu: this.#workerGpu,
      crossOriginIsolated: window.crossOriginIsolated,
      sharedArrayBuffer: typeof SharedArrayBuffer !== 'undefined',
      wasmSimd: wasmSimdSupported(),
      hardwareConcurrency: navigator.hardwareConcurrency ?? 1,
      storage: this.#storage,
      persisted: persistence.state,
      serviceWorker: !pwa.supported ? 'unsupported' : import.meta.env.DEV ? 'dev' : pwa.error ? 'error' : pwa.status ? 'ready' : 'installing',
      offline: pwa.status,
    });
  });

  get loading() {
    return this.#loading;
  }

  /** Reads the browser's storage estimate again (it grows as the offline copy is written after the first load). */
  async refreshStorage(): Promise<void> {
    this.#storage = await storageEstimate();
  }

  async load(): Promise<void> {
    this.#loading = true;
    try {
      const [gpu, storage] = await Promise.all([probeMainThreadGpu(), storageEstimate(), persistence.refresh()]);
      this.#gpu = gpu;
      this.#storage = storage;
      this.#workerGpu = gpu.available ? await probeWorkerGpu() : null;
    } finally {
      this.#loading = false;
    }
  }
}

export const environment = new EnvironmentManager();
