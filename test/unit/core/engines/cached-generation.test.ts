/**
 * The cached decoder (shared prefix kept, several requests per decode step)
 * on the bundled demo-trained model, through the real transformers.js and
 * onnxruntime-web (wasm) code path in Node: its greedy answers to
 * NeuroVLM-Bench requests, zero-shot and few-shot (exemplars with their
 * images in the prefix), are exactly those of transformers.js' own
 * `generate` one request at a time; the prefix is computed once and later
 * requests compute only their own tokens; the prompt's text and image
 * tokens are reported; an abort mid-batch returns what each row had. The
 * same for a text model (the self-test judge) with its system turn kept.
 * Each with the decoder file as published, edited to give its new keys and
 * values, and edited with its attention split (then sampled requests are
 * drawn here too, and must draw what `generate` draws for their seed).
 */
import { cpSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signatures, sharedPrefix, type PromptPrefix } from '../../../../src/core/chat/prefix.ts';
import { mapTurnImages, textTurn } from '../../../../src/core/chat/turn.ts';
import type { DemoCase } from '../../../../src/core/demo/case-kit.ts';
import { DEMO_IMAGE_SIZE, drawnCases, renderSlice } from '../../../../src/core/demo/index.ts';
import type { GenerateResult } from '../../../../src/core/engines/engine.ts';
import { imageSpans, sharedLength } from '../../../../src/core/engines/transformers/cached-generation.ts';
import { TransformersEngine } from '../../../../src/core/engines/transformers/transformers-engine.ts';
import { TransformersVlm, type VlmMessage } from '../../../../src/core/engines/transformers/vlm.ts';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';
import { neuroVlmProtocol } from '../../../../src/core/protocols/neurovlm/protocol.ts';
import type { ImageRef } from '../../../../src/core/protocols/types.ts';
import { ORT_WEB_DIST_URL, loadNodeTransformers, ort } from '../../../support/transformers-node.ts';
import { exposeNewKv } from '../../../../src/core/engines/transformers/decoder-graph.ts';
import { makeTempDir, removeTempDirs } from '../../../support/temp-dir.ts';
import { startServer, type StaticServer } from '../../../../scripts/serve.mjs';

const MODEL_DIR = fileURLToPath(new URL('../../../../public/models/demo-trained/', import.meta.url));
const GREEDY = { maxTokens: 96, temperature: 0, topP: 1, seed: 1 } as const;

const pngOf = (c: DemoCase) => encodePng(renderSlice(c.renders[0]!.slice, c.renders[0]!.sequence), DEMO_IMAGE_SIZE, DEMO_IMAGE_SIZE, 'gray');

/** NeuroVLM-Bench requests for `cases`, each image resolved to its case's PNG; few-shot with `exemplars`. */
async function requests(cases: readonly DemoCase[], exemplars: readonly DemoCase[] = []): Promise<VlmMessage[][]> {
  const byId = new Map([...cases, ...exemplars].map((c) => [c.case.id, pngOf(c)]));
  return Promise.all(
    cases.map(async (c) => {
      const built = neuroVlmProtocol.buildRequest(c.case, c.case.questions[0]!, exemplars.length ? { fewShot: exemplars.map((e) => e.case) } : {});
      return Promise.all(built.messages.map((m) => mapTurnImages(m, (ref: ImageRef) => ({ bytes: byId.get(ref.caseId)! }))));
    }),
  );
}

/** The prefix the runner would name for these requests (images identified by the case they show). */
function prefixOf(all: readonly VlmMessage[][]): PromptPrefix {
  const ids = new Map<Uint8Array, string>();
  const imageId = (img: { bytes: Uint8Array }) => {
    if (!ids.has(img.bytes)) ids.set(img.bytes, `img${ids.size}`);
    return ids.get(img.bytes)!;
  };
  const shared = sharedPrefix(all.map((m) => signatures(m, imageId)));
  expect(shared).not.toBeNull();
  return { key: `test-${shared!.count}`, turn: shared!.turn, parts: shared!.parts };
}

/**
 * A copy of a model folder whose decoder file has its new-positions outputs
 * (decoder-graph.ts), and with `split` its attention split at the cache
 * boundary, as browsers get it through the runtime's fetch. (In Node,
 * transformers.js reads model files from disk or not at all, so the
 * fetch-time edit cannot be used here; decoder-graph.test.ts tests it.)
 */
