/**
 * `neuroeval run --endpoint` against a local server that checks requests the
 * way vLLM does and answers deterministically: two shards merged equal the
 * unsharded run answer for answer and import into the app as one run; a
 * server failing at random with 429 and 500 still yields every answer once;
 * the API key goes from an environment variable to the server and nowhere else.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareImport } from '../../../src/core/importers/import-pipeline.ts';
import { commitBundle } from '../../../src/core/stored/benchmark-store.ts';
import { createRepositories, openDatabase } from '../../../src/core/db/index.ts';
import { importRunExport } from '../../../src/core/stored/import-run.ts';
import { checkRunImport } from '../../../src/core/stored/run-import-check.ts';
import { parseRunExport, type RunExport } from '../../../src/core/scoring/io/run-export.ts';
import { inputFilesFrom } from '../../../src/cli/files.ts';
import { main } from '../../../src/cli/main.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../support/fake-openai-server.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

const DEMO = fileURLToPath(new URL('../../../public/demo/neuroeval-demo.zip', import.meta.url));
const MODEL = 'qwen2.5-vl-7b-instruct';
const CASES = 8;
const LONG = 120_000;

async function cli(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } });
  return { code, out, err };
}

const runArgs = (server: FakeOpenAi, out: string, ...extra: string[]) => [
  'run', '--benchmark', DEMO, '--endpoint', server.baseUrl, '--endpoint-model', MODEL, '--protocol', 'neurovlm-structured', '--json-output', 'on', '--limit', String(CASES), '--out', out, '--retries', '10', ...extra,
];

const readExport = (file: string): RunExport => parseRunExport(readFileSync(file, 'utf8'), file);
const answersOf = (e: RunExport) =>
  e.responses.map((r) => ({ id: r.id, itemKey: r.itemKey, cacheKey: r.cacheKey, rawText: r.rawText, parsed: r.parsed, parseError: r.parseError, finishReason: r.finishReason }));

/** Item keys of the answer lines of a journal, repeats kept. */
const journalAnswers = (journal: string): string[] =>
  readFileSync(journal, 'utf8').split('\n').filter((l) => l.startsWith('{"kind":"answer"')).map((l) => (JSON.parse(l) as { row: { itemKey: string } }).row.itemKey);

let dir: string;
let server: FakeOpenAi;
let whole: RunExport;

beforeAll(async () => {
  dir = makeTempDir('run-endpoint');
  server = await startFakeOpenAi([MODEL], { answers: 'deterministic' });
  const r = await cli(runArgs(server, join(dir, 'whole.json'), '--concurrency', '4', '--json'));
  expect(r.code, r.err).toBe(0);
  expect(JSON.parse(r.out)).toMatchObject({ status: 'done', exportStatus: 'done', items: CASES, answered: CASES, errors: 0 });
  whole = readExport(join(dir, 'whole.json'));
}, LONG);

afterAll(async () => {
  await server.close();
  removeTempDirs();
});

