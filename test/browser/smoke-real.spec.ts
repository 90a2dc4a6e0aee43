/**
 * `npm run smoke:real` as a user runs it: the script, headless Chromium, the
 * harness page built from the app's own modules, a model folder laid out as
 * the SmolVLM-256M catalogue entry (random-weight graphs of its real
 * architecture, test/support/catalogue-folder.ts). Real weights and a GPU are
 * not here; every other part of the path is, and so are its failure paths:
 * a missing file, the wrong layout, and a GPU that runs out of memory
 * (`--gpu-memory-limit`, on the software WebGPU adapter).
 */
import { expect, test } from '@playwright/test';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SmokeLoad, SmokeRunResult } from '../../src/smoke/types.ts';
import { PROTOCOL_IDS } from '../../src/core/protocols/registry.ts';
import { smolVlmFolder } from '../support/catalogue-folder.ts';
import { makeTempDir, removeTempDirs } from '../support/temp-dir.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

interface Outcome {
  readonly code: number;
  readonly out: string;
}

function smoke(args: readonly string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(TSX, ['scripts/smoke-real.ts', ...args], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, timeout: 170_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, out: `${stdout}\n${stderr}` });
    });
  });
}

let harness = '';
test.beforeAll(async () => {
  test.setTimeout(120_000);
  harness = join(makeTempDir('smoke-harness'), 'dist');
  const built = await smoke(['--build-harness', harness]);
  expect(built.code, built.out).toBe(0);
});
test.afterAll(() => removeTempDirs());

const folder = (name: string) => smolVlmFolder(join(makeTempDir('smoke-model'), name));

test('answers one demo question per protocol through the app engine and reports speed and JSON validity', async () => {
  test.setTimeout(180_000);
  const json = join(makeTempDir('smoke-out'), 'results.json');
  const dir = folder('SmolVLM-256M-Instruct');
  const r = await smoke(['--model', 'smolvlm-256m', '--from', dir, '--harness', harness, '--device', 'wasm', '--max-tokens', '24', '--json', json]);
  expect(r.code, r.out).toBe(0);
  expect(r.out).toContain('smoke:real OK');
  expect(r.out).toMatch(/time to first token \d+ ms · decode [\d.]+ tok\/s/);
  // WASM takes the catalogue's 8-bit decoder, says so, and names its threads and each prompt's tokens.
  expect(r.out).toContain("Weights:   fp32 vision encoder and embeddings; q8 decoder (the catalogue's choice for wasm)");
  expect(r.out).toMatch(/Loaded: {4}.*q8 decoder · \d+ WASM threads?/);
  expect(r.out).toMatch(/prompt [\d,]+ tokens: [\d,]+ text, [\d,]+ image \(1 image, \d+ tiles?\)/);

  const written = JSON.parse(readFileSync(json, 'utf8')) as { device: string; load: SmokeLoad; results: SmokeRunResult[] };
  expect(written.device).toBe('wasm');
  // The load's download progress counted every byte of the graphs and the tokenizer it read (and no more than the folder
  // holds), naming files as the folder does. Progress crosses the worker at most every 50 ms, so quick files may go unnamed.
  const sizeOf = (f: string) => statSync(join(dir, f)).size;
  const needed = ['onnx/vision_encoder.onnx', 'onnx/embed_tokens.onnx', 'onnx/decoder_model_merged_quantized.onnx', 'config.json', 'tokenizer.json'];
  const folderBytes = [...readdirSync(dir), ...readdirSync(join(dir, 'onnx')).map((f) => `onnx/${f}`)].filter((f) => f !== 'onnx').reduce((sum, f) => sum + sizeOf(f), 0);
  expect(written.load.modelBytes).toBeGreaterThanOrEqual(needed.reduce((sum, f) => sum + sizeOf(f), 0));
  expect(written.load.modelBytes).toBeLessThanOrEqual(folderBytes);
  expect(written.load.modelFiles.length).toBeGreaterThan(0);
  for (const f of written.load.modelFiles) expect(statSync(join(dir, f)).isFile(), f).toBe(true);
  expect(r.out).toMatch(/read [\d.]+ (KiB|MiB) of model files \(\d+ files\)/);
  // Every protocol asked, each through a real run whose stored answer came back.
  expect(written.results.map((x) => x.pick.protocolId).sort()).toEqual([...PROTOCOL_IDS].sort());
  for (const result of written.results) {
    expect(result.error, result.pick.protocolId).toBeNull();
    expect(result.answers.length, result.pick.protocolId).toBeGreaterThan(0);
    for (const a of result.answers) {
      expect(a.usage.completionTokens).toBeGreaterThan(0);
      expect(a.usage.ttftMs).not.toBeNull();
      // Random weights never write JSON: a JSON protocol's answer is judged, not assumed.
      expect(a.json).toBe(result.pick.expectsJson ? 'invalid' : null);
    }
  }
  expect(written.results.find((x) => x.pick.protocolId === 'neurovlm-structured')?.pick.expectsJson).toBe(true);
  expect(written.results.find((x) => x.pick.protocolId === 'open-question')?.pick.expectsJson).toBe(false);
});