function editedCopy(dir: string, split: boolean): string {
  const copy = join(makeTempDir('edited-model'), basename(dir));
  cpSync(dir, copy, { recursive: true });
  for (const file of readdirSync(join(copy, 'onnx'))) {
    if (!/^decoder_model_merged.*\.onnx$|^model.*\.onnx$/.test(file)) continue;
    const edited = exposeNewKv(new Uint8Array(readFileSync(join(copy, 'onnx', file))), { splitAttention: split });
    expect(edited, file).not.toBeNull();
    expect(edited!.split, file).toBe(split);
    writeFileSync(join(copy, 'onnx', file), edited!.bytes);
  }
  return copy;
}

type DecoderFile = 'as published' | 'edited' | 'edited and split' | 'served: split, prefix held';
const DECODER_FILES: readonly DecoderFile[] = ['as published', 'edited', 'edited and split', 'served: split, prefix held'];

/**
 * The folder the model is loaded from. Served over HTTP, the files come
 * through the runtime's fetch as in a browser: it splits the decoder and
 * keeps the file as published, from which the engine makes a session
 * holding the kept prefix (held-prefix.ts).
 */
async function folderFor(dir: string, file: DecoderFile, servers: StaticServer[]): Promise<string> {
  if (file === 'as published') return dir;
  if (file !== 'served: split, prefix held') return editedCopy(dir, file === 'edited and split');
  const server = await startServer({ root: join(dir, '..') });
  servers.push(server);
  return `${server.url}${basename(dir)}/`;
}

/**
 * Runs a load of a served folder. transformers.js in Node hands onnxruntime
 * a file path, not bytes, so served files must land in its file cache (a
 * temporary folder, for the load only: the runtime keeps it off).
 */
async function loadingServed<T>(file: DecoderFile, load: () => Promise<T>): Promise<T> {
  if (file !== 'served: split, prefix held') return load();
  const { env } = (await loadNodeTransformers()).lib;
  env.useFSCache = true;
  env.cacheDir = makeTempDir('served-model-cache');
  try {
    return await load();
  } finally {
    env.useFSCache = false;
  }
}
const SAMPLED = [7, 8].map((seed) => ({ maxTokens: 48, temperature: 3, topP: 0.95, seed }));