describe('neuroeval run --endpoint', () => {
  it('sends requests a vLLM server accepts: image data URLs, the JSON schema, max_tokens and the seed', () => {
    expect(server.rejected).toEqual([]);
    const chats = server.received.filter((b) => Array.isArray(b.messages));
    expect(chats).toHaveLength(CASES);
    const images = chats.flatMap((b) => (b.messages as { content: unknown }[]).flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; image_url?: { url: string } }[]) : [])).filter((p) => p.type === 'image_url'));
    expect(images.length).toBeGreaterThan(0);
    expect(images.every((p) => /^data:image\/(png|jpeg);base64,/.test(p.image_url!.url))).toBe(true);
    expect(chats.every((b) => b.model === MODEL && Number.isInteger(b.max_tokens) && Number.isInteger(b.seed))).toBe(true);
    expect(chats.some((b) => (b.response_format as { type?: string } | undefined)?.type === 'json_schema')).toBe(true);
    expect(whole.run.config?.engines).toEqual([expect.objectContaining({ kind: 'openai', model: MODEL, baseUrl: server.baseUrl })]);
    expect(whole.responses.every((r) => r.finishReason !== 'error' && r.rawText !== '')).toBe(true);
  });

  it('two shards merged equal the unsharded run answer for answer and import into the app as one run', async () => {
    const [s1, s2] = await Promise.all([
      cli(runArgs(server, join(dir, 'shard-1.json'), '--shard', '1/2', '--concurrency', '3')),
      cli(runArgs(server, join(dir, 'shard-2.json'), '--shard', '2/2', '--concurrency', '2')),
    ]);
    expect(s1.code, s1.err).toBe(0);
    expect(s2.code, s2.err).toBe(0);
    const merged = join(dir, 'merged.json');
    const m = await cli(['merge', join(dir, 'shard-1.json'), join(dir, 'shard-2.json'), '--out', merged]);
    expect(m.code, m.err).toBe(0);
    const e = readExport(merged);
    expect(e.run.id).toBe(whole.run.id);
    expect(e.run.status).toBe('done');
    expect(answersOf(e)).toEqual(answersOf(whole));

    const db = await openDatabase({ name: `run-endpoint-${Date.now()}`, indexedDB, IDBKeyRange });
    try {
      const repos = createRepositories(db);
      await commitBundle(repos, (await prepareImport(inputFilesFrom(DEMO))).bundle!);
      expect((await checkRunImport(repos, e, 'merged.json')).unknown).toEqual([]);
      expect(await importRunExport(repos, e, 'merged.json')).toMatchObject({ runId: whole.run.id, created: true, added: CASES, status: 'done' });
      expect(await repos.runs.list()).toHaveLength(1);
      expect(await repos.responses.countByRun(whole.run.id)).toBe(CASES);
    } finally {
      db.close();
    }
  }, LONG);

  it('completes with every answer once while the server answers 429 and 500 at random', async () => {
    const flaky = await startFakeOpenAi([MODEL], { answers: 'deterministic', failureRate: 0.5, failureSeed: 11 });
    try {
      const out = join(dir, 'flaky.json');
      const r = await cli(runArgs(flaky, out, '--concurrency', '4', '--json'));
      expect(r.code, r.err).toBe(0);
      expect(flaky.injected).toContain(429);
      expect(flaky.injected).toContain(500);
      const keys = journalAnswers(`${out}.journal.jsonl`);
      expect(keys).toHaveLength(CASES);
      expect(new Set(keys).size).toBe(CASES);
      expect(flaky.answered()).toBe(CASES);
      expect(answersOf(readExport(out))).toEqual(answersOf(whole));
    } finally {
      await flaky.close();
    }
  }, LONG);

  it('stops after --max-errors items whose --retries ran out, naming the server and its last status', async () => {
    const down = await startFakeOpenAi([MODEL], { answers: 'deterministic', failureRate: 1 });
    try {
      const out = join(dir, 'down.json');
      const r = await cli([...runArgs(down, out, '--max-errors', '2'), '--retries', '1']);
      expect(r.code).toBe(1);
      // Two items, each asked twice (one retry), then the run pauses.
      expect(down.injected).toHaveLength(4);
      expect(r.err).toMatch(new RegExp(`Paused after 2 failed answers in a row; the last: The server at ${new URL(down.baseUrl).host} answered (429|500) .*\\(2 attempts; the last status was (429|500)\\)`));
      const failed = readExport(out).responses;
      expect(failed).toHaveLength(2);
      expect(failed.every((row) => row.finishReason === 'error')).toBe(true);
    } finally {
      await down.close();
    }
  }, LONG);

  it('sends the API key from the named environment variable and writes it nowhere', async () => {
    const secret = 'sk-hospital-gateway-0123456789';
    process.env.NEUROEVAL_TEST_ENDPOINT_KEY = secret;
    const keyed = await startFakeOpenAi([MODEL], { answers: 'deterministic' });
    try {
      const out = join(dir, 'keyed.json');
      const r = await cli(runArgs(keyed, out, '--api-key-env', 'NEUROEVAL_TEST_ENDPOINT_KEY', '--limit', '2'));
      expect(r.code, r.err).toBe(0);
      expect(keyed.authorizations.length).toBeGreaterThan(0);
      expect(keyed.authorizations.every((a) => a === `Bearer ${secret}`)).toBe(true);
      expect(readFileSync(out, 'utf8')).not.toContain(secret);
      expect(readFileSync(`${out}.journal.jsonl`, 'utf8')).not.toContain(secret);
    } finally {
      delete process.env.NEUROEVAL_TEST_ENDPOINT_KEY;
      await keyed.close();
    }
  }, LONG);

  it('stops at a request the server refuses, with the server\'s message, and at bad options naming them', async () => {
    const wrong = await cli(['run', '--benchmark', DEMO, '--endpoint', server.baseUrl, '--endpoint-model', 'llava', '--limit', '1', '--out', join(dir, 'wrong.json')]);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('does not serve "llava"');

    const unset = await cli(runArgs(server, join(dir, 'unset.json'), '--api-key-env', 'NEUROEVAL_TEST_UNSET_VARIABLE'));
    expect(unset.code).toBe(1);
    expect(unset.err).toContain('--api-key-env NEUROEVAL_TEST_UNSET_VARIABLE: the variable is not set or empty');
    expect(existsSync(join(dir, 'unset.json.journal.jsonl'))).toBe(false);

    const local = await cli(['run', '--benchmark', DEMO, '--model', 'self-test', '--concurrency', '2', '--out', join(dir, 'local.json')]);
    expect(local.err).toContain('--concurrency above 1 is for --endpoint models only');

    const noUrl = await cli(['run', '--benchmark', DEMO, '--model', 'self-test', '--endpoint-model', MODEL, '--out', join(dir, 'x.json')]);
    expect(noUrl.err).toContain('--endpoint-model needs --endpoint');

    const badUrl = await cli(['run', '--benchmark', DEMO, '--endpoint', 'gpu01:8000', '--endpoint-model', MODEL, '--out', join(dir, 'x.json')]);
    expect(badUrl.err).toContain('--endpoint must be');
  }, LONG);
});
