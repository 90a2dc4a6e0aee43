/**
 * Engines for a worker (the runner, the scoring pass) over the page's model
 * host (src/lib/engines/model-host.ts), reached through a MessagePort the
 * page transferred with the call. The worker never loads a model itself: the
 * host decides what is resident, for every runtime.
 */
import { releaseProxy, wrap, proxy, type Remote } from 'comlink';
import type { HostApi, HostLoadInput } from '../../src/lib/engines/model-host.ts';
import type { Engine, EngineInfo } from '../../src/core/engines/engine.ts';
import { RemoteEngine } from '../../src/core/engines/remote-engine.ts';
import type { EngineSpec, TransformersSpec } from '../../src/core/engines/spec.ts';
import { AbortedError, fromSerialized } from '../../src/core/errors.ts';
import type { CallOptions, ClientApi, Progress, WorkerEndpointApi } from '../../src/core/rpc/protocol.ts';
import type { SimilarityEncoder } from '../../src/core/scoring/run/index.ts';

let nextCallId = 1;

/** A typed client of the host's API over `port` (calls, abort, progress, typed errors). */
export function hostClient(port: MessagePort): { readonly api: ClientApi<HostApi>; close(): void } {
  const remote: Remote<WorkerEndpointApi> = wrap<WorkerEndpointApi>(port);
  const call = async (method: string, input: unknown, opts: CallOptions = {}): Promise<unknown> => {
    if (opts.signal?.aborted) throw new AbortedError();
    const callId = nextCallId++;
    const onProgress = opts.onProgress;
    const progress = onProgress ? proxy((p: Progress) => onProgress(p)) : undefined;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        remote.abort(callId).catch(() => {});
        reject(new AbortedError());
      };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      remote.call(method, input, callId, progress).then(
        (envelope) => (envelope.ok ? resolve(envelope.value) : reject(fromSerialized(envelope.error))),
        (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))),
      ).finally(() => opts.signal?.removeEventListener('abort', onAbort));
    });
  };
  const api = new Proxy({} as ClientApi<HostApi>, {
    get: (_t, prop) => (typeof prop !== 'string' || prop === 'then' ? undefined : (input: unknown, options?: CallOptions) => call(prop, input, options)),
  });
  return {
    api,
    close() {
      remote[releaseProxy]();
      port.close();
    },
  };
}

export type HostClient = ReturnType<typeof hostClient>;

/** The engine of `spec` for `session`, through the host. */
export function hostEngine(host: HostClient, spec: EngineSpec, session: string): Engine {
  const ref: HostLoadInput = { spec, session };
  return new RemoteEngine<HostLoadInput, EngineInfo>(ref, {
    load: (input, options) => host.api.load(input, options),
    generate: (input, options) => host.api.generate({ ...ref, request: input.request }, options),
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
    tokenEmbeddings: (text) => host.api.tokenEmbed({ ...ref, text, normalize: true }, opts),
  };
}
