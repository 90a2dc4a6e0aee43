/**
 * The generated self-test text LLM (Llama layout) and encoder (BERT layout)
 * through the real transformers.js 4.3.1 code (AutoTokenizer,
 * AutoModelForCausalLM / AutoModel, generate) on onnxruntime-web's wasm
 * backend in Node; the transformers worker's API driven directly; and the
 * committed files against their manifests and the generator.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SELF_TEST_MODELS, writeModelFiles } from '../../../../scripts/make-self-test-model.ts';
import type { SelfTestManifest } from '../../../../scripts/self-test-model/build.ts';
import { imagesThenText, textTurn } from '../../../../src/core/chat/turn.ts';
import type { ChatTurn } from '../../../../src/core/engines/engine.ts';
import { TransformersEmbedder, cosine } from '../../../../src/core/engines/transformers/embedder.ts';
import type { TransformersRuntime } from '../../../../src/core/engines/transformers/runtime.ts';
import { TransformersTextLlm, type TextMessage, type TextSampling } from '../../../../src/core/engines/transformers/text-llm.ts';
import { TransformersEngine } from '../../../../src/core/engines/transformers/transformers-engine.ts';
import type { TokenEvent } from '../../../../src/core/engines/transformers/generation.ts';
import { AbortedError, InvalidInputError } from '../../../../src/core/errors.ts';
import type { CallContext } from '../../../../src/core/rpc/protocol.ts';
import type { Progress } from '../../../../src/core/model/progress.ts';
import type { TransformersApi, TransformersLoadInput } from '../../../../workers/transformers.worker.ts';
import { ORT_WEB_DIST_URL, loadNodeTransformers, ort } from '../../../support/transformers-node.ts';

const modelDir = (id: string) => fileURLToPath(new URL(`../../../../public/models/${id}/`, import.meta.url));
const TEXT_DIR = modelDir('self-test-text');
const EMBED_DIR = modelDir('self-test-embed');
const TIMEOUT_MS = 30_000;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const chat: TextMessage[] = [
  { role: 'system', text: 'You are a strict judge. Answer yes or no.' },
  { role: 'user', text: 'Reference: a left frontal lesion. Answer: a lesion in the left frontal lobe. Is the answer correct?' },
];
/** The same chat as an engine request's turns (`GenerateRequest.messages`). */
const chatTurns: ChatTurn[] = chat.map((m) => textTurn(m.role, m.text));
const greedy = (over: Partial<TextSampling> = {}): TextSampling => ({ maxTokens: 16, temperature: 0, topP: 1, seed: 1, ...over });

let runtime: TransformersRuntime;
beforeAll(async () => {
  runtime = await loadNodeTransformers();
}, TIMEOUT_MS);

