/**
 * `neuroeval run --endpoint` against a server that closes answer streams
 * mid-answer or streams far past the answer budget: a cut stream is asked
 * again and the answer stored whole; when every attempt is cut, the item is
 * stored as an error naming the cut streams and counted; a runaway answer is
 * stored cut at its budget's bytes, finish reason `length`, marked truncated.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { answerByteCap } from '../../../src/core/engines/engine.ts';
import { parseRunExport, type RunExport } from '../../../src/core/scoring/io/run-export.ts';
import { startFakeOpenAi, type FakeOpenAi, type FakeOpenAiOptions } from '../../support/fake-openai-server.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

const DEMO = fileURLToPath(new URL('../../../public/demo/neuroeval-demo.zip', import.meta.url));
const MODEL = 'qwen2.5-vl-7b-instruct';
const CASES = 3;
const servers: FakeOpenAi[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  removeTempDirs();
});

async function runOn(options: FakeOpenAiOptions, ...extra: string[]): Promise<{ summary: Record<string, unknown>; exported: RunExport; server: FakeOpenAi }> {
  const server = await startFakeOpenAi([MODEL], { answers: 'deterministic', ...options });
  servers.push(server);
  const out = join(makeTempDir('run-hostile'), 'run.json');
  let text = '';
  let err = '';
  const code = await main(
    ['run', '--benchmark', DEMO, '--endpoint', server.baseUrl, '--endpoint-model', MODEL, '--protocol', 'neurovlm-structured', '--limit', String(CASES), '--out', out, '--json', ...extra],
    { out: { write: (t: string) => (text += t) }, err: { write: (t: string) => (err += t) } },
  );
  expect(code, err).toBe(0);
  return { summary: JSON.parse(text) as Record<string, unknown>, exported: parseRunExport(readFileSync(out, 'utf8'), out), server };
}

describe('streams closed mid-answer', () => {
  it('are asked again; every answer is stored whole', async () => {
    // JSON output on, so a whole answer is one JSON object and a cut one is not (the benchmark's own default sends no response_format).
    const { summary, exported, server } = await runOn({ cutStreams: { count: 2, how: 'destroy' } }, '--retries', '2', '--json-output', 'on');
    expect(server.cut()).toBe(2);
    expect(summary).toMatchObject({ status: 'done', answered: CASES, errors: 0 });
    expect(exported.responses.every((r) => r.finishReason === 'stop' && r.error == null && r.rawText.startsWith('{'))).toBe(true);
    expect(exported.responses.every((r) => !r.rawText.endsWith(',') && JSON.parse(r.rawText) !== null)).toBe(true);
  });

  it('are stored as errors naming the cut, and counted, when the retries run out', async () => {
    const { summary, exported, server } = await runOn({ cutStreams: { count: Infinity, how: 'end' } }, '--retries', '1');
    expect(server.cut()).toBe(CASES * 2);
    expect(summary).toMatchObject({ errors: CASES });
    expect(exported.responses).toHaveLength(CASES);
    for (const r of exported.responses) {
      expect(r.finishReason).toBe('error');
      expect(r.rawText).toBe('');
      expect(r.error).toBe(`The server at ${new URL(server.baseUrl).host} gave an answer stream that ended before the server finished it (2 attempts; the last status was a cut-off stream).`);
    }
  });
});

describe('a runaway answer', () => {
  it('is stored cut at its budget\'s bytes, finish reason length, marked truncated', async () => {
    const { summary, exported } = await runOn({ oversizeBytes: 4 * 1024 * 1024 }, '--max-tokens', '480');
    expect(summary).toMatchObject({ status: 'done', errors: 0 });
    for (const r of exported.responses) {
      expect(r.finishReason).toBe('length');
      expect(r.truncated).toBe(true);
      expect(new TextEncoder().encode(r.rawText).length).toBe(answerByteCap(480));
    }
  });
});
