/**
 * Scoring as the page sees it: start a score in the scoring worker, follow
 * its progress, cancel it. The result lands in IndexedDB as the run's next
 * score version, which the results page reads through live queries.
 */
import { isAbortLike } from '../../core/errors.ts';
import type { ModelRecord } from '../../core/db/types.ts';
import { modelLocation } from '../../lib/models/model-store.ts';
import { scoringWorker } from '../../lib/workers/clients.ts';
import type { ScoreRunInput, ScoreRunOutput, ScoringModelChoice } from '../../../workers/scoring.worker.ts';

export interface ScoringProgress {
  readonly phase: string;
  readonly done: number;
  readonly total: number;
  readonly message?: string;
}

export interface ScoringModelOption {
  readonly id: string;
  readonly label: string;
  readonly location: string;
}

const bundled = (id: string) => new URL(`models/${id}/`, document.baseURI).href;

/** A bundled self-test model first, then every stored transformers.js model (the user knows which can judge or embed). */
function options(selfTest: ScoringModelOption, stored: readonly ModelRecord[]): ScoringModelOption[] {
  return [selfTest, ...stored.filter((m) => m.runtime === 'transformers').map((m) => ({ id: m.id, label: m.label, location: modelLocation(m.id) }))];
}

/** Local judges: text LLMs. */
export function judgeOptions(stored: readonly ModelRecord[]): ScoringModelOption[] {
  return options({ id: 'self-test-text', label: 'Self-test text model (random weights: wiring check only)', location: bundled('self-test-text') }, stored);
}

/** Similarity encoders. */
export function encoderOptions(stored: readonly ModelRecord[]): ScoringModelOption[] {
  return options({ id: 'self-test-embed', label: 'Self-test encoder (random weights: wiring check only)', location: bundled('self-test-embed') }, stored);
}

export function choiceOf(option: ScoringModelOption | undefined, device: 'webgpu' | 'wasm'): ScoringModelChoice | null {
  return option ? { modelId: option.id, location: option.location, device } : null;
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

  async score(input: ScoreRunInput): Promise<void> {
    const { runId } = input;
    if (this.isScoring(runId)) return;
    const { [runId]: _e, ...errors } = this.#errors;
    this.#errors = errors;
    const controller = new AbortController();
    this.#controllers.set(runId, controller);
    this.#progress = { ...this.#progress, [runId]: { phase: 'start', done: 0, total: 0 } };
    try {
      const out = await scoringWorker.api.score(input, {
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
