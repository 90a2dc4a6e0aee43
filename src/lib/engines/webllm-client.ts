/**
 * The page's handle on the WebLLM worker (workers/webllm.worker.ts).
 *
 * The worker starts on the first call (importing this module starts nothing)
 * and stops after 5 minutes without calls, which frees its GPU device; the
 * weights stay in the Cache API, so the next load reads them from there.
 * Pass `model` with `generate` so a stopped worker reloads by itself.
 *
 * ```ts
 * const info = await webllmWorker.api.load({ entryId: 'phi-3.5-vision-q4f32', weightsBaseUrl, modelLibUrl, shaderF16 }, { onProgress, signal });
 * const result = await webllmWorker.api.generate({ request, model }, { onProgress: (p) => p.detail?.kind === 'tokens' && append(p.detail.piece), signal });
 * ```
 *
 * ## GPU device lost
 *
 * When the GPU runs out of memory, the call fails with an `EngineError` whose
 * `engineCode` is `ENGINE_DEVICE_LOST` ({@link isDeviceLost}). The worker's `MLCEngine`
 * and its GPUDevice are then unusable. The app recovers like this
 * ({@link recoverFromDeviceLost} does steps 1 and 2):
 *
 * 1. `webllmWorker.terminate()`: the dead worker goes, and with it every
 *    WebGPU object it held. The next call on `webllmWorker.api` starts a
 *    fresh worker (a new `MLCEngine` on a new device); nothing else changes
 *    on the page.
 * 2. `smallerAlternative(entry, CATALOGUE, facts)` (src/core/engines/webllm/
 *    recovery.ts) picks the smallest catalogue model of the same task that
 *    needs less GPU memory and fits this machine; the UI offers it ("Phi-3.5
 *    vision ran out of GPU memory. Use SmolVLM 256M instead?"), next to
 *    "try again" (same model, optionally a smaller `contextWindow`). With no
 *    alternative it says so and keeps the results already recorded.
 * 3. The run continues from the next item with the chosen model. The failed
 *    item is recorded as an error, not retried silently.
 */
import type { WebLlmInfo, WebLlmLoadInput, WebLlmWorkerApi } from '../../../workers/webllm.worker.ts';
import { CATALOGUE, type Catalogue, type CatalogueEntry, type MachineFacts } from '../../core/engines/catalogue.ts';
import { smallerAlternative } from '../../core/engines/webllm/recovery.ts';
import { createWorkerClient, type WorkerClient } from '../../core/rpc/worker-client.ts';
import { RemoteEngine } from '../../core/engines/remote-engine.ts';

export { isDeviceLost } from '../../core/errors.ts';

export const webllmWorker: WorkerClient<WebLlmWorkerApi> = createWorkerClient<WebLlmWorkerApi>(
  'WebLLM',
  () => new Worker(new URL('../../../workers/webllm.worker.ts', import.meta.url), { type: 'module', name: 'webllm' }),
  { idleMs: 5 * 60_000 },
);

/** An {@link Engine} whose model runs in the WebLLM worker. */
export class WebLlmWorkerEngine extends RemoteEngine<WebLlmLoadInput, WebLlmInfo> {
  constructor(model: WebLlmLoadInput, workerClient: WorkerClient<WebLlmWorkerApi> = webllmWorker) {
    super(model, {
      load: (input, options) => workerClient.api.load(input, options),
      generate: (input, options) => workerClient.api.generate(input, options),
      unload: async () => {
        if (workerClient.running) await workerClient.api.unload();
      },
    });
  }
}

/**
 * After a device loss: stops the worker (the next call starts a fresh one)
 * and returns the model to offer instead, or null when none fits.
 */
export function recoverFromDeviceLost(entry: CatalogueEntry, facts: MachineFacts, catalogue: Pick<Catalogue, 'models'> = CATALOGUE): CatalogueEntry | null {
  webllmWorker.terminate();
  return smallerAlternative(entry, catalogue, facts);
}
