/**
 * The runner's answer writes by group commit (src/core/stored/run-store.ts): answers saved
 * together land in one transaction, each save resolves only once stored, and
 * a failed transaction fails every save in it and nothing after it.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { createRepositories, openDatabase } from '../../../../src/core/db/index.ts';
import { dexieRunStore, groupCommit } from '../../../../src/core/stored/run-store.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';

const row = (i: number): ResponseRecord => ({
  id: `run/c${i}#q|m|none|s0`, runId: 'run', itemKey: `c${i}#q|m|none|s0`, caseId: `c${i}`, questionId: 'q', cacheKey: `k${i}`, modelId: 'm', variant: 'none', sample: 0,
  rawText: `answer ${i}`, parsed: null, parseError: null, usage: { promptTokens: 1, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1 }, latencyMs: 1, finishReason: 'stop', createdAt: i,
});

describe('group commit of answers', () => {
  it('writes answers saved together in one transaction, and later ones in the next', async () => {
    const groups: string[][] = [];
    let release: () => void = () => {};
    const save = groupCommit(async (rows) => {
      groups.push(rows.map((r) => r.caseId));
      if (groups.length === 1) await new Promise<void>((r) => (release = r));
    });
    const first = [save(row(1)), save(row(2)), save(row(3))];
    await Promise.resolve();
    await Promise.resolve();
    // While the first group is being written, the next saves wait for it and go together.
    const second = [save(row(4)), save(row(5))];
    let stored = false;
    void Promise.all(first).then(() => (stored = true));
    await new Promise((r) => setTimeout(r, 0));
    expect(stored).toBe(false);
    release();
    await Promise.all([...first, ...second]);
    expect(groups).toEqual([['c1', 'c2', 'c3'], ['c4', 'c5']]);
    // A lone save after that is written at once, by itself.
    await save(row(6));
    expect(groups.at(-1)).toEqual(['c6']);
  });

  it('fails every save of a failed transaction, and still writes the next group', async () => {
    const written: string[] = [];
    let calls = 0;
    const save = groupCommit(async (rows) => {
      if (++calls === 1) throw new Error('disk full');
      written.push(...rows.map((r) => r.caseId));
    });
    const failed = await Promise.allSettled([save(row(1)), save(row(2))]);
    expect(failed.map((f) => f.status)).toEqual(['rejected', 'rejected']);
    expect((failed[0] as PromiseRejectedResult).reason).toMatchObject({ message: 'disk full' });
    await save(row(3));
    expect(written).toEqual(['c3']);
  });

  it('stores every answer of a burst through the real repositories, a repeated id once with its latest text', async () => {
    const db = await openDatabase({ name: `group-commit-${Date.now()}`, indexedDB, IDBKeyRange });
    try {
      const repos = createRepositories(db);
      const store = dexieRunStore(repos);
      await Promise.all([...Array.from({ length: 250 }, (_, i) => store.saveResponse(row(i))), store.saveResponse({ ...row(7), rawText: 'retried' })]);
      expect(await repos.responses.countByRun('run')).toBe(250);
      expect((await repos.responses.get(row(7).id))?.rawText).toBe('retried');
    } finally {
      db.close();
    }
  });
});
