/** Builds a run over the fixtures with an in-memory store, recording every successful save. */
import type { BenchCase } from '../../../../src/core/bundle/types.ts';
import { memoryRunLock } from '../../../../src/core/runner/control.ts';
import { memoryRunStore, type MemoryRunStore } from '../../../../src/core/runner/memory-store.ts';
import { planRun } from '../../../../src/core/runner/plan.ts';
import { runRun, type RunOptions } from '../../../../src/core/runner/runner.ts';
import type { RunPlan, RunProgress, RunSpec, RunStore } from '../../../../src/core/runner/types.ts';
import { CASES, SPEC, clock, fakeEngines, loadImage, protocol, type Responder } from './fixtures.ts';

export interface Harness {
  plan: RunPlan;
  store: MemoryRunStore;
  /** `store`, recording successful saves in `saved`; the store every run uses unless told otherwise. */
  recording: RunStore;
  /** Item keys of every save that succeeded, in order, across sessions. */
  saved: string[];
  engines: ReturnType<typeof fakeEngines>;
  progress: RunProgress[];
  run(extra?: Partial<RunOptions>): ReturnType<typeof runRun>;
}

export function harness(
  options: { spec?: RunSpec; cases?: readonly BenchCase[]; responder?: Responder; store?: MemoryRunStore } = {},
): Harness {
  const plan = planRun(options.spec ?? SPEC, options.cases ?? CASES);
  const store = options.store ?? memoryRunStore();
  const saved: string[] = [];
  const recording: RunStore = {
    ...store,
    async saveResponse(row) {
      await store.saveResponse(row);
      saved.push(row.itemKey);
    },
  };
  const engines = fakeEngines(options.responder);
  const lock = memoryRunLock();
  const progress: RunProgress[] = [];
  const now = clock();
  return {
    plan,
    store,
    recording,
    saved,
    engines,
    progress,
    run: (extra = {}) =>
      runRun({
        runId: 'run1', plan, engineFor: engines.engineFor, protocol, store: recording, images: loadImage, lock, now,
        onProgress: (p) => progress.push(p),
        ...extra,
      }),
  };
}

/** Wraps a store so that `saveResponse` throws once `failAfter` saves have succeeded. */
export function crashingStore(inner: RunStore, failAfter: number): RunStore {
  let saves = 0;
  return {
    completedItemKeys: (id) => inner.completedItemKeys(id),
    findCached: (key) => inner.findCached(key),
    updateRun: (id, u) => inner.updateRun(id, u),
    async saveResponse(row) {
      if (saves >= failAfter) throw new Error('tab killed');
      saves++;
      await inner.saveResponse(row);
    },
  };
}