test('on WebGPU it reports the peak GPU buffer memory, and a GPU too small for the model fails with what to do', async () => {
  test.setTimeout(180_000);
  const dir = folder('SmolVLM-256M-Instruct');
  const ok = await smoke(['--model', 'smolvlm-256m', '--from', dir, '--harness', harness, '--device', 'webgpu', '--protocols', 'mcq', '--max-tokens', '2']);
  expect(ok.code, ok.out).toBe(0);
  const peak = /peak GPU buffer memory: ([\d.]+) (KiB|MiB)/.exec(ok.out);
  expect(peak, ok.out).not.toBeNull();
  expect(Number(peak![1])).toBeGreaterThan(0);

  const oom = await smoke(['--model', 'smolvlm-256m', '--from', dir, '--harness', harness, '--device', 'webgpu', '--protocols', 'mcq', '--max-tokens', '2', '--gpu-memory-limit', '0.05']);
  expect(oom.code).toBe(1);
  expect(oom.out).toContain('smoke:real FAILED: Load failed');
  expect(oom.out).toContain('GPU out of memory');
  expect(oom.out).toContain('The model did not fit in GPU memory');
  expect(oom.out).toContain('try --device wasm');
});

test('a folder that lacks a file, or is laid out wrongly, is refused with the file named before anything loads', async () => {
  test.setTimeout(120_000);
  // A file the catalogue lists is missing: named, and nothing is built or loaded.
  const missing = folder('missing');
  rmSync(join(missing, 'onnx', 'embed_tokens.onnx'));
  const a = await smoke(['--model', 'smolvlm-256m', '--from', missing, '--harness', harness]);
  expect(a.code).toBe(1);
  expect(a.out).toContain('onnx/embed_tokens.onnx is missing');
  expect(a.out).toContain('neuroeval model-fetch smolvlm-256m --out <folder>');
  expect(a.out).not.toContain('Loading');

  // The ONNX graphs were copied flat, out of onnx/.
  const flat = folder('flat');
  for (const f of readdirSync(join(flat, 'onnx'))) renameSync(join(flat, 'onnx', f), join(flat, f));
  const b = await smoke(['--model', 'smolvlm-256m', '--from', flat, '--harness', harness]);
  expect(b.code).toBe(1);
  expect(b.out).toContain("onnx/decoder_model_merged_q4.onnx is missing; a file of that name is at decoder_model_merged_q4.onnx");

  // The folder one level too high.
  const parent = makeTempDir('smoke-parent');
  smolVlmFolder(join(parent, 'SmolVLM-256M-Instruct'));
  const c = await smoke(['--model', 'smolvlm-256m', '--from', parent, '--harness', harness]);
  expect(c.code).toBe(1);
  expect(c.out).toContain('config.json is one level down, in "SmolVLM-256M-Instruct/": choose that folder');

  // A WebLLM (MLC) build given for a transformers.js model, and the other way round.
  const mlc = join(makeTempDir('smoke-mlc'), 'mlc');
  mkdirSync(mlc);
  writeFileSync(join(mlc, 'mlc-chat-config.json'), '{"model_type":"phi3_v"}');
  const d = await smoke(['--model', 'smolvlm-256m', '--from', mlc, '--harness', harness]);
  expect(d.code).toBe(1);
  expect(d.out).toContain('This is a WebLLM (MLC) folder, but SmolVLM 256M Instruct');
  const e = await smoke(['--model', 'phi-3.5-vision-q4f32', '--from', folder('onnx'), '--harness', harness]);
  expect(e.code).toBe(1);
  expect(e.out).toContain('needs its MLC build');
});

test('a file the catalogue could not confirm, missing at load time, fails the load with the file named and the way out', async () => {
  test.setTimeout(120_000);
  const dir = folder('no-vision');
  // onnx/vision_encoder.onnx is marked unverified in the catalogue: the layout check lets it pass, the runtime asks for it.
  rmSync(join(dir, 'onnx', 'vision_encoder.onnx'));
  const r = await smoke(['--model', 'smolvlm-256m', '--from', dir, '--harness', harness, '--device', 'wasm', '--protocols', 'mcq']);
  expect(r.code).toBe(1);
  expect(r.out).toContain('smoke:real FAILED: Load failed');
  expect(r.out).toContain('onnx/vision_encoder.onnx');
  expect(r.out).toContain('A file the runtime asked for is not in the folder');
});
