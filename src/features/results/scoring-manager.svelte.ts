/**
 * Scoring as the page sees it: start a score in the scoring worker, follow
 * its progress, cancel it. The result lands in IndexedDB as the run's next
 * score version, which the results page reads through live queries.
 */
import { isAbortLike } from '../../core/errors.ts';
import type { ModelRecord } from '../../core/models/record.ts';
import { modelLocation } from '../../lib/models/model-store.ts';
import { scoringWorker } from '../../lib/workers/clients.ts';
import type { EngineSpec, TransformersSpec, WebLlmSpec } from '../../core/engines/spec.ts';
import { modelHost } from '../../lib/engines/app-host.ts';
import { endpointLabel, type EndpointConfig } from '../models/endpoints.ts';
import type { ScoreRunInput, ScoreRunOutput } from '../../../workers/scoring.worker.ts';

/** What the page asks for; the port to the model host is added when the call is made. */
type ScoreRequest = Omit<ScoreRunInput, 'host' | 'encoder'> & { readonly encoder?: TransformersSpec | null };

interface ScoringProgress {
  readonly phase: string;
  readonly done: number;
  readonly total: number;
  readonly message?: string;
}

/** A model that can judge or embed, whatever its runtime; `spec` is built for the chosen device. */
export interface ScoringModelOption<S extends EngineSpec = EngineSpec> {
  readonly id: string;
  readonly label: string;
  readonly spec: (device: 'webgpu' | 'wasm') => S;
}

const bundled = (id: string) => new URL(`models/${id}/`, document.baseURI).href;

function transformersOption(id: string, label: string, location: string, task: 'text-generation' | 'feature-extraction'): ScoringModelOption<TransformersSpec> {
  return { id, label, spec: (device) => ({ kind: 'transformers', id, label, location, device, task, files: [] }) };
}

/**
 * Local judges, any runtime: the bundled self-test text model, stored
 * transformers.js models, WebLLM text models that loaded on this device, and
 * on-prem endpoints.
 */
export function judgeOptions(stored: readonly ModelRecord[], webllm: readonly WebLlmSpec[] = [], endpoints: readonly EndpointConfig[] = []): ScoringModelOption[] {
  return [
    transformersOption('self-test-text', 'Self-test text model (random weights: wiring check only)', bundled('self-test-text'), 'text-generation'),
    ...stored.filter((m) => m.runtime === 'transformers').map((m) => transformersOption(m.id, m.label, modelLocation(m.id), 'text-generation')),
    ...webllm.filter((w) => w.task === 'text-generation').map((w): ScoringModelOption => ({ id: w.id, label: w.label, spec: () => w })),
    ...endpoints.map((e): ScoringModelOption => {
      const label = endpointLabel(e);
      return { id: `endpoint:${e.id}`, label, spec: () => ({ kind: 'openai', id: `endpoint:${e.id}`, label, endpointId: e.id, baseUrl: e.baseUrl, model: e.model, concurrency: e.concurrency }) };
    }),
  ];
}

/** Similarity encoders (transformers.js feature-extraction models). */
export function encoderOptions(stored: readonly ModelRecord[]): ScoringModelOption<TransformersSpec>[] {
  return [
    transformersOption('self-test-embed', 'Self-test encoder (random weights: wiring check only)', bundled('self-test-embed'), 'feature-extraction'),
    ...stored.filter((m) => m.runtime === 'transformers').map((m) => transformersOption(m.id, m.label, modelLocation(m.id), 'feature-extraction')),
  ];
}

class ScoringManager {
  #progress = $state<Record<string, ScoringProgress>>({});
  #errors = $state<Record<string, string>>({});
  #last = $state<Record<string, ScoreRunOutput>>({});
  #controllers = new Map<string, AbortController>();

  progress(runId: string): ScoringProgress | undefined {
    return this.#progress[runId];
  }
  error(runId: string): string | undefined {
    return this.#errors[runId];
  }
  last(runId: string): ScoreRunOutput | undefined {
    return this.#last[runId];
  }
  isScoring(runId: string): boolean {
    return runId in this.#progress;
  }

  async score(input: ScoreRequest): Promise<void> {
    const { runId } = input;
    if (this.isScoring(runId)) return;
    const { [runId]: _e, ...errors } = this.#errors;
    this.#errors = errors;
    const controller = new AbortController();
    this.#controllers.set(runId, controller);
    this.#progress = { ...this.#progress, [runId]: { phase: 'start', done: 0, total: 0 } };
    try {
      const host = modelHost.connect();
      const out = await scoringWorker.api.score({ ...input, host }, {
        transfer: [host],
        signal: controller.signal,
        onProgress: (p) => {
          if (runId in this.#progress) this.#progress[runId] = { phase: p.phase, done: p.done, total: p.total ?? 0, ...(p.message ? { message: p.message } : {}) };
        },
      });
      this.#last = { ...this.#last, [runId]: out };
    } catch (e) {
      if (!isAbortLike(e)) this.#errors = { ...this.#errors, [runId]: e instanceof Error ? e.message : String(e) };
    } finally {
      this.#controllers.delete(runId);
      const { [runId]: _gone, ...rest } = this.#progress;
      this.#progress = rest;
    }
  }

  cancel(runId: string): void {
    this.#controllers.get(runId)?.abort();
  }
}

export const scoringManager = new ScoringManager();