describe('self-test text LLM on transformers.js + onnxruntime-web (wasm, Node)', () => {
  let llm: TransformersTextLlm;
  beforeAll(async () => {
    llm = await TransformersTextLlm.load(runtime, { source: { kind: 'folder', location: TEXT_DIR } });
  }, TIMEOUT_MS);
  afterAll(async () => {
    await llm?.dispose();
  });

  it('loads as a Llama causal LM with one session on the pinned onnxruntime-web', () => {
    expect(llm.info).toMatchObject({ modelId: 'self-test-text', architecture: 'LlamaForCausalLM', device: 'wasm' });
    expect(llm.info.runtimeVersion).toContain('onnxruntime-web');
    expect(Object.keys(llm.sessions)).toEqual(['model']);
    expect(llm.sessions.model).toBeInstanceOf(ort.InferenceSession);
  });

  it('answers a chat through its chat template: tokens stream out and usage is measured', async () => {
    const events: TokenEvent[] = [];
    const result = await llm.generate(chat, greedy(), (e) => events.push(e));
    expect(['length', 'stop']).toContain(result.finishReason);
    const { usage } = result;
    expect(usage.completionTokens).toBeGreaterThan(0);
    expect(usage.completionTokens).toBeLessThanOrEqual(16);
    expect(Number.isFinite(usage.ttftMs)).toBe(true);
    expect(Number.isFinite(usage.prefillTps)).toBe(true);
    if (usage.completionTokens! > 1) expect(Number.isFinite(usage.decodeTps)).toBe(true);
    expect(events.map((e) => e.index)).toEqual([...Array(usage.completionTokens).keys()]);
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.text.startsWith(events.map((e) => e.text).join(''))).toBe(true);

    // ChatML: each turn is <|im_start|>role\n…<|im_end|>\n, so dropping the system turn drops exactly its tokens.
    const userOnly = await llm.generate(chat.slice(1), greedy({ maxTokens: 1 }));
    const systemTurn = `<|im_start|>system\n${chat[0]!.text}<|im_end|>\n`;
    const tokenizer = await runtime.lib.AutoTokenizer.from_pretrained('self-test-text');
    expect(usage.promptTokens! - userOnly.usage.promptTokens!).toBe(tokenizer.encode(systemTurn, { add_special_tokens: false }).length);
  });

  it('is reproducible: greedy gives the same text, a seed the same sample, other seeds other samples', async () => {
    const a = await llm.generate(chat, greedy({ seed: 3 }));
    const b = await llm.generate(chat, greedy({ seed: 4 }));
    expect(b.text).toBe(a.text);
    const sampled = (seed: number) => llm.generate(chat, { maxTokens: 24, temperature: 0.9, topP: 0.8, seed });
    const s = await sampled(11);
    expect((await sampled(11)).text).toBe(s.text);
    const others = await Promise.all([12, 13, 14].map(async (seed) => (await sampled(seed)).text));
    expect(others.some((t) => t !== s.text)).toBe(true);
  });

  it('stops on abort: mid-generation, from a later task, or before it starts', async () => {
    const now = new AbortController();
    const mid = await llm.generate(chat, greedy({ maxTokens: 64, signal: now.signal }), (e) => e.index === 2 && now.abort());
    expect(mid.finishReason).toBe('abort');
    expect(mid.usage.completionTokens).toBe(3);

    const later = new AbortController();
    const task = await llm.generate(chat, greedy({ maxTokens: 256, signal: later.signal }), (e) => e.index === 0 && setTimeout(() => later.abort(), 0));
    expect(task.finishReason).toBe('abort');
    expect(task.usage.completionTokens).toBeLessThan(256);

    const before = await llm.generate(chat, greedy({ signal: AbortSignal.abort() }));
    expect(before).toMatchObject({ text: '', finishReason: 'abort', usage: { completionTokens: 0, ttftMs: null } });
  });

  it('rejects what it cannot honour, and reports missing or cancelled loads as typed errors', async () => {
    await expect(llm.generate(chat, greedy({ maxTokens: 0 }))).rejects.toBeInstanceOf(InvalidInputError);
    await expect(llm.generate(chat, greedy({ topP: 1.5 }))).rejects.toBeInstanceOf(InvalidInputError);
    await expect(llm.generate([], greedy())).rejects.toBeInstanceOf(InvalidInputError);
    const missing = TransformersTextLlm.load(runtime, { source: { kind: 'folder', location: join(TEXT_DIR, '..', 'no-such-model') } });
    await expect(missing).rejects.toMatchObject({ name: 'EngineError', engineCode: 'ENGINE_MODEL_MISSING' });
    const cancelled = TransformersTextLlm.load(runtime, { source: { kind: 'folder', location: TEXT_DIR }, signal: AbortSignal.abort() });
    await expect(cancelled).rejects.toBeInstanceOf(AbortedError);
  });

  it('works behind the Engine interface with task "text-generation", and refuses images', async () => {
    const engine = new TransformersEngine({
      runtime: { wasmPaths: ORT_WEB_DIST_URL, ort },
      source: { kind: 'folder', location: TEXT_DIR },
      task: 'text-generation',
      modelId: 'neuroeval/self-test-text',
    });
    expect(await engine.load()).toMatchObject({ runtime: 'transformers', modelId: 'neuroeval/self-test-text', device: 'wasm' });
    const sampling = { temperature: 0, topP: 1, seed: 0, maxTokens: 8 };
    const pieces: string[] = [];
    const result = await engine.generate({ messages: chatTurns, sampling }, { onToken: (t) => pieces.push(t) });
    expect(result.usage.completionTokens).toBeGreaterThan(0);
    expect(result.text.startsWith(pieces.join(''))).toBe(true);
    const withImage = { messages: [imagesThenText([{ bytes: new Uint8Array([1]), mime: 'image/png' }], 'What is this?')], sampling };
    await expect(engine.generate(withImage)).rejects.toBeInstanceOf(InvalidInputError);
    await engine.unload();
    await expect(engine.generate({ messages: chatTurns, sampling })).rejects.toThrow(/Load the model/);
  });
});

