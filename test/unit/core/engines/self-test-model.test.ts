/**
 * The generated self-test model through the real transformers.js 4.3.1 code
 * path (AutoProcessor, AutoModelForImageTextToText, generate) on
 * onnxruntime-web's wasm backend in Node: image in, tokens out. Also checks
 * that the committed files match their manifest and the generator.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSelfTestModel } from '../../../../scripts/make-self-test-model.ts';
import type { SelfTestManifest } from '../../../../scripts/self-test-model/build.ts';
import { imagesThenText, textTurn } from '../../../../src/core/chat/turn.ts';
import { AbortedError, InvalidInputError } from '../../../../src/core/errors.ts';
import { TransformersEngine } from '../../../../src/core/engines/transformers/transformers-engine.ts';
import type { TransformersRuntime } from '../../../../src/core/engines/transformers/runtime.ts';
import { TransformersVlm, type VlmGenerateInput } from '../../../../src/core/engines/transformers/vlm.ts';
import { type TokenEvent } from '../../../../src/core/engines/transformers/generation.ts';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';
import { ORT_WEB_DIST_URL, loadNodeTransformers, ort } from '../../../support/transformers-node.ts';

const MODEL_DIR = fileURLToPath(new URL('../../../../public/models/self-test/', import.meta.url));
const LOAD_TIMEOUT_MS = 30_000;
const GENERATE_TIMEOUT_MS = 15_000;
const GENERATOR_TIMEOUT_MS = 15_000;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A 40×30 RGB test card: gradients and a bright square, so resizing and splitting have something to do. */
function testCard(shift = 0): Uint8Array {
  const w = 40;
  const h = 30;
  const px = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      const inSquare = x >= 10 + shift && x < 20 + shift && y >= 8 && y < 18;
      px[i] = inSquare ? 250 : (x * 6) % 256;
      px[i + 1] = inSquare ? 250 : (y * 8) % 256;
      px[i + 2] = 128;
    }
  }
  return encodePng(px, w, h, 'rgb');
}

