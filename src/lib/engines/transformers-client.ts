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
import { createWorkerClient, type WorkerClient } from '../workers/worker-client.ts';
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

/**
 * An {@link Engine} whose model runs in the transformers.js worker: the
 * generic {@link RemoteEngine} over the worker's API.
 */
export class WorkerEngine extends RemoteEngine<TransformersLoadInput, TransformersInfo> {
  constructor(model: TransformersLoadInput, workerClient: WorkerClient<TransformersApi> = transformersWorker()) {
    super(model, {
      load: (input, options) => workerClient.api.load(input, options),
      generate: (input, options) => workerClient.api.generate(input, options),
      // A stopped worker holds nothing; do not start one just to unload.
      unload: async (input) => {
        if (workerClient.running) await workerClient.api.unload({ model: input });
      },
    });
  }
}