describe('self-test encoder on transformers.js + onnxruntime-web (wasm, Node)', () => {
  let embedder: TransformersEmbedder;
  beforeAll(async () => {
    embedder = await TransformersEmbedder.load(runtime, { source: { kind: 'folder', location: EMBED_DIR } });
  }, TIMEOUT_MS);
  afterAll(async () => {
    await embedder?.dispose();
  });
  const texts = ['A lesion in the left frontal lobe.', 'Left frontal lobe lesion', 'No abnormality: a normal brain MRI.'];

  it('loads as a BERT encoder and reports its id, size and input limit', () => {
    expect(embedder.info).toMatchObject({ modelId: 'self-test-embed', architecture: 'BertModel', device: 'wasm', dimensions: 32, maxTokens: 128 });
    expect(embedder.sessions.model).toBeInstanceOf(ort.InferenceSession);
  });

  it('returns normalised sentence vectors: a text matches itself, different texts less', async () => {
    const [a, b, c, again] = await embedder.sentenceEmbeddings([...texts, texts[0]!], { pooling: 'mean', normalize: true });
    for (const v of [a, b, c]) {
      expect(v).toHaveLength(32);
      expect(norm(v!)).toBeCloseTo(1, 5);
    }
    expect(cosine(a!, again!)).toBeCloseTo(1, 5);
    expect(cosine(a!, b!)).toBeLessThan(0.999);
    expect(cosine(a!, c!)).toBeLessThan(0.999);
    expect(await embedder.sentenceEmbeddings([], { pooling: 'mean', normalize: true })).toEqual([]);
  });

  it('pools by mean or [CLS], normalises only when asked, and ignores padding (batch size does not matter)', async () => {
    const raw = await embedder.sentenceEmbeddings(texts, { pooling: 'mean', normalize: false });
    const cls = await embedder.sentenceEmbeddings(texts, { pooling: 'cls', normalize: true });
    expect(raw.some((v) => Math.abs(norm(v) - 1) > 1e-3)).toBe(true);
    expect(cosine(raw[0]!, cls[0]!)).toBeLessThan(0.999);
    const oneByOne = await embedder.sentenceEmbeddings(texts, { pooling: 'mean', normalize: false, batchSize: 1 });
    oneByOne.forEach((v, i) => v.forEach((x, k) => expect(x).toBeCloseTo(raw[i]![k]!, 4)));
  });

  it('gives contextual per-token vectors without special tokens, truncating long texts', async () => {
    const { tokens, vectors, truncated } = await embedder.tokenEmbeddings('Hyperintense lesions in the brainstem, T2.');
    expect(tokens).toEqual(['hyperintense', 'lesion', '##s', 'in', 'the', 'brainstem', ',', 't2', '.']);
    expect(truncated).toBe(false);
    expect(vectors).toHaveLength(tokens.length);
    for (const v of vectors) expect(norm(v)).toBeCloseTo(1, 5);
    // The same token in another sentence gets another vector: the encoder attends to its context.
    const other = await embedder.tokenEmbeddings('the');
    expect(other.tokens).toEqual(['the']);
    expect(cosine(other.vectors[0]!, vectors[4]!)).toBeLessThan(0.999);

    const long = await embedder.tokenEmbeddings('word '.repeat(100)); // w ##o ##r ##d: 400 tokens
    expect(long.truncated).toBe(true);
    expect(long.tokens).toHaveLength(128 - 2); // [CLS] and [SEP] kept, then left out
  });

  it('stops between batches on abort and refuses work after unload', async () => {
    await expect(embedder.sentenceEmbeddings(texts, { pooling: 'mean', normalize: true, signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortedError);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 0);
    const many = Array.from({ length: 200 }, (_, i) => `case ${i}: a small lesion`);
    await expect(embedder.sentenceEmbeddings(many, { pooling: 'mean', normalize: true, batchSize: 2, signal: controller.signal })).rejects.toBeInstanceOf(AbortedError);
    const spare = await TransformersEmbedder.load(runtime, { source: { kind: 'folder', location: EMBED_DIR } });
    await spare.dispose();
    await expect(spare.tokenEmbeddings('x')).rejects.toMatchObject({ engineCode: 'ENGINE_NOT_LOADED' });
  });
});

describe('the transformers worker API (driven in Node)', () => {
  let api: TransformersApi;
  const ctx = (signal: AbortSignal = new AbortController().signal, onProgress?: (p: Progress) => void): CallContext => ({ signal, progress: (p) => onProgress?.(p) });
  const text: TransformersLoadInput = { source: { kind: 'folder', location: TEXT_DIR }, device: 'wasm', task: 'text-generation', modelId: 'neuroeval/self-test-text' };
  const encoder: TransformersLoadInput = { source: { kind: 'folder', location: EMBED_DIR }, device: 'wasm', task: 'feature-extraction', modelId: 'neuroeval/self-test-embed' };

  beforeAll(async () => {
    // The worker module exposes itself over Comlink on import; give it a worker-like global scope.
    vi.stubGlobal('self', { location: { href: 'file:///' }, crossOriginIsolated: false });
    vi.stubGlobal('addEventListener', () => {});
    api = (await import('../../../../workers/transformers.worker.ts')).transformersApi;
  }, TIMEOUT_MS);
  afterAll(async () => {
    await api?.unload(undefined);
    vi.unstubAllGlobals();
  });

  it('holds a text LLM and an encoder side by side and reports the encoder id with every result', async () => {
    expect(await api.load(text, ctx())).toMatchObject({ task: 'text-generation', architecture: 'LlamaForCausalLM', modelId: 'neuroeval/self-test-text' });
    const info = await api.load(encoder, ctx());
    expect(info).toMatchObject({ task: 'feature-extraction', architecture: 'BertModel', dimensions: 32, maxTokens: 128 });
    expect((await api.load(encoder, ctx())).loadMs).toBe(0);

    const progress: Progress[] = [];
    const embedded = await api.embed({ texts: Array.from({ length: 20 }, (_, i) => `text ${i}`), pooling: 'mean', normalize: true, model: encoder }, ctx(undefined, (p) => progress.push(p)));
    expect(embedded).toMatchObject({ modelId: 'neuroeval/self-test-embed', dimensions: 32 });
    expect(embedded.vectors).toHaveLength(20);
    expect(progress.map((p) => p.done)).toEqual([16, 20]);
    const tokens = await api.tokenEmbed({ text: 'Left lobe.' }, ctx());
    expect(tokens).toMatchObject({ modelId: 'neuroeval/self-test-embed', tokens: ['left', 'lobe', '.'], truncated: false });

    // The text LLM is still loaded: generating does not reload it.
    const answer = await api.generate({ request: { messages: chatTurns, sampling: { temperature: 0, topP: 1, seed: 0, maxTokens: 4 } }, model: text }, ctx());
    expect(answer.usage.completionTokens).toBeGreaterThan(0);
    expect((await api.info())?.modelId).toBe('neuroeval/self-test-text');
    expect((await api.encoderInfo())?.modelId).toBe('neuroeval/self-test-embed');
  });

  it('refuses to embed with a generator or generate with an encoder, and unloads one slot at a time', async () => {
    await expect(api.embed({ texts: ['x'], pooling: 'mean', normalize: true, model: text }, ctx())).rejects.toMatchObject({ engineCode: 'ENGINE_UNSUPPORTED' });
    const request = { messages: chatTurns, sampling: { temperature: 0, topP: 1, seed: 0, maxTokens: 2 } };
    await expect(api.generate({ request, model: encoder }, ctx())).rejects.toMatchObject({ engineCode: 'ENGINE_UNSUPPORTED' });
    await api.unload({ model: encoder });
    expect(await api.encoderInfo()).toBeNull();
    expect(await api.info()).not.toBeNull();
    await expect(api.tokenEmbed({ text: 'x' }, ctx())).rejects.toMatchObject({ engineCode: 'ENGINE_NOT_LOADED' });
  });

  it('returns the tokens so far with finishReason "abort" when a generate is cancelled', async () => {
    const controller = new AbortController();
    const request = { messages: chatTurns, sampling: { temperature: 0, topP: 1, seed: 0, maxTokens: 200 } };
    const result = await api.generate({ request, model: text }, ctx(controller.signal, (p) => p.done === 2 && controller.abort()));
    expect(result.finishReason).toBe('abort');
    expect(result.usage.completionTokens).toBeLessThan(200);
  });
});

describe('self-test text and encoder model files', () => {
  function listFiles(dir: string): string[] {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((p) => statSync(join(dir, p)).isFile())
      .map((p) => relative(dir, join(dir, p)).split('\\').join('/'))
      .sort();
  }

  for (const [id, name, architecture] of [
    ['self-test-text', 'Self-test text model (random weights)', 'LlamaForCausalLM'],
    ['self-test-embed', 'Self-test encoder (random weights)', 'BertModel'],
  ] as const) {
    it(`${id}: the manifest lists every file with its size and SHA-256, and the generator writes the same bytes`, () => {
      const dir = modelDir(id);
      const manifestBytes = readFileSync(join(dir, 'manifest.json'));
      const manifest = JSON.parse(manifestBytes.toString('utf8')) as SelfTestManifest;
      expect(manifest).toMatchObject({ name, modelId: id, architecture });
      expect(manifest.note).toMatch(/random weights.*meaningless/i);
      expect(readFileSync(join(dir, 'README.md'), 'utf8')).toMatch(/Random weights/);
      expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).neuroeval.note).toMatch(/meaningless/);
      expect(listFiles(dir)).toEqual([...manifest.files.map((f) => f.path), 'manifest.json'].sort());
      for (const entry of manifest.files) {
        const bytes = readFileSync(join(dir, entry.path));
        expect({ path: entry.path, bytes: bytes.length, sha256: sha256(bytes) }).toEqual(entry);
      }
      expect(manifest.files.reduce((n, f) => n + f.bytes, 0)).toBeLessThan(300 * 1024);

      const out = mkdtempSync(join(tmpdir(), `neuroeval-${id}-`));
      try {
        writeModelFiles(out, SELF_TEST_MODELS[id]!());
        expect(readFileSync(join(out, 'manifest.json')).equals(manifestBytes)).toBe(true);
        expect(listFiles(out)).toEqual(listFiles(dir));
        for (const entry of manifest.files) expect(sha256(readFileSync(join(out, entry.path))), entry.path).toBe(entry.sha256);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });
  }
});