// As the file is, the runtime returns the whole cache each pass; edited, the engine grows the cache in place;
// split, no pass builds the whole cache and every request, sampled ones too, is decoded by the engine.
for (const decoderFile of DECODER_FILES)
describe(`cached decoder on the demo-trained model (decoder file ${decoderFile})`, () => {
  let cached: TransformersVlm;
  let plain: TransformersVlm;
  const cases = drawnCases(23, 5);
  const exemplars = drawnCases(29, 2);
  const servers: StaticServer[] = [];
  const held = decoderFile === 'served: split, prefix held';

  beforeAll(async () => {
    const rt = await loadNodeTransformers();
    const location = await folderFor(MODEL_DIR, decoderFile, servers);
    cached = await loadingServed(decoderFile, () => TransformersVlm.load(rt, { source: { kind: 'folder', location }, device: 'wasm' }));
    plain = await TransformersVlm.load(rt, { source: { kind: 'folder', location: MODEL_DIR }, device: 'wasm', cachedDecoding: false });
  }, 60_000);
  afterAll(async () => {
    await cached?.dispose();
    await plain?.dispose();
    await Promise.all(servers.map((s) => s.close()));
    removeTempDirs();
  });

  it('drives the demo-trained model; the engine as it was does not', () => {
    expect(cached.drivesCache).toBe(true);
    expect(plain.drivesCache).toBe(false);
    expect(cached.growsCacheInPlace).toBe(decoderFile !== 'as published');
    expect(plain.growsCacheInPlace).toBe(false);
    expect(cached.runsEveryRequest).toBe(decoderFile === 'edited and split' || held);
    expect(cached.heldPrefixTokens).toBe(0);
  });

  it("draws transformers.js' own sampled answers for a seed, alone and asked together", async () => {
    const all = await requests(cases.slice(0, 3));
    const drawn: string[][] = [];
    for (const sampling of SAMPLED) {
      const reference: string[] = [];
      for (const m of all) reference.push((await plain.generateChat(m, sampling)).text);
      const alone: string[] = [];
      for (const m of all) alone.push((await cached.generateChat(m, sampling)).text);
      expect(alone).toEqual(reference);
      const together = await cached.generateBatch(all.map((messages) => ({ messages, sampling })));
      expect(together.map((r) => r.text)).toEqual(reference);
      drawn.push(reference);
    }
    // The draws are real: another seed draws other answers, and neither is the greedy one.
    expect(drawn[0]).not.toEqual(drawn[1]);
    const greedy: string[] = [];
    for (const m of all) greedy.push((await plain.generateChat(m, GREEDY)).text);
    expect(drawn[0]).not.toEqual(greedy);
  }, 180_000);

  for (const shots of [0, 2]) {
    it(`gives transformers.js' own greedy answers with and without the kept prefix, alone and in batches (${shots ? 'few-shot' : 'zero-shot'})`, async () => {
      const all = await requests(cases, exemplars.slice(0, shots));
      const prefix = prefixOf(all);
      // Zero-shot shares the system turn; few-shot also the exemplars' turn, images and all.
      expect(prefix).toMatchObject(shots ? { turn: 2, parts: 0 } : { turn: 1, parts: 0 });

      const reference: string[] = [];
      for (const m of all) reference.push((await plain.generateChat(m, GREEDY)).text);
      expect(new Set(reference).size).toBeGreaterThan(1);

      const alone: GenerateResult[] = [];
      for (const m of all) alone.push(await cached.generateChat(m, GREEDY));
      expect(alone.map((r) => r.text)).toEqual(reference);

      cached.forgetPrefix();
      const reused: GenerateResult[] = [];
      for (const m of all) reused.push(await cached.generateChat(m, GREEDY, undefined, prefix));
      expect(reused.map((r) => r.text)).toEqual(reference);
      // The first request computes the prefix; every later one takes it as it was kept.
      const kept = reused.map((r) => r.usage.prompt!.reusedTokens);
      expect(kept[0]).toBeGreaterThan(0);
      expect(new Set(kept).size).toBe(1);
      expect(kept[0]).toBeLessThan(reused[0]!.usage.promptTokens!);
      // Few-shot: the two exemplars' images (64 tokens each) are inside the kept prefix.
      if (shots) expect(kept[0]).toBeGreaterThan(2 * 64);
      // Served through the runtime's fetch, a second session holds the kept prefix and the requests decoded on it.
      expect(cached.heldPrefixTokens).toBe(held ? kept[0] : 0);

      for (const size of [2, 5]) {
        const streamed = new Map<number, string>();
        const batched = await cached.generateBatch(
          all.slice(0, size).map((messages) => ({ messages, sampling: GREEDY, prefix })),
          (i, r) => streamed.set(i, r.text),
        );
        expect(batched.map((r) => r.text)).toEqual(reference.slice(0, size));
        expect([...streamed.keys()].sort()).toEqual([...Array(size).keys()]);
        expect(batched.every((r) => r.usage.batch === size)).toBe(true);
      }
    }, 180_000);
  }

  it('reports the prompt\'s text and image tokens, and each image\'s tiles', async () => {
    const [messages] = await requests(cases.slice(0, 1), exemplars);
    const r = await cached.generateChat(messages!, { ...GREEDY, maxTokens: 4 });
    const p = r.usage.prompt!;
    // Three images (two exemplars and the query), one 256 px frame each: 64 tokens (8 × 8 cells).
    expect(p.images).toEqual([{ tiles: 1, tokens: 64 }, { tiles: 1, tokens: 64 }, { tiles: 1, tokens: 64 }]);
    expect(p.imageTokens).toBe(192);
    expect(p.textTokens + p.imageTokens).toBe(r.usage.promptTokens);
  }, 60_000);

  it('ends every row of a batch with what it had when aborted', async () => {
    const all = await requests(cases.slice(0, 3));
    const controller = new AbortController();
    let tokens = 0;
    const out = await cached.generateBatch(
      all.map((messages) => ({
        messages,
        sampling: { ...GREEDY, signal: controller.signal },
        onToken: () => {
          if (++tokens === 6) controller.abort();
        },
      })),
    );
    expect(out.every((r) => r.finishReason === 'abort')).toBe(true);
    expect(out.some((r) => r.usage.completionTokens! > 0)).toBe(true);
  }, 60_000);
});

describe('a decoder file only the cached decoder can run', () => {
  afterAll(removeTempDirs);
  it('is refused at load, with what to do, where the cached decoder cannot drive the model', async () => {
    // The split file, with a configuration that names no image token: the cached decoder cannot place image features.
    const folder = editedCopy(MODEL_DIR, true);
    const config = JSON.parse(readFileSync(join(folder, 'config.json'), 'utf8')) as Record<string, unknown>;
    delete config['image_token_id'];
    writeFileSync(join(folder, 'config.json'), JSON.stringify(config));
    const rt = await loadNodeTransformers();
    await expect(TransformersVlm.load(rt, { source: { kind: 'folder', location: folder }, device: 'wasm' })).rejects.toMatchObject({
      code: 'UNSUPPORTED',
      message: expect.stringContaining('load it with cached decoding off'),
    });
  }, 60_000);
});

