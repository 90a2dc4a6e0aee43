/**
 * `neuroeval run` as a real child process: the bundled self-test model on a
 * few cases of the bundled demo benchmark. A run killed (SIGKILL) at seeded
 * random points, several times, and resumed each time ends with exactly one
 * answer per planned item, equal to an uninterrupted run's; a torn last
 * journal line is dropped and its item asked again; a resume with other
 * options is refused naming the option. Two shards merged with
 * `neuroeval merge` equal the unsharded run answer for answer, and the merged
 * file, like the two shard files imported one after the other, goes through
 * the app's run import as one run.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareImport } from '../../../src/core/importers/import-pipeline.ts';
import { commitBundle } from '../../../src/core/stored/benchmark-store.ts';
import { createRepositories, openDatabase } from '../../../src/core/db/index.ts';
import { importRunExport, previewRunImport } from '../../../src/core/stored/import-run.ts';
import { checkRunImport } from '../../../src/core/stored/run-import-check.ts';
import { parseRunExport, type RunExport } from '../../../src/core/scoring/io/run-export.ts';
import { inputFilesFrom } from '../../../src/cli/files.ts';
import { main } from '../../../src/cli/main.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';
import { mulberry32 } from '../../../src/core/random/mulberry32.ts';

const BIN = fileURLToPath(new URL('../../../bin/neuroeval.js', import.meta.url));
const DEMO = fileURLToPath(new URL('../../../public/demo/neuroeval-demo.zip', import.meta.url));
/**
 * Four demo cases of four task families (lesion recognition, a two-turn dialogue, multiple choice, a rubric
 * question), four tokens per answer: an item is a fraction of a second to a second of the tiny model's prefill.
 */
