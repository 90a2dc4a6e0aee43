/**
 * The engine boundary for transformers.js: the page talks to
 * workers/transformers.worker.ts through a worker client, and
 * {@link WorkerEngine} presents that as the project's {@link Engine}, so the
 * runner and the UI never see the worker.
 *
 * One worker holds one runtime and one loaded model. Each `generate` names
 * its model, so an engine keeps working after the worker was stopped for
 * being idle (the model is loaded again) or after another engine loaded a
 * different model in the same worker.
 */
import type { TransformersApi, TransformersInfo, TransformersLoadInput } from '../../../workers/transformers.worker.ts';
import { createWorkerClient, type WorkerClient } from '../../core/rpc/worker-client.ts';
import { RemoteEngine } from '../../core/engines/remote-engine.ts';

export type { TransformersInfo, TransformersLoadInput } from '../../../workers/transformers.worker.ts';

/** Stop the worker (freeing its wasm heap and GPU memory) after this long without calls. */
const TRANSFORMERS_IDLE_MS = 5 * 60_000;

let client: WorkerClient<TransformersApi> | null = null;

/** The transformers.js worker client, created on first use; the worker itself starts on the first call. */
export function transformersWorker(): WorkerClient<TransformersApi> {
  client ??= createWorkerClient<TransformersApi>(
    'transformers',
    // Worker entries are normally created in src/lib/workers/clients.ts; this one lives with its engine
    // so that pages which never run a model do not pull in its client.
    () => new Worker(new URL('../../../workers/transformers.worker.ts', import.meta.url), { type: 'module', name: 'transformers' }),
    { idleMs: TRANSFORMERS_IDLE_MS },
  );
  return client;
}

/** The generating model (a VLM or a text LLM) each worker client's worker has loaded, by what identifies it. */
const generatorIn = new WeakMap<WorkerClient<TransformersApi>, string>();

function generatorKey(input: TransformersLoadInput): string | null {
  if (input.task === 'feature-extraction') return null;
  return JSON.stringify([input.source, input.device, input.task ?? 'image-text-to-text', input.dtype ?? null, input.processor ?? null, input.cachedDecoding ?? true, input.batch ?? null]);
}

/**
 * Whether loading `input` needs a fresh worker: a WebAssembly heap only grows,
 * so a worker that has held one generating model keeps that memory after
 * unloading it, and a larger one loaded next can run out of the 4 GiB a wasm
 * heap may have. In Chromium that showed as a load that never finished with
 * the CPU idle (SmolVLM-2.2B after SmolVLM-256M in one worker; each alone
 * loads). A different generating model therefore starts in a new worker; an
 * encoder (small) or the same model again does not, nor while calls are in
 * flight in the worker.
 */
export function needsFreshWorker(workerClient: WorkerClient<TransformersApi>, input: TransformersLoadInput): boolean {
  const key = generatorKey(input);
  if (key === null || !workerClient.running || workerClient.pending > 0) return false;
  const held = generatorIn.get(workerClient);
  return held !== undefined && held !== key;
}

/** Runs `call`, which loads `model` if the worker does not hold it, in a worker fit for it ({@link needsFreshWorker}); remembers what it holds after. */
async function inWorkerFor<T>(workerClient: WorkerClient<TransformersApi>, model: TransformersLoadInput | undefined, call: () => Promise<T>): Promise<T> {
  if (model && needsFreshWorker(workerClient, model)) workerClient.terminate();
  // A stopped worker (idle, crashed or replaced) starts empty.
  if (!workerClient.running) generatorIn.delete(workerClient);
  const result = await call();
  const key = model ? generatorKey(model) : null;
  if (key !== null) generatorIn.set(workerClient, key);
  return result;
}

/**
 * An {@link Engine} whose model runs in the transformers.js worker: the
 * generic {@link RemoteEngine} over the worker's API.
 */
export class WorkerEngine extends RemoteEngine<TransformersLoadInput, TransformersInfo> {
  constructor(model: TransformersLoadInput, workerClient: WorkerClient<TransformersApi> = transformersWorker()) {
    super(model, {
      load: (input, options) => inWorkerFor(workerClient, input, () => workerClient.api.load(input, options)),
      // A generate names its model, and the worker loads it if it holds another: the same rule applies.
      generate: (input, options) => inWorkerFor(workerClient, input.model, () => workerClient.api.generate(input, options)),
      generateBatch: (input, options) => inWorkerFor(workerClient, input.model, () => workerClient.api.generateBatch(input, options)),
      batchLimit: (input, options) => inWorkerFor(workerClient, input.model, () => workerClient.api.batchLimit(input, options)),
      // A stopped worker holds nothing; do not start one just to unload.
      unload: async (input) => {
        if (workerClient.running) await workerClient.api.unload({ model: input });
      },
    });
  }
}