describe('prefix arithmetic', () => {
  it('counts shared tokens and finds each image\'s tokens', () => {
    expect(sharedLength([1, 2, 3, 4], [1, 2, 9])).toBe(2);
    expect(sharedLength([1, 2], [1, 2, 3])).toBe(2);
    // Image token 7: the first image has 3 tokens in two runs (tiles), the second 2.
    expect(imageSpans([1, 7, 7, 5, 7, 2, 7, 7, 3], 7, [{ tokens: 3 }, { tokens: 2 }])).toEqual([{ start: 1, end: 5 }, { start: 6, end: 8 }]);
    expect(imageSpans([1, 2], null, [{ tokens: 3 }])).toEqual([]);
  });
});

for (const decoderFile of DECODER_FILES)
describe(`cached decoder on a text model (the self-test judge, through the Engine interface; decoder file ${decoderFile})`, () => {
  const TEXT_DIR = fileURLToPath(new URL('../../../../public/models/self-test-text/', import.meta.url));
  const servers: StaticServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    removeTempDirs();
  });
  const system = 'You judge whether two diagnoses name the same disease. Answer with one word: yes or no. Consider synonyms, abbreviations and spelling variants as the same disease.';
  const pairs = ['multiple sclerosis / MS', 'glioblastoma / meningioma', 'stroke / cerebral infarction', 'CJD / prion disease'];
  const requests = pairs.map((p) => ({ messages: [textTurn('system', system), textTurn('user', p)], sampling: { temperature: 0, topP: 1, seed: 0, maxTokens: 12 } }));
  const engine = async (options: { cachedDecoding: boolean; batch?: number }) =>
    new TransformersEngine({
      runtime: { wasmPaths: ORT_WEB_DIST_URL, ort },
      source: { kind: 'folder', location: options.cachedDecoding ? await folderFor(TEXT_DIR, decoderFile, servers) : TEXT_DIR },
      task: 'text-generation',
      ...options,
    });

  it('gives generate\'s answers with the shared system turn kept, alone and decoded together', async () => {
    const plain = await engine({ cachedDecoding: false });
    const cached = await engine({ cachedDecoding: true, batch: 4 });
    await plain.load();
    await loadingServed(decoderFile, () => cached.load());
    try {
      const reference = [];
      for (const r of requests) reference.push((await plain.generate(r)).text);
      const prefix = { key: 'judge-system', turn: 1, parts: 0 };
      // Served through the runtime's fetch, keeping the prefix makes one session holding it (the file as published and the prefix's positions).
      const sessions = vi.spyOn(ort.InferenceSession, 'create');
      const alone = [];
      let made: number[];
      try {
        for (const r of requests) alone.push(await cached.generate({ ...r, prefix }));
        // Read before the restore, which clears the calls.
        made = sessions.mock.calls.map(([file]) => (file instanceof Uint8Array ? file.length : -1));
      } finally {
        sessions.mockRestore();
      }
      expect(made.length).toBe(decoderFile === 'served: split, prefix held' ? 1 : 0);
      if (made.length) expect(made[0]).toBeGreaterThan(statSync(join(TEXT_DIR, 'onnx', 'model.onnx')).size);
      expect(alone.map((r) => r.text)).toEqual(reference);
      expect(alone.slice(1).every((r) => r.usage.prompt!.reusedTokens > 0 && r.usage.prompt!.imageTokens === 0)).toBe(true);
      expect(await cached.batchLimit!(requests[0]!)).toBe(4);
      const batched = await cached.generateBatch!(requests.map((r) => ({ ...r, prefix })));
      expect(batched.map((r) => r.text)).toEqual(reference);
      expect(batched.every((r) => r.usage.batch === 4)).toBe(true);
      for (const sampling of SAMPLED) {
        const sampled = requests.map((r) => ({ ...r, sampling: { ...sampling, maxTokens: 12 } }));
        const want = [];
        for (const r of sampled) want.push((await plain.generate(r)).text);
        const got = [];
        for (const r of sampled) got.push((await cached.generate({ ...r, prefix })).text);
        expect(got).toEqual(want);
      }
    } finally {
      await plain.unload();
      await cached.unload();
    }
  }, 120_000);
});