describe('self-test model on transformers.js + onnxruntime-web (wasm, Node)', () => {
  let runtime: TransformersRuntime;
  let vlm: TransformersVlm;
  const png = testCard();
  const ask = (over: Partial<VlmGenerateInput> = {}): VlmGenerateInput => ({
    text: 'What is in this image?',
    images: [png],
    maxTokens: 16,
    temperature: 0,
    topP: 1,
    seed: 1,
    ...over,
  });

  beforeAll(async () => {
    runtime = await loadNodeTransformers();
    vlm = await TransformersVlm.load(runtime, { source: { kind: 'folder', location: MODEL_DIR } });
  }, LOAD_TIMEOUT_MS);

  afterAll(async () => {
    await vlm?.dispose();
  });

  it('runs on the pinned onnxruntime-web build, not onnxruntime-node', () => {
    const pinned = (JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> })
      .dependencies['onnxruntime-web'];
    expect(runtime.backend).toEqual({ name: 'onnxruntime-web', version: pinned });
    expect(ort.env.versions.web).toBe(pinned);
    expect(ort.env.wasm.wasmPaths).toBe(ORT_WEB_DIST_URL);
    expect(runtime.version).toBe('4.3.1');
    const sessions = Object.entries(vlm.sessions);
    expect(sessions.map(([name]) => name).sort()).toEqual(['decoder_model_merged', 'embed_tokens', 'vision_encoder']);
    for (const [, session] of sessions) expect(session).toBeInstanceOf(ort.InferenceSession);
    expect(vlm.info).toMatchObject({ modelId: 'self-test', architecture: 'Idefics3ForConditionalGeneration', device: 'wasm' });
  });

  it(
    'answers an image and a question: tokens stream out and usage is measured',
    async () => {
      const events: TokenEvent[] = [];
      const result = await vlm.generate(ask(), (e) => events.push(e));

      expect(['length', 'stop']).toContain(result.finishReason);
      const { usage } = result;
      expect(usage.completionTokens).toBeGreaterThan(0);
      expect(usage.completionTokens).toBeLessThanOrEqual(16);
      // 40×30 → 64×48 → two-by-two frames of 32 px plus the global frame, 16 image tokens each, plus the text.
      expect(usage.promptTokens).toBeGreaterThan(5 * 16);
      expect(Number.isFinite(usage.ttftMs)).toBe(true);
      expect(Number.isFinite(usage.prefillTps)).toBe(true);
      if (usage.completionTokens! > 1) expect(Number.isFinite(usage.decodeTps)).toBe(true);
      expect(Number.isFinite(usage.totalMs)).toBe(true);
      expect(usage.totalMs).toBeGreaterThanOrEqual(usage.ttftMs!);

      expect(events.map((e) => e.index)).toEqual([...Array(usage.completionTokens).keys()]);
      expect(events.every((e, i) => i === 0 || e.elapsedMs >= events[i - 1]!.elapsedMs)).toBe(true);
      expect(result.text.length).toBeGreaterThan(0);
      expect(result.text.startsWith(events.map((e) => e.text).join(''))).toBe(true);
    },
    GENERATE_TIMEOUT_MS,
  );

  it(
    'is reproducible: the same request with temperature 0 gives the same text',
    async () => {
      const a = await vlm.generate(ask({ seed: 3 }));
      const b = await vlm.generate(ask({ seed: 3 }));
      expect(b.text).toBe(a.text);
      expect(b.usage.completionTokens).toBe(a.usage.completionTokens);
    },
    GENERATE_TIMEOUT_MS,
  );

  it(
    'samples reproducibly with a seed (temperature and top-p)',
    async () => {
      const sampled = (seed: number) => vlm.generate(ask({ temperature: 0.9, topP: 0.8, seed, maxTokens: 24 }));
      const a = await sampled(11);
      const b = await sampled(11);
      expect(b.text).toBe(a.text);
      const others = await Promise.all([12, 13, 14].map(async (seed) => (await sampled(seed)).text));
      expect(others.some((t) => t !== a.text)).toBe(true);
    },
    GENERATE_TIMEOUT_MS,
  );

  it(
    'looks at the image: a different image changes the answer',
    async () => {
      const a = await vlm.generate(ask());
      const b = await vlm.generate(ask({ images: [testCard(15)] }));
      const c = await vlm.generate(ask({ images: [png, testCard(15)] }));
      expect(b.text).not.toBe(a.text);
      // One more 2×2-split image: 5 frames × 16 <image>, 4 <row_r_col_c>, 6 <fake_token_around_image>, <global-img>, 3 newlines.
      expect(c.usage.promptTokens! - a.usage.promptTokens!).toBe(5 * 16 + 4 + 6 + 1 + 3);
    },
    GENERATE_TIMEOUT_MS,
  );

  it(
    'stops on abort mid-generation and returns the tokens so far with finishReason "abort"',
    async () => {
      const controller = new AbortController();
      const result = await vlm.generate(ask({ maxTokens: 64, signal: controller.signal }), (e) => {
        if (e.index === 2) controller.abort();
      });
      expect(result.finishReason).toBe('abort');
      expect(result.usage.completionTokens).toBe(3);
    },
    GENERATE_TIMEOUT_MS,
  );

  it(
    'sees an abort that arrives as a later task, as a message to a worker would',
    async () => {
      const controller = new AbortController();
      const result = await vlm.generate(ask({ maxTokens: 256, signal: controller.signal }), (e) => {
        if (e.index === 0) setTimeout(() => controller.abort(), 0);
      });
      expect(result.finishReason).toBe('abort');
      expect(result.usage.completionTokens).toBeLessThan(256);
    },
    GENERATE_TIMEOUT_MS,
  );

  it('returns at once for a signal that has already fired', async () => {
    const result = await vlm.generate(ask({ signal: AbortSignal.abort() }));
    expect(result).toMatchObject({ text: '', finishReason: 'abort', usage: { completionTokens: 0, ttftMs: null } });
  });

  it('reports a missing model folder and a cancelled load as typed errors', async () => {
    const missing = TransformersVlm.load(runtime, { source: { kind: 'folder', location: join(MODEL_DIR, '..', 'no-such-model') } });
    await expect(missing).rejects.toMatchObject({ name: 'EngineError', engineCode: 'ENGINE_MODEL_MISSING' });
    const cancelled = TransformersVlm.load(runtime, { source: { kind: 'folder', location: MODEL_DIR }, signal: AbortSignal.abort() });
    await expect(cancelled).rejects.toBeInstanceOf(AbortedError);
  });

  it('rejects sampling parameters it cannot honour', async () => {
    await expect(vlm.generate(ask({ maxTokens: 0 }))).rejects.toBeInstanceOf(InvalidInputError);
    await expect(vlm.generate(ask({ topP: 0 }))).rejects.toBeInstanceOf(InvalidInputError);
    await expect(vlm.generate(ask({ temperature: -1 }))).rejects.toBeInstanceOf(InvalidInputError);
    await expect(vlm.generate(ask({ images: [new Uint8Array([1, 2, 3])] }))).rejects.toBeInstanceOf(InvalidInputError);
  });

  it(
    'works behind the Engine interface, with multi-turn chats and text-only turns',
    async () => {
      const engine = new TransformersEngine({
        runtime: { wasmPaths: ORT_WEB_DIST_URL, ort },
        source: { kind: 'folder', location: MODEL_DIR },
        modelId: 'neuroeval/self-test',
      });
      const info = await engine.load();
      expect(info).toMatchObject({ runtime: 'transformers', modelId: 'neuroeval/self-test', device: 'wasm' });
      expect(info.runtimeVersion).toContain('onnxruntime-web');
      const pieces: string[] = [];
      const result = await engine.generate(
        {
          messages: [
            textTurn('system', 'Answer briefly.'),
            imagesThenText([{ bytes: png, mime: 'image/png' }], 'Describe it.'),
            textTurn('assistant', 'A square.'),
            textTurn('user', 'What colour?'),
          ],
          sampling: { temperature: 0, topP: 1, seed: 0, maxTokens: 8 },
        },
        { onToken: (t) => pieces.push(t) },
      );
      expect(result.usage.completionTokens).toBeGreaterThan(0);
      expect(result.text.startsWith(pieces.join(''))).toBe(true);
      await engine.unload();
      await expect(engine.generate({ messages: [], sampling: { temperature: 0, topP: 1, seed: 0, maxTokens: 1 } })).rejects.toThrow(/Load the model/);
    },
    LOAD_TIMEOUT_MS,
  );
});