const CASE_IDS = ['lesion-ms-01', 'multi-round-ms-01', 'mcq-sequence-01', 'rubric-normal-01'];
const CASES = CASE_IDS.length;
const RUN_ARGS = ['run', '--benchmark', DEMO, '--model', 'self-test', '--cases', CASE_IDS.join(','), '--max-tokens', '4'];
const LONG = 240_000;

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(args: readonly string[]): { child: ReturnType<typeof spawn>; done: Promise<Exit> } {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Exit>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

const runToEnd = (args: readonly string[]) => cli(args).done;

/** The CLI in this process (for what fails before any model loads). */
async function inProcess(args: readonly string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const sink = { write: (t: string) => (stderr += t) };
  const code = await main(args, { out: { write: () => true }, err: sink });
  return { code, stderr };
}

/** Item keys of the whole answer lines of a journal, in file order (repeats kept). */
function journalAnswers(journal: string): string[] {
  if (!existsSync(journal)) return [];
  const text = readFileSync(journal, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((l) => l.startsWith('{"kind":"answer"'))
    .map((l) => (JSON.parse(l) as { row: { itemKey: string } }).row.itemKey);
}

const readExport = (file: string): RunExport => parseRunExport(readFileSync(file, 'utf8'), file);

/** What must be equal between two runs of the same plan: everything the model said, keyed the same way. */
const answersOf = (e: RunExport) =>
  e.responses.map((r) => ({ id: r.id, itemKey: r.itemKey, cacheKey: r.cacheKey, rawText: r.rawText, parsed: r.parsed, parseError: r.parseError, finishReason: r.finishReason, error: r.error ?? null }));

async function until(cond: () => boolean, stop: Promise<unknown>, timeoutMs = 60_000): Promise<boolean> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (cond()) return true;
    if (stopped) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('timed out waiting for the journal');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function appRepos() {
  const db = await openDatabase({ name: `cli-run-${Date.now()}-${Math.random()}`, indexedDB, IDBKeyRange });
  const repos = createRepositories(db);
  const preview = await prepareImport(inputFilesFrom(DEMO));
  await commitBundle(repos, preview.bundle!);
  return { db, repos };
}

let dir: string;
let baseline: RunExport;

beforeAll(async () => {
  dir = makeTempDir('clirun');
  // The uninterrupted run and the two shards, side by side.
  const [whole, s1, s2] = await Promise.all([
    runToEnd([...RUN_ARGS, '--out', join(dir, 'whole.json'), '--json']),
    runToEnd([...RUN_ARGS, '--shard', '1/2', '--out', join(dir, 'shard-1.json')]),
    runToEnd([...RUN_ARGS, '--shard', '2/2', '--out', join(dir, 'shard-2.json')]),
  ]);
  for (const r of [whole, s1, s2]) expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(whole.stdout)).toMatchObject({ status: 'done', exportStatus: 'done', items: CASES, answered: CASES, generated: CASES });
  baseline = readExport(join(dir, 'whole.json'));
}, LONG);

afterAll(removeTempDirs);

describe('neuroeval run', () => {
  it('writes a finished run export: one answer per planned item, in plan order, with its configuration and provenance', () => {
    expect(baseline.run.status).toBe('done');
    expect(baseline.run.plan).toMatchObject({ cases: CASES, models: 1, items: CASES });
    expect(baseline.responses).toHaveLength(CASES);
    expect(new Set(baseline.responses.map((r) => r.itemKey)).size).toBe(CASES);
    expect(baseline.responses.every((r) => r.finishReason !== 'error' && r.rawText.length > 0)).toBe(true);
    // The dialogue is one item: both of its turns are asked in one go and stored with its answer.
    expect(baseline.responses.find((r) => r.caseId === 'multi-round-ms-01')?.turns).toHaveLength(2);
    expect(baseline.run.config).toMatchObject({ protocolId: 'auto', spec: { sampling: { maxTokens: 4, temperature: 0, seed: 42 } } });
    expect(baseline.provenance!.engines['self-test']?.[0]).toMatchObject({ runtime: 'transformers', modelId: 'self-test' });
    expect(baseline.provenance!.benchmark.id).toBe('neuroeval-demo');
    expect(journalAnswers(join(dir, 'whole.json.journal.jsonl'))).toEqual(baseline.responses.map((r) => r.itemKey));
  });

  it(
    'resumes after SIGKILL at random points, several times: exactly one answer per planned item, equal to the uninterrupted run',
    async () => {
      // Four samples of each case (16 items): a run long enough that kills land between answers even on a fast machine.
      const args = [...RUN_ARGS, '--samples', '4'];
      const items = CASES * 4;
      const whole = join(dir, 'kill-whole.json');
      expect((await runToEnd([...args, '--out', whole])).code).toBe(0);
      const uninterrupted = readExport(whole);
      const out = join(dir, 'killed.json');
      const journal = `${out}.journal.jsonl`;
      // Seeded, so the kill points are random but the same on every run of the test.
      const random = mulberry32(20261124);
      let kills = 0;
      for (let round = 0; round < 12 && kills < 4; round++) {
        const before = journalAnswers(journal).length;
        if (before >= items) break;
        const { child, done } = cli([...args, '--out', out]);
        if (before >= items - 1) {
          // One item left: kill while the process starts (a busy machine may answer more between two checks than the test can count on).
          await Promise.race([sleep(random() * 400), done]);
        } else if (random() < 0.3) {
          // Early: while reading the benchmark, loading the model, or generating the first answer.
          await Promise.race([sleep(random() * 1500), done]);
        } else {
          // Once one or two more answers are on disk, then a little later (mid-generation), but never so late that the run ends.
          const target = Math.min(items - 1, before + 1 + Math.floor(random() * 2));
          await until(() => journalAnswers(journal).length >= target, done);
          if (target < items - 1) await Promise.race([sleep(random() * 300), done]);
        }
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          kills++;
        }
        await done;
        const keys = journalAnswers(journal);
        expect(new Set(keys).size, 'no item is written twice').toBe(keys.length);
      }
      expect(kills).toBeGreaterThanOrEqual(3);
      const answeredBefore = journalAnswers(journal).length;
      expect(answeredBefore).toBeGreaterThan(0);

      const last = await runToEnd([...args, '--out', out, '--json']);
      expect(last.code, last.stderr).toBe(0);
      const summary = JSON.parse(last.stdout) as { generated: number; answered: number };
      expect(summary.answered).toBe(items);
      expect(summary.generated).toBe(items - answeredBefore);

      const keys = journalAnswers(journal);
      expect(keys.sort()).toEqual(uninterrupted.responses.map((r) => r.itemKey).sort());
      const resumed = readExport(out);
      expect(resumed.run.status).toBe('done');
      expect(answersOf(resumed)).toEqual(answersOf(uninterrupted));
    },
    LONG,
  );

  it(
    'drops a torn last journal line with a note and asks its item again',
    async () => {
      const out = join(dir, 'torn.json');
      const journal = `${out}.journal.jsonl`;
      copyFileSync(join(dir, 'whole.json.journal.jsonl'), journal);
      // Cut the journal inside its last answer line, as a kill during the write would leave it.
      const text = readFileSync(journal, 'utf8');
      const lastAnswer = text.lastIndexOf('{"kind":"answer"');
      writeFileSync(journal, text.slice(0, lastAnswer + 60));
      const r = await runToEnd([...RUN_ARGS, '--out', out, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('the last line was cut off');
      expect(JSON.parse(r.stdout)).toMatchObject({ generated: 1, answered: CASES });
      const keys = journalAnswers(journal);
      expect(new Set(keys).size).toBe(CASES);
      expect(keys).toHaveLength(CASES);
      expect(answersOf(readExport(out))).toEqual(answersOf(baseline));
    },
    LONG,
  );

  it(
    'stops after the current answer on Ctrl-C (SIGINT), writes the export as paused and exits 130',
    async () => {
      const out = join(dir, 'interrupted.json');
      const { child, done } = cli([...RUN_ARGS, '--out', out]);
      await until(() => journalAnswers(`${out}.journal.jsonl`).length >= 1, done);
      child.kill('SIGINT');
      const r = await done;
      expect(r.code, r.stderr).toBe(130);
      expect(r.stderr).toContain('Stopping after the current answer');
      const e = readExport(out);
      expect(e.run.status).toBe('paused');
      expect(e.responses.length).toBeGreaterThanOrEqual(1);
      expect(e.responses.length).toBeLessThan(CASES);
      expect(e.responses.map((x) => x.itemKey)).toEqual(journalAnswers(`${out}.journal.jsonl`));
    },
    LONG,
  );

  it('resumes from an export whose journal is gone, and never overwrites a file that is not a run export', async () => {
    const out = join(dir, 'copied.json');
    copyFileSync(join(dir, 'whole.json'), out);
    const r = await inProcess([...RUN_ARGS, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('it has no journal beside it');
    expect(journalAnswers(`${out}.journal.jsonl`)).toEqual(baseline.responses.map((x) => x.itemKey));
    expect(answersOf(readExport(out))).toEqual(answersOf(baseline));
    const junk = join(dir, 'notes.json');
    writeFileSync(junk, '{"mine": true}\n');
    const refused = await inProcess([...RUN_ARGS, '--out', junk]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('exists and is not a run export');
    expect(readFileSync(junk, 'utf8')).toBe('{"mine": true}\n');
  }, LONG);

  it(
    'refuses to resume an output of another run, naming the option that differs',
    async () => {
      const out = join(dir, 'other.json');
      copyFileSync(join(dir, 'whole.json.journal.jsonl'), `${out}.journal.jsonl`);
      const r = await inProcess([...RUN_ARGS, '--temperature', '0.7', '--out', out]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('cannot resume');
      expect(r.stderr).toContain('sampling.temperature was 0, now 0.7');
      const s = await inProcess([...RUN_ARGS, '--shard', '1/2', '--out', out]);
      expect(s.code).toBe(1);
      expect(s.stderr).toContain('it was started with no --shard, now --shard 1/2');
      expect(existsSync(out)).toBe(false);
    },
    LONG,
  );
});

describe('neuroeval run --shard and neuroeval merge', () => {
  it(
    'two shards merged equal the unsharded run answer for answer, and the merge is recorded',
    async () => {
      const s1 = readExport(join(dir, 'shard-1.json'));
      const s2 = readExport(join(dir, 'shard-2.json'));
      expect(s1.provenance!.shard).toEqual({ index: 1, count: 2, items: 2 });
      expect(s2.provenance!.shard).toEqual({ index: 2, count: 2, items: 2 });
      expect(s1.run.id).toBe(baseline.run.id);
      expect(s1.run.status).toBe('paused');

      const out = join(dir, 'merged.json');
      const r = await runToEnd(['merge', join(dir, 'shard-2.json'), join(dir, 'shard-1.json'), '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      const merged = readExport(out);
      expect(merged.run.id).toBe(baseline.run.id);
      expect(merged.run.status).toBe('done');
      expect(answersOf(merged)).toEqual(answersOf(baseline));
      expect(merged.run.config).toEqual(baseline.run.config);
      expect(merged.run.plan).toEqual(baseline.run.plan);
      expect(merged.provenance!.shard).toBeUndefined();
      expect(merged.provenance!.merged).toEqual([
        expect.objectContaining({ file: 'shard-2.json', answers: 2, shard: { index: 2, count: 2 }, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }),
        expect.objectContaining({ file: 'shard-1.json', answers: 2, shard: { index: 1, count: 2 } }),
      ]);
    },
    LONG,
  );

  it('refuses a missing or repeated shard, naming it', async () => {
    const one = join(dir, 'shard-1.json');
    const missing = await inProcess(['merge', one, '--out', join(dir, 'bad.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('shard 2/2 missing');
    const twice = await inProcess(['merge', one, one, '--out', join(dir, 'bad.json')]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('is shard 1/2 again');
    expect(existsSync(join(dir, 'bad.json'))).toBe(false);
  }, LONG);

  it('the merged run passes the app\'s run import as one finished run', async () => {
    const { db, repos } = await appRepos();
    const merged = readExport(join(dir, 'merged.json'));
    const check = await checkRunImport(repos, merged, 'merged.json');
    expect(check.unknown).toEqual([]);
    const result = await importRunExport(repos, merged, 'merged.json');
    expect(result).toMatchObject({ runId: baseline.run.id, created: true, added: CASES, kept: 0, dropped: 0, status: 'done' });
    expect(await repos.responses.countByRun(baseline.run.id)).toBe(CASES);
    db.close();
  }, LONG);

  it('the two shard files imported one after the other make one finished run, each shard recorded', async () => {
    const { db, repos } = await appRepos();
    expect(await previewRunImport(repos, readExport(join(dir, 'shard-1.json')), 'shard-1.json')).toMatchObject({ answers: 2, shard: { index: 1, count: 2 }, unknown: null });
    const first = await importRunExport(repos, readExport(join(dir, 'shard-1.json')), 'shard-1.json');
    expect(first).toMatchObject({ runId: baseline.run.id, created: true, added: 2, status: 'paused' });
    const second = await importRunExport(repos, readExport(join(dir, 'shard-2.json')), 'shard-2.json');
    expect(second).toMatchObject({ runId: baseline.run.id, created: false, added: 2, kept: 0, status: 'done' });
    expect(await repos.runs.list()).toHaveLength(1);
    const stored = (await repos.responses.listByRun(baseline.run.id)).map((r) => [r.itemKey, r.rawText]).sort();
    expect(stored).toEqual(baseline.responses.map((r) => [r.itemKey, r.rawText]).sort());
    const run = await repos.runs.require(baseline.run.id);
    expect(run.provenance.shard).toBeUndefined();
    expect(run.provenance.merged?.map((m) => m.shard)).toEqual([{ index: 1, count: 2 }, { index: 2, count: 2 }]);
    db.close();
  }, LONG);
});

