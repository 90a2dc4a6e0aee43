/** Locks and the run controller. */
import { describe, expect, it } from 'vitest';
import { RunController, RunLockedError, memoryRunLock, runLockName, webLocksRunLock, type LockManagerLike } from '../../../../src/core/runner/control.ts';

/** Web Locks with `ifAvailable`, as browsers implement it, for one origin. */
function fakeLockManager(): LockManagerLike & { held: Set<string> } {
  const held = new Set<string>();
  return {
    held,
    async request(name, _options, callback) {
      if (held.has(name)) return callback(null);
      held.add(name);
      try {
        return await callback({ name });
      } finally {
        held.delete(name);
      }
    },
  };
}

describe('run locks', () => {
  it('memory lock: one holder per run, released once', async () => {
    const lock = memoryRunLock();
    const release = await lock.acquire('r1');
    await expect(lock.acquire('r1')).rejects.toBeInstanceOf(RunLockedError);
    const other = await lock.acquire('r2');
    await release();
    await release();
    const again = await lock.acquire('r1');
    await again();
    await other();
  });

  it('web lock: refuses while held, by any tab of the origin, until released', async () => {
    const locks = fakeLockManager();
    const tabA = webLocksRunLock(locks);
    const tabB = webLocksRunLock(locks);
    const release = await tabA.acquire('r1');
    expect(locks.held.has(runLockName('r1'))).toBe(true);
    const refused = await tabB.acquire('r1').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RunLockedError);
    expect((refused as RunLockedError).message).toBe('Run "r1" is already running in another tab.');
    await release();
    await new Promise((r) => setTimeout(r, 0));
    expect(locks.held.size).toBe(0);
    await (await tabB.acquire('r1'))();
  });

  it('web lock: passes on a failing lock manager', async () => {
    const lock = webLocksRunLock({ request: async () => { throw new Error('SecurityError'); } });
    await expect(lock.acquire('r1')).rejects.toThrow('SecurityError');
  });
});

describe('RunController', () => {
  it('flips pause and cancel', () => {
    const c = new RunController();
    expect([c.pauseRequested, c.signal.aborted]).toEqual([false, false]);
    c.pause();
    c.cancel();
    expect([c.pauseRequested, c.signal.aborted]).toEqual([true, true]);
  });
});