describe('self-test model files', () => {
  const manifestBytes = readFileSync(join(MODEL_DIR, 'manifest.json'));
  const manifest = JSON.parse(manifestBytes.toString('utf8')) as SelfTestManifest;

  function listFiles(dir: string): string[] {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((p) => statSync(join(dir, p)).isFile())
      .map((p) => relative(dir, join(dir, p)).split('\\').join('/'))
      .sort();
  }

  it('has a manifest listing every file with its size and SHA-256', () => {
    expect(manifest.name).toBe('Self-test (random weights)');
    expect(manifest.note).toMatch(/meaningless/);
    expect(listFiles(MODEL_DIR)).toEqual([...manifest.files.map((f) => f.path), 'manifest.json'].sort());
    for (const entry of manifest.files) {
      const bytes = readFileSync(join(MODEL_DIR, entry.path));
      expect({ path: entry.path, bytes: bytes.length, sha256: sha256(bytes) }).toEqual(entry);
    }
    const total = manifest.files.reduce((n, f) => n + f.bytes, 0);
    expect(total).toBeLessThan(1024 * 1024);
  });

  it(
    'is what the generator writes, byte for byte (npm run self-test-model)',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'neuroeval-self-test-'));
      try {
        writeSelfTestModel(dir);
        expect(readFileSync(join(dir, 'manifest.json')).equals(manifestBytes)).toBe(true);
        for (const entry of manifest.files) expect(sha256(readFileSync(join(dir, entry.path))), entry.path).toBe(entry.sha256);
        expect(listFiles(dir)).toEqual(listFiles(MODEL_DIR));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    GENERATOR_TIMEOUT_MS,
  );
});
