/**
 * One JSON-output setting per run: `neuroeval run` against a local server
 * that checks requests as vLLM does. The same NeuroVLM-Bench cases asked
 * under `--protocol auto` and under `--protocol neurovlm-structured` carry
 * the same `response_format` (none by default, as the benchmark's harness
 * sends none; the same strict schema with `--json-output on`), and the
 * setting is in the run's provenance and in its NeuroVLM-Bench JSONL export.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { parseRunExport } from '../../../src/core/scoring/io/run-export.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../support/fake-openai-server.ts';
import { makeTempDir, removeTempDirs } from '../../support/temp-dir.ts';

const DEMO = fileURLToPath(new URL('../../../public/demo/neuroeval-demo.zip', import.meta.url));
const MODEL = 'qwen2.5-vl-7b-instruct';
const LONG = 120_000;

async function cli(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } });
  return { code, out, err };
}

let dir: string;
let server: FakeOpenAi;

/** Runs the demo's classification (NeuroVLM-Bench) cases; returns the chat requests the server got and the export. */
async function run(name: string, ...extra: string[]) {
  const before = server.received.length;
  const out = join(dir, `${name}.json`);
  const r = await cli(['run', '--benchmark', DEMO, '--endpoint', server.baseUrl, '--endpoint-model', MODEL, '--task', 'classification', '--limit', '3', '--out', out, ...extra]);
  expect(r.code, r.err).toBe(0);
  const chats = server.received.slice(before).filter((b) => Array.isArray(b.messages));
  expect(chats.length).toBe(3);
  return { chats, out, exported: parseRunExport(readFileSync(out, 'utf8'), out) };
}

beforeAll(async () => {
  dir = makeTempDir('run-json-output');
  server = await startFakeOpenAi([MODEL], { answers: 'deterministic' });
}, LONG);

afterAll(async () => {
  await server.close();
  removeTempDirs();
});

describe('the JSON-output setting of a run', () => {
  it('by default neither auto nor the named NeuroVLM-Bench protocol sends response_format, as the benchmark harness sends none', async () => {
    const auto = await run('auto');
    const named = await run('named', '--protocol', 'neurovlm-structured');
    for (const chats of [auto.chats, named.chats]) expect(chats.map((b) => b.response_format ?? null)).toEqual([null, null, null]);
    expect(auto.exported.provenance?.jsonOutput).toEqual(expect.objectContaining({ setting: 'benchmark', byProtocol: expect.objectContaining({ 'neurovlm-structured': false, 'nmb-lesion': true }) }));
    expect(named.exported.provenance?.jsonOutput).toEqual({ setting: 'benchmark', byProtocol: { 'neurovlm-structured': false } });
    expect(server.rejected).toEqual([]);
  }, LONG);

  it('with --json-output on, auto and the named protocol send the same strict schema', async () => {
    const auto = await run('auto-on', '--json-output', 'on');
    const named = await run('named-on', '--protocol', 'neurovlm-structured', '--json-output', 'on');
    const formats = [...auto.chats, ...named.chats].map((b) => b.response_format as { type: string; json_schema: { strict: boolean; schema: unknown } });
    expect(formats.every((f) => f?.type === 'json_schema' && f.json_schema.strict === true)).toBe(true);
    expect(new Set(formats.map((f) => JSON.stringify(f))).size).toBe(1);
    expect(named.exported.provenance?.jsonOutput).toEqual({ setting: 'on', byProtocol: { 'neurovlm-structured': true } });
    expect(server.rejected).toEqual([]);
  }, LONG);

  it('the setting travels with the NeuroVLM-Bench JSONL export, line by line', async () => {
    const { out } = await run('exported', '--json-output', 'off');
    const jsonl = join(dir, 'exported.jsonl');
    const r = await cli(['export', '--format', 'neurovlm-jsonl', out, '--out', jsonl]);
    expect(r.code, r.err).toBe(0);
    const lines = readFileSync(jsonl, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { neuroeval: { jsonOutput: { setting: string } } });
    expect(lines.length).toBe(3);
    expect(lines.every((l) => l.neuroeval.jsonOutput.setting === 'off')).toBe(true);
  }, LONG);

  it('refuses an unknown setting, naming the option', async () => {
    const r = await cli(['run', '--benchmark', DEMO, '--endpoint', server.baseUrl, '--endpoint-model', MODEL, '--json-output', 'strict', '--out', join(dir, 'x.json')]);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/--json-output must be one of benchmark, on, off/);
  });
});
