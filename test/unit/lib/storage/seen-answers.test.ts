/**
 * The backup's copy when the database can no longer be read: the last export
 * read, with every answer reported stored since, including those reported
 * while that export was being read (they may not be in it).
 */
import { describe, expect, it } from 'vitest';
import { SeenAnswers, type ExportFile } from '../../../../src/lib/storage/seen-answers.ts';
import type { ResponseRecord } from '../../../../src/core/model/answer.ts';
import { nvbResponse } from '../../core/scoring/neurovlm/fixtures.ts';

const row = (caseId: string, text = 'T2 hyperintense lesions', i = 0): ResponseRecord => ({ ...nvbResponse('run-1', { caseId }, i), rawText: text });

function exportOf(rows: readonly ResponseRecord[]): ExportFile {
  return { fileName: 'run-1.json', text: JSON.stringify({ format: 'neuroeval-run', version: 3, run: { id: 'run-1' }, provenance: null, responses: rows }) };
}

const answers = (f: ExportFile) => (JSON.parse(f.text) as { responses: ResponseRecord[] }).responses.map((r) => `${r.caseId}:${r.rawText}`);
const closed = () => Promise.reject(new Error('The database connection is closing.'));

describe('SeenAnswers', () => {
  it('gives the export as read while the database answers', async () => {
    const seen = new SeenAnswers();
    const f = exportOf([row('a')]);
    expect(await seen.export(async () => f, 1)).toBe(f);
  });

  it('rebuilds the copy from the last export and the answers stored since once the database is closed', async () => {
    const seen = new SeenAnswers();
    await seen.export(async () => exportOf([row('a'), row('b')]), 1);
    seen.add(row('b', 'answered again'));
    seen.add(row('c'));
    const copy = await seen.export(closed, 2);
    expect(answers(copy).sort()).toEqual(['a:T2 hyperintense lesions', 'b:answered again', 'c:T2 hyperintense lesions']);
    expect((JSON.parse(copy.text) as { exportedAt: number }).exportedAt).toBe(2);
  });

  it('keeps an answer reported while an export was being read, though the read did not see it', async () => {
    const seen = new SeenAnswers();
    seen.add(row('a'));
    // The read starts, the runner stores `b` and reports it, then the read returns what it saw before `b`.
    await seen.export(async () => {
      seen.add(row('b'));
      return exportOf([row('a')]);
    }, 1);
    const copy = await seen.export(closed, 2);
    expect(answers(copy).sort()).toEqual(['a:T2 hyperintense lesions', 'b:T2 hyperintense lesions']);
  });

  it('keeps what it had seen when a read fails, and the answers reported during it', async () => {
    const seen = new SeenAnswers();
    await seen.export(async () => exportOf([row('a')]), 1);
    seen.add(row('b'));
    await seen.export(async () => {
      seen.add(row('c'));
      throw new Error('The database connection is closing.');
    }, 2);
    expect(answers(await seen.export(closed, 3)).sort()).toEqual(['a:T2 hyperintense lesions', 'b:T2 hyperintense lesions', 'c:T2 hyperintense lesions']);
  });

  it("fails with the read's error when no export was ever read", async () => {
    const seen = new SeenAnswers();
    seen.add(row('a'));
    await expect(seen.export(closed, 1)).rejects.toThrow('The database connection is closing.');
  });
});
