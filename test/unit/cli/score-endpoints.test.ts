/**
 * `neuroeval score` with a judge and an encoder served by a local
 * OpenAI-compatible server: a Neural-MedBench run (differential diagnoses and
 * rationales, answered by the same server through `neuroeval run`) is scored
 * with `--judge-endpoint` and `--encoder-endpoint`, then scored again: the
 * second time every judge verdict and every vector comes from the cache file
 * beside the run, the server is asked nothing, the figures are the same, and
 * the command says how many were reused.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../support/fake-openai-server.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

const DEMO = fileURLToPath(new URL('../../../public/demo/neuroeval-demo.zip', import.meta.url));
const MODEL = 'qwen2.5-vl-7b-instruct';
const JUDGE = 'qwen2.5-7b-instruct';
const EMBED = 'bge-small-en';
const LONG = 180_000;

async function cli(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const code = await main(args, { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } });
    return { code, out, err };
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}

interface Scored {
  run: { config: { judge: string; encoder: string }; summary: { judgeCalls: number; judgeReused: number; arms: { key: string; metrics: { metric: string; mean: number; encoder?: string; sources: Record<string, number> }[] }[] } };
  cache: { file: string; judgeAsked: number; judgeReused: number; vectorsComputed: number; vectorsReused: number };
}

let dir: string;
let server: FakeOpenAi;
let runFile: string;

beforeAll(async () => {
  dir = makeTempDir('score-endpoints');
  server = await startFakeOpenAi([MODEL, JUDGE, EMBED], { answers: 'deterministic' });
  runFile = join(dir, 'nmb-run.json');
  const r = await cli(['run', '--benchmark', DEMO, '--endpoint', server.baseUrl, '--endpoint-model', MODEL, '--task', 'differential-diagnosis,rationale-generation', '--out', runFile]);
  expect(r.code, r.err).toBe(0);
}, LONG);

afterAll(async () => {
  await server.close();
  removeTempDirs();
});

const scoreArgs = (): string[] => [
  'score', runFile, '--json',
  '--judge-endpoint', server.baseUrl, '--judge-model', JUDGE,
  '--encoder-endpoint', server.baseUrl, '--encoder-model', EMBED,
  '--api-key-env', 'NEUROEVAL_TEST_SCORING_KEY', '--retries', '2', '--timeout', '30',
];

describe('neuroeval score with an endpoint judge and encoder', () => {
  let first: Scored;
  it('scores a Neural-MedBench run with both, keeping their answers in a cache file beside the run', async () => {
    const chatsBefore = server.answered();
    const r = await cli(scoreArgs(), { NEUROEVAL_TEST_SCORING_KEY: 'sk-local-test' });
    expect(r.code, r.err).toBe(0);
    first = JSON.parse(r.out) as Scored;
    expect(first.run.config.judge).toBe(`${JUDGE} @ ${new URL(server.baseUrl).host}`);
    expect(first.run.config.encoder).toBe(`${EMBED} @ ${new URL(server.baseUrl).host}`);
    // The judge was asked through the server, with the key, and its verdicts decided values.
    expect(first.cache.judgeAsked).toBeGreaterThan(0);
    expect(server.answered() - chatsBefore).toBe(first.cache.judgeAsked);
    expect(server.authorizations.at(-1)).toBe('Bearer sk-local-test');
    expect(first.run.summary.arms.some((a) => a.metrics.some((m) => (m.sources.judge ?? 0) > 0))).toBe(true);
    // The encoder gave sentence vectors: cosine is scored by it.
    expect(first.cache.vectorsComputed).toBeGreaterThan(0);
    expect(server.embedded.length).toBe(first.cache.vectorsComputed);
    expect(first.run.summary.arms.some((a) => a.metrics.some((m) => m.metric === 'cosine' && Number.isFinite(m.mean) && m.encoder === first.run.config.encoder))).toBe(true);
    expect(first.cache.file).toBe(`${runFile}.scoring-cache.jsonl`);
    expect(existsSync(first.cache.file)).toBe(true);
  }, LONG);

  it('re-scores with every verdict and vector from the cache: the server is asked nothing, the figures are the same', async () => {
    const chats = server.answered();
    const embedded = server.embedded.length;
    const r = await cli(scoreArgs(), { NEUROEVAL_TEST_SCORING_KEY: 'sk-local-test' });
    expect(r.code, r.err).toBe(0);
    const again = JSON.parse(r.out) as Scored;
    expect(server.answered()).toBe(chats);
    expect(server.embedded.length).toBe(embedded);
    expect(again.cache).toEqual({ ...first.cache, judgeAsked: 0, judgeReused: first.cache.judgeAsked + first.cache.judgeReused, vectorsComputed: 0, vectorsReused: first.cache.vectorsComputed + first.cache.vectorsReused });
    expect(again.run.summary.arms).toEqual(first.run.summary.arms);
    // Without --json the report says it in words.
    const words = await cli(scoreArgs().filter((a) => a !== '--json'), { NEUROEVAL_TEST_SCORING_KEY: 'sk-local-test' });
    expect(words.code, words.err).toBe(0);
    expect(words.out).toContain(`Cache ${first.cache.file}: judge ${again.cache.judgeReused} of ${again.cache.judgeReused} verdicts reused from the cache (0 asked); encoder ${again.cache.vectorsReused} of ${again.cache.vectorsReused} vectors reused (0 computed).`);
    expect(server.answered()).toBe(chats);
  }, LONG);

  it('refuses a cache file it cannot read, naming the line, and leaves it as it was', async () => {
    const bad = join(dir, 'bad-cache.jsonl');
    writeFileSync(bad, '{"key":"a","value":{"kind":"reply","raw":"x"}}\nnot json\n');
    const r = await cli([...scoreArgs(), '--cache', bad], { NEUROEVAL_TEST_SCORING_KEY: 'sk-local-test' });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${bad}:2: not a scoring-cache line`);
    expect(readFileSync(bad, 'utf8')).toBe('{"key":"a","value":{"kind":"reply","raw":"x"}}\nnot json\n');
  }, LONG);
});
