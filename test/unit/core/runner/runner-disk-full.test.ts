/**
 * A full disk mid-run: the browser refuses the next write (and the status
 * write after it). The run pauses with a message that says so and how many
 * answers are kept, nothing stored is lost, and resuming finishes the plan
 * with one answer per item.
 */
import { describe, expect, it } from 'vitest';
import { StorageError } from '../../../../src/core/errors.ts';
import { QUOTA_MESSAGE } from '../../../../src/core/db/storage-errors.ts';
import type { RunStore } from '../../../../src/core/runner/types.ts';
import { expectOnePerItem } from './fixtures.ts';
import { harness } from './harness.ts';

/** A store on a disk that fills after `room` answers: every later write is refused as the browser refuses it. */
function fillingStore(inner: RunStore, room: number, error: () => unknown): RunStore {
  let saves = 0;
  return {
    completedItemKeys: (id) => inner.completedItemKeys(id),
    findCached: (key) => inner.findCached(key),
    async updateRun(id, u) {
      if (saves >= room) throw error();
      await inner.updateRun(id, u);
    },
    async saveResponse(row) {
      if (saves >= room) throw error();
      saves++;
      await inner.saveResponse(row);
    },
  };
}

describe('a full disk during a run', () => {
  it('pauses with the reason, keeps every stored answer, and resumes to the end', async () => {
    const h = harness();
    const keys = h.plan.items.map((i) => i.itemKey);
    const quota = () => new StorageError('QUOTA_EXCEEDED', QUOTA_MESSAGE, new DOMException('full', 'QuotaExceededError'));
    const first = await h.run({ store: fillingStore(h.recording, 12, quota) });
    expect(first.status).toBe('paused');
    expect(first.error).toBe('Stopped: the disk is full, and the browser refused to store the next answer. 12 of 48 answers are stored and kept. Free space on this disk (or delete older runs), then resume.');
    expect(h.store.responses.size).toBe(12);

    const second = await h.run();
    expect(second).toMatchObject({ status: 'done', progress: { done: 48, total: 48 } });
    expectOnePerItem(h.store.responses.values(), 'run1', keys);
  });

  it('names another storage failure and still keeps what is stored', async () => {
    const h = harness();
    const aborted = () => new StorageError('STORAGE_FAILED', 'Could not store the answer: AbortError: the transaction was aborted');
    const outcome = await h.run({ store: fillingStore(h.recording, 5, aborted) });
    expect(outcome.status).toBe('paused');
    expect(outcome.error).toContain('Stopped: the next answer could not be stored (Could not store the answer: AbortError');
    expect(outcome.error).toContain('5 of 48 answers are stored and kept');
    expect(h.store.responses.size).toBe(5);
  });
});

describe("Chromium's full disk", () => {
  it('says the disk is most likely full when the browser closed the database, and keeps what is stored', async () => {
    const { CLOSED_BY_BROWSER_MESSAGE } = await import('../../../../src/core/db/storage-errors.ts');
    const h = harness();
    const closed = () => new StorageError('STORAGE_CLOSED', CLOSED_BY_BROWSER_MESSAGE);
    const outcome = await h.run({ store: fillingStore(h.recording, 7, closed) });
    expect(outcome.status).toBe('paused');
    expect(outcome.error).toBe(
      'Stopped: the browser closed the database, as it does when it cannot write to the disk (most often because the disk is full). ' +
        '7 of 48 answers are stored and kept. Free space on this disk, reload the page, then resume.',
    );
    expect(h.store.responses.size).toBe(7);
  });

  it('reads LevelDB\'s no-space error under an aborted transaction as a full disk', async () => {
    const { toStorageError } = await import('../../../../src/core/db/storage-errors.ts');
    const abort = Object.assign(new Error('UnknownError Connection is closing because of: IO error: …/000003.log: FILE_ERROR_NO_SPACE (ChromeMethodBFE: 3::WritableFileAppend::8)'), { name: 'AbortError' });
    const e = toStorageError(abort, 'save the response');
    expect(e.code).toBe('QUOTA_EXCEEDED');
    const h = harness();
    const outcome = await h.run({ store: fillingStore(h.recording, 2, () => e) });
    expect(outcome.error).toMatch(/^Stopped: the disk is full/);
  });
});
