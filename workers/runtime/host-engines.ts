/**
 * Engines for a worker (the runner, the scoring pass) over the page's model
 * host (src/lib/engines/model-host.ts), reached through a MessagePort the
 * page transferred with the call. The worker never loads a model itself: the
 * host decides what is resident, for every runtime.
 */
import type { HostApi, HostLoadInput } from '../../src/core/engines/host-api.ts';
import type { Engine, EngineInfo } from '../../src/core/engines/engine.ts';
import { RemoteEngine } from '../../src/core/engines/remote-engine.ts';
import type { EngineSpec, TransformersSpec } from '../../src/core/engines/spec.ts';
import type { ClientApi } from '../../src/core/rpc/protocol.ts';
import { createWorkerClient } from '../../src/core/rpc/worker-client.ts';
import type { SimilarityEncoder } from '../../src/core/scoring/run/index.ts';

/**
 * A typed client of the host's API over `port`: the project's worker client
 * (calls, abort, progress, typed errors) with the port in the worker's place.
 */
export function hostClient(port: MessagePort): { readonly api: ClientApi<HostApi>; close(): void } {
  const client = createWorkerClient<HostApi>('model host', () => Object.assign(port, { terminate: () => port.close() }) as unknown as Worker, { idleMs: 0 });
  return { api: client.api, close: () => client.terminate() };
}

export type HostClient = ReturnType<typeof hostClient>;

/** The engine of `spec` for `session`, through the host. */
export function hostEngine(host: HostClient, spec: EngineSpec, session: string): Engine {
  const ref: HostLoadInput = { spec, session };
  return new RemoteEngine<HostLoadInput, EngineInfo>(ref, {
    load: (input, options) => host.api.load(input, options),
    generate: (input, options) => host.api.generate({ ...ref, request: input.request }, options),
    generateBatch: (input, options) => host.api.generateBatch({ ...ref, requests: input.requests }, options),
    batchLimit: (input, options) => host.api.batchLimit({ ...ref, request: input.request }, options),
    unload: (input) => host.api.unload(input),
  });
}

/** A similarity encoder (BERTScore, cosine) of `spec` for `session`, through the host. */
export function hostEncoder(host: HostClient, spec: TransformersSpec, session: string, signal?: AbortSignal): SimilarityEncoder {
  const ref: HostLoadInput = { spec, session };
  const opts = signal ? { signal } : {};
  return {
    id: spec.id,
    sentenceEmbeddings: (texts) => host.api.embed({ ...ref, texts, pooling: 'mean', normalize: true }, opts),
    tokenEmbeddings: (text, request = {}) => host.api.tokenEmbed({ ...ref, text, normalize: true, ...request }, opts),
    // The host has no separate call for it: embedding the empty text ([CLS][SEP]) loads the encoder and brings its layer facts.
    describeLayers: async () => {
      const { upstream, layers, hiddenStates } = await host.api.tokenEmbed({ ...ref, text: '', normalize: true, specialTokens: 'keep' }, opts);
      return { upstream, layers, hiddenStates };
    },
  };
}
