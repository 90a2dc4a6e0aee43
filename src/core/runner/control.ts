/**
 * Run control: the lock that keeps one driver per run, and the pause/cancel
 * switch a UI or worker flips while the run goes on.
 */
import { NeuroEvalError } from '../errors.ts';
import type { RunControl, RunLock } from './types.ts';

/** The run is being driven elsewhere (another tab or runner). Nothing about the run was changed. */
export class RunLockedError extends NeuroEvalError {
  override readonly name = 'RunLockedError';
  constructor(runId: string) {
    super('INVALID_INPUT', `Run "${runId}" is already running in another tab.`);
  }
}

/** Name of the Web Lock that guards a run. */
export const runLockName = (runId: string) => `neuroeval-run:${runId}`;

/** A lock within one JavaScript realm (Node, tests, a single worker). */
export function memoryRunLock(): RunLock {
  const held = new Set<string>();
  return {
    async acquire(runId) {
      if (held.has(runId)) throw new RunLockedError(runId);
      held.add(runId);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held.delete(runId);
      };
    },
  };
}

/** The part of the Web Locks API used here (`navigator.locks`, also in workers). */
export interface LockManagerLike {
  request(name: string, options: { ifAvailable: boolean }, callback: (lock: unknown) => Promise<unknown>): Promise<unknown>;
}

/**
 * A lock shared by every tab and worker of the origin. The lock is held until
 * the returned release function is called, or the holder's realm goes away
 * (tab closed, worker terminated), after which another tab may resume the run.
 */
export function webLocksRunLock(locks: LockManagerLike): RunLock {
  return {
    acquire: (runId) =>
      new Promise((resolve, reject) => {
        let release!: () => void;
        const held = new Promise<void>((done) => (release = done));
        locks
          .request(runLockName(runId), { ifAvailable: true }, async (lock) => {
            if (!lock) {
              reject(new RunLockedError(runId));
              return;
            }
            resolve(release);
            await held;
          })
          .catch(reject);
      }),
  };
}

/** The switch for one run: `pause()` stops after the current item, `cancel()` at once. */
export class RunController implements RunControl {
  private readonly abort = new AbortController();
  private pauseFlag = false;

  get pauseRequested(): boolean {
    return this.pauseFlag;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  pause(): void {
    this.pauseFlag = true;
  }

  cancel(): void {
    this.abort.abort();
  }
}
