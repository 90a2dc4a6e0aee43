/**
 * The parts of `neuroeval run` that need no model: shard slices, the
 * journal's reading back (torn last line, damaged lines), the field a resume
 * refusal names, the output lock, and the progress line.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BenchCase } from '../../../src/core/bundle/types.ts';
import { planRun } from '../../../src/core/runner/plan.ts';
import { buildProvenance } from '../../../src/core/runner/provenance.ts';
import type { RunProgress } from '../../../src/core/runner/types.ts';
import type { ResponseRecord } from '../../../src/core/model/answer.ts';
import { firstDifference } from '../../../src/cli/run/identity.ts';
import { JOURNAL_FORMAT, JournalWriter, journalRunStore, readJournal, type JournalHeader } from '../../../src/cli/run/journal.ts';
import { lockOutput } from '../../../src/cli/run/output.ts';
import { ProgressReporter } from '../../../src/cli/run/progress.ts';
import { parseShard, shardItems, shardPlan } from '../../../src/cli/run/shard.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

afterEach(removeTempDirs);

const cases: BenchCase[] = Array.from({ length: 7 }, (_, i) => ({
  id: `c${i}`,
  taskFamily: 'classification',
  images: [],
  questions: i === 3 ? [{ id: 'q1', text: 'a' }, { id: 'q2', text: 'b' }] : [{ id: 'q1', text: 'a' }],
}));
const plan = planRun(
  { benchmarkId: 'b', models: [{ id: 'm1', filesHash: 'x' }, { id: 'm2', filesHash: 'y' }], variants: ['none', 'text-only'], samples: 2, sampling: { temperature: 0.5, topP: 1, seed: 1, maxTokens: 8 } },
  cases,
);

describe('shards', () => {
  it('reads i/n and refuses anything else', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    for (const bad of ['0/2', '3/2', '1/0', '1', 'a/b', '-1/2', '1/2/3']) expect(() => parseShard(bad)).toThrow('--shard must be i/n');
  });

  it('slice the plan into disjoint parts that cover it, each case whole in one shard, in plan order', () => {
    for (const count of [1, 2, 3, 7, 9]) {
      const parts = Array.from({ length: count }, (_, i) => shardItems(plan, { index: i + 1, count }));
      const keys = parts.flat().map((i) => i.itemKey);
      expect(keys.sort()).toEqual(plan.items.map((i) => i.itemKey).sort());
      expect(new Set(keys).size).toBe(plan.items.length);
      for (const c of cases) expect(parts.filter((p) => p.some((i) => i.caseId === c.id))).toHaveLength(1);
      for (const p of parts) {
        const order = p.map((i) => plan.items.indexOf(i));
        expect(order).toEqual([...order].sort((a, b) => a - b));
      }
    }
  });

  it('give the same slices for the same plan, and a shard plan counts its own items and cases', () => {
    const again = planRun({ benchmarkId: 'b', models: plan.models, variants: plan.variants, samples: 2, sampling: plan.sampling }, cases);
    expect(shardItems(again, { index: 2, count: 3 })).toEqual(shardItems(plan, { index: 2, count: 3 }));
    const s = shardPlan(plan, { index: 1, count: 3 });
    expect(s.cases.map((c) => c.id)).toEqual(['c0', 'c3', 'c6']);
    expect(s.counts).toMatchObject({ cases: 3, questions: 4, items: 4 * 2 * 2 * 2 });
    expect(shardPlan(plan, null)).toBe(plan);
  });
});

function header(): JournalHeader {
  const provenance = buildProvenance({
    app: { version: '0', commit: 'x' },
    environment: { userAgent: 'test', crossOriginIsolated: false },
    models: [],
    protocol: { id: 'auto', version: '1', templateHashes: {} },
    sampling: plan.sampling,
    samples: 2,
    variants: ['none'],
    benchmark: { id: 'b', contentHash: 'h' },
  });
  return {
    kind: 'header', format: JOURNAL_FORMAT, version: 1,
    run: { id: 'cli-x', name: 'n', benchmarkId: 'b', createdAt: 1, config: { spec: { benchmarkId: 'b', models: [], sampling: plan.sampling }, protocolId: 'auto', fewShot: false, engines: [] }, plan: { cases: 7, models: 2, variants: 2, samples: 2, items: plan.items.length } },
    provenance,
    identity: { benchmark: { id: 'b', contentHash: 'h' }, selection: null, models: [], protocol: { id: 'auto', version: '1', templateHashes: {} }, templates: null, fewShot: false, variants: ['none'], samples: 2, sampling: plan.sampling, interleave: false, items: plan.items.length },
    shard: null,
  };
}

const row = (itemKey: string, text = 'answer'): ResponseRecord => ({
  id: `cli-x/${itemKey}`, runId: 'cli-x', itemKey, caseId: 'c0', questionId: 'q1', cacheKey: 'k', modelId: 'm1', variant: 'none', sample: 0,
  rawText: text, parsed: null, parseError: null, usage: { promptTokens: 1, completionTokens: 1, ttftMs: 1, prefillTps: 1, decodeTps: 1 }, latencyMs: 1, finishReason: 'stop', createdAt: 1,
});

describe('the journal', () => {
  it('reads back what the store wrote: answers, status and provenance patches', async () => {
    const file = join(makeTempDir('clirun'), 'run.json.journal.jsonl');
    const h = header();
    const writer = JournalWriter.create(file, h);
    const state = { header: h, answers: new Map(), provenance: h.provenance, status: null, notes: [], validBytes: 0 };
    const store = journalRunStore(state, writer, { now: () => 5 });
    await store.updateRun('cli-x', { status: 'running', error: null, progress: { done: 0, total: 2 } });
    await store.recordProvenance!('cli-x', { startedAt: 3 });
    await store.saveResponse(row('a'));
    await store.saveResponse(row('b'));
    writer.close();
    const back = readJournal(file)!;
    expect([...back.answers.keys()]).toEqual(['a', 'b']);
    expect(back.provenance.startedAt).toBe(3);
    expect(back.status).toMatchObject({ status: 'running', at: 5 });
    expect(back.notes).toEqual([]);
    expect(await journalRunStore(back, writer).completedItemKeys('cli-x')).toEqual(new Set(['a', 'b']));
  });

  it('drops a torn last line with a note, and appending resumes after the last whole line', () => {
    const file = join(makeTempDir('clirun'), 'run.json.journal.jsonl');
    const writer = JournalWriter.create(file, header());
    writer.append({ kind: 'answer', row: row('a') });
    writer.close();
    const whole = readFileSync(file, 'utf8');
    appendFileSync(file, JSON.stringify({ kind: 'answer', row: row('b') }).slice(0, 50));
    const torn = readJournal(file)!;
    expect([...torn.answers.keys()]).toEqual(['a']);
    expect(torn.notes[0]).toContain('the last line was cut off');
    expect(torn.validBytes).toBe(Buffer.byteLength(whole));
    const again = JournalWriter.resume(file, torn);
    again.append({ kind: 'answer', row: row('b') });
    again.close();
    const back = readJournal(file)!;
    expect([...back.answers.keys()]).toEqual(['a', 'b']);
    expect(back.notes).toEqual([]);
  });

  it('refuses a damaged line before the last, naming it, and a file that is not a journal', () => {
    const dir = makeTempDir('clirun');
    const file = join(dir, 'run.json.journal.jsonl');
    const writer = JournalWriter.create(file, header());
    writer.close();
    appendFileSync(file, '{"kind":"answer", oops\n{"kind":"status","update":{"status":"done","error":null,"progress":{"done":0,"total":0}},"at":1}\n');
    expect(() => readJournal(file)).toThrow(`${file}: line 2 is not valid JSON`);
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, '{"a":1}\n');
    expect(() => readJournal(other)).toThrow('line 1: not a NeuroEval run journal');
    expect(readJournal(join(dir, 'missing.jsonl'))).toBeNull();
    writeFileSync(join(dir, 'empty.jsonl'), '{"kind":"hea');
    expect(readJournal(join(dir, 'empty.jsonl'))).toBeNull();
  });

  it('lets one process at a time write an output; a lock left by a dead process is taken over', () => {
    const journal = join(makeTempDir('clirun'), 'run.json.journal.jsonl');
    const release = lockOutput(journal);
    writeFileSync(`${journal}.lock`, '1');
    expect(() => lockOutput(journal)).toThrow('is being written by another neuroeval process (pid 1)');
    writeFileSync(`${journal}.lock`, '999999999');
    const again = lockOutput(journal);
    again();
    release();
  });
});

describe('a resume refusal', () => {
  it('names the first field that differs, with both values', () => {
    expect(firstDifference({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 3] } })).toEqual({ field: 'b.c[1]', was: '2', now: '3' });
    expect(firstDifference({ sampling: { temperature: 0 } }, { sampling: { temperature: 0.7 } })).toEqual({ field: 'sampling.temperature', was: '0', now: '0.7' });
    expect(firstDifference({ v: ['none'] }, { v: ['none', 'text-only'] })).toMatchObject({ field: 'v' });
    expect(firstDifference({ a: null }, { a: { index: 1 } }, 'shard')).toMatchObject({ field: 'shard.a', was: 'null' });
    expect(firstDifference({ a: [1], b: undefined }, { a: [1] })).toBeNull();
  });
});

describe('progress', () => {
  const event = (done: number, latest = true): RunProgress => ({
    runId: 'r', phase: 'running', modelId: 'm1', overall: { done, total: 10 }, model: { done, total: 10 }, decodeTps: 12.5, ...(latest ? { latest: row(`k${done}`) } : {}),
  });

  it('prints a plain line per tenth when stderr is not a terminal, with ETA and decode speed', () => {
    let t = 0;
    let text = '';
    const p = new ProgressReporter({ write: (s: string) => (text += s) }, { tty: false, now: () => t });
    p.update({ ...event(0, false), phase: 'loading-model' });
    for (let done = 1; done <= 10; done++) {
      t += 2000;
      p.update(event(done));
    }
    p.end();
    const lines = text.trim().split('\n');
    expect(lines[0]).toBe('loading m1…');
    expect(lines).toHaveLength(11);
    expect(lines[1]).toBe('progress: 1/10 (10%) · ETA — · decode speed 12.5 tokens/s · m1');
    expect(lines[2]).toBe('progress: 2/10 (20%) · ETA 16s · decode speed 12.5 tokens/s · m1');
    expect(lines.at(-1)).toBe('progress: 10/10 (100%) · ETA 0s · decode speed 12.5 tokens/s · m1');
  });

  it('redraws one bar line on a terminal and ends it with a newline', () => {
    let t = 0;
    let text = '';
    const p = new ProgressReporter({ write: (s: string) => (text += s) }, { tty: true, columns: 100, now: () => t });
    for (let done = 1; done <= 10; done++) {
      t += 1000;
      p.update(event(done));
    }
    p.end();
    expect(text.includes('\n')).toBe(true);
    expect(text.indexOf('\n')).toBe(text.length - 1);
    const last = text.slice(text.lastIndexOf('\r\x1b[2K') + 5, -1);
    expect(last).toMatch(/^\[#+\] 10\/10 \(100%\) · ETA 0s · decode speed 12\.5 tokens\/s · m1$/);
  });
});
