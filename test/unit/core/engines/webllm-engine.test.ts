/**
 * The WebLLM adapter and worker against WebLLM's real API surface.
 *
 * - A fake engine typed as `WebLlmApi` (a Pick of WebLLM's `MLCEngineInterface`,
 *   so a WebLLM API change breaks compilation) records calls, validates each
 *   request with WebLLM's own `postInitAndCheckFieldsChatCompletion`, and
 *   streams chunks shaped like `MLCEngine.asyncGenerate`'s (deltas, a final
 *   chunk with `finish_reason`, then the usage chunk only when
 *   `stream_options.include_usage` is set). Like WebLLM it clears its interrupt
 *   flag when a generation starts.
 * - The real package where it runs in Node: `prebuiltAppConfig`, `ModelType`,
 *   `hasModelInCache`/`deleteModelAllInfoInCache` over an in-memory Cache API,
 *   and a real `MLCEngine.reload` against a local mirror, which shows the URLs
 *   WebLLM derives from our app config. Node has no WebGPU, so nothing loads.
 * - The worker module itself, driven through the real worker runtime over a
 *   MessageChannel, with the browser globals it reads stubbed.
 */
import {
  deleteModelAllInfoInCache,
  hasModelInCache,
  MLCEngine,
  ModelType,
  postInitAndCheckFieldsChatCompletion,
  prebuiltAppConfig,
  type AppConfig,
  type ChatCompletionChunk,
  type ChatCompletionRequestStreaming,
  type ChatOptions,
  type CompletionUsage,
  type InitProgressCallback,
  type InitProgressReport,
} from '@mlc-ai/web-llm';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { CATALOGUE, type CatalogueEntry } from '../../../../src/core/engines/catalogue.ts';
import { imagesThenText, textTurn } from '../../../../src/core/chat/turn.ts';
import type { ChatTurn, GenerateRequest } from '../../../../src/core/engines/engine.ts';
import { EngineError } from '../../../../src/core/engines/errors.ts';
import {
  appConfigFor,
  createWebLlmCache,
  deleteCached,
  isCached,
  mapWebLlmError,
  progressFromReport,
  toWebLlmMessages,
  WebLlmEngine,
  type WebLlmApi,
  type WebLlmCache,
  type WebLlmOptions,
} from '../../../../src/core/engines/webllm/webllm-engine.ts';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';
import type { Progress } from '../../../../src/core/model/progress.ts';
import { isDeviceLost } from '../../../../src/lib/engines/webllm-client.ts';
import { createWorkerClient, type WorkerClient } from '../../../../src/core/rpc/worker-client.ts';
import { exposeApi } from '../../../../workers/runtime/expose.ts';
import type { WebLlmWorkerApi } from '../../../../workers/webllm.worker.ts';
import webllmPackage from '@mlc-ai/web-llm/package.json' with { type: 'json' };

const MIRROR = 'https://models.hospital.example/mlc';
const LIB = 'https://models.hospital.example/libs/v0_2_86/Phi-3.5-vision-instruct-q4f32_1_cs4k-webgpu.wasm';

function entry(id: string): CatalogueEntry {
  const e = CATALOGUE.models.find((m) => m.id === id);
  if (!e) throw new Error(`no catalogue entry ${id}`);
  return e;
}

function options(id = 'phi-3.5-vision-q4f32', more: Partial<WebLlmOptions> = {}): WebLlmOptions {
  return { entry: entry(id), weightsBaseUrl: MIRROR, modelLibUrl: LIB, shaderF16: false, runtimeVersion: '0.2.86', ...more };
}

// ---------------------------------------------------------------------------
// A fake WebLLM engine on WebLLM's real interface.

/** WebLLM's error texts (0.2.86), as its worker engine sends them: `err.toString()`. */
const WEBLLM_ERRORS = {
  deviceLost:
    'DeviceLostError: The WebGPU device was lost while loading the model. This issue often occurs due to running out of memory (OOM). To resolve this, try reloading with a model that has fewer parameters or uses a smaller context length.',
  shaderF16:
    'ShaderF16SupportError: This model requires WebGPU extension shader-f16, which is not enabled in this browser. You can try to launch Chrome Canary in command line with flag "--enable-dawn-features=allow_unsafe_apis".',
  noWebGpu: 'WebGPUNotAvailableError: WebGPU is not supported in your current environment, but it is necessary to run the WebLLM engine.',
  // What Chromium 156's Cache.add throws (seen by `npm run smoke:webllm`), and an older wording.
  network: 'TypeError: Failed to fetch',
  networkOld: "TypeError: Failed to execute 'add' on 'Cache': Cache.add() encountered a network error",
  notFound: "TypeError: Failed to execute 'add' on 'Cache': Request failed",
  modelNotLoaded:
    'ModelNotLoadedError: Model not loaded before trying to complete ChatCompletionRequest. Please ensure you have called MLCEngine.reload(model) to load the model before initiating APIs, or initialize your engine using CreateMLCEngine() with a valid model configuration.',
};

interface StreamScript {
  readonly pieces: readonly string[];
  readonly finish?: 'stop' | 'length';
  readonly usage?: { prompt: number; completion: number; prefill: number; decode: number; ttft: number };
  /** Throw this after the given number of pieces. */
  readonly failAfter?: { pieces: number; error: unknown };
}

class FakeWebLlm implements WebLlmApi {
  readonly calls: string[] = [];
  readonly requests: ChatCompletionRequestStreaming[] = [];
  appConfig: AppConfig | undefined;
  progress: InitProgressCallback | undefined;
  loaded: string | null = null;
  chatOpts: ChatOptions | undefined;
  interruptSignal = false;
  /** Runs inside reload after it is recorded; throw to fail the load. */
  onReload: (fake: FakeWebLlm) => Promise<void> = async () => {};
  /** Runs inside create after validation, before the stream starts. */
  onCreate: () => void = () => {};
  script: StreamScript = { pieces: ['{"diagnosis":', ' "glioma"}'], usage: { prompt: 2561, completion: 7, prefill: 812.5, decode: 21.25, ttft: 3.2 } };

  setAppConfig = (appConfig: AppConfig): void => {
    this.calls.push('setAppConfig');
    this.appConfig = appConfig;
  };
  setInitProgressCallback = (cb: InitProgressCallback): void => {
    this.calls.push('setInitProgressCallback');
    this.progress = cb;
  };
  reload = async (modelId: string | string[], chatOpts?: ChatOptions | ChatOptions[]): Promise<void> => {
    this.calls.push('reload');
    if (Array.isArray(modelId) || Array.isArray(chatOpts)) throw new Error('one model at a time');
    this.chatOpts = chatOpts;
    await this.onReload(this);
    this.loaded = modelId;
  };
  unload = async (): Promise<void> => {
    this.calls.push('unload');
    this.loaded = null;
  };
  resetChat = async (): Promise<void> => {
    this.calls.push('resetChat');
  };
  interruptGenerate = (): void => {
    this.calls.push('interruptGenerate');
    this.interruptSignal = true;
  };
  chat = {
    completions: {
      create: async (request: ChatCompletionRequestStreaming): Promise<AsyncIterable<ChatCompletionChunk>> => {
        this.calls.push('create');
        if (!this.loaded) throw WEBLLM_ERRORS.modelNotLoaded;
        const record = this.appConfig?.model_list.find((r) => r.model_id === this.loaded);
        // WebLLM's own request validation, with the model type our app config declared (LLM when absent, as in WebLLM).
        postInitAndCheckFieldsChatCompletion(request, this.loaded, record?.model_type ?? ModelType.LLM);
        this.requests.push(request);
        this.onCreate();
        return this.stream(request);
      },
    },
  };

  /** Shaped like `MLCEngine.asyncGenerate` + `streamCurrentGeneration` in WebLLM 0.2.86. */
  private async *stream(request: ChatCompletionRequestStreaming): AsyncGenerator<ChatCompletionChunk> {
    this.interruptSignal = false; // WebLLM resets its flag when the generation starts
    const base = { id: 'chatcmpl-1', created: 1_790_000_000, model: this.loaded ?? '', object: 'chat.completion.chunk' as const };
    let finish: 'stop' | 'length' | 'abort' = this.script.finish ?? 'stop';
    let emitted = 0;
    for (const piece of this.script.pieces) {
      await new Promise((r) => setTimeout(r, 1));
      if (this.interruptSignal) {
        finish = 'abort';
        break;
      }
      if (this.script.failAfter && emitted === this.script.failAfter.pieces) throw this.script.failAfter.error;
      emitted++;
      yield { ...base, choices: [{ delta: { content: piece, role: 'assistant' }, finish_reason: null, index: 0, logprobs: null }] };
    }
    yield { ...base, choices: [{ delta: {}, finish_reason: finish, index: 0 }] };
    const u = this.script.usage;
    if (request.stream_options?.include_usage === true && u) {
      const usage: CompletionUsage = {
        prompt_tokens: u.prompt,
        completion_tokens: u.completion,
        total_tokens: u.prompt + u.completion,
        extra: { e2e_latency_s: 4, prefill_tokens_per_s: u.prefill, decode_tokens_per_s: u.decode, time_to_first_token_s: u.ttft, time_per_output_token_s: 0.05, grammar_init_s: 0.01, grammar_per_token_s: 0.001 },
      };
      yield { ...base, choices: [], usage };
    }
  }
}

const png = (seed: number) => encodePng(new Uint8Array(4 * 4).map((_, i) => (i * seed) & 255), 4, 4);

function request(more: Partial<GenerateRequest> = {}): GenerateRequest {
  return {
    messages: [
      textTurn('system', 'You are a neuroradiologist.'),
      imagesThenText(
        [
          { bytes: png(3), mime: 'image/png' },
          { bytes: png(7), mime: 'image/jpeg' },
        ],
        'What is the diagnosis?',
      ),
    ],
    sampling: { temperature: 0, topP: 0.9, seed: 42, maxTokens: 256 },
    ...more,
  };
}

async function loaded(opts = options()): Promise<{ fake: FakeWebLlm; engine: WebLlmEngine }> {
  const fake = new FakeWebLlm();
  const engine = new WebLlmEngine(fake, opts);
  await engine.load();
  return { fake, engine };
}

async function engineErrorOf(p: Promise<unknown>): Promise<EngineError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngineError);
  return error as EngineError;
}

// ---------------------------------------------------------------------------

describe('appConfigFor against WebLLM 0.2.86', () => {
  it('MLCEngine itself satisfies WebLlmApi (compile-time check)', () => {
    const api: WebLlmApi = new MLCEngine({ logLevel: 'SILENT' });
    expect(typeof api.reload).toBe('function');
  });

  it('builds absolute /resolve/main/ URLs that WebLLM uses unchanged', () => {
    const record = appConfigFor(options()).model_list[0]!;
    expect(record.model).toBe(`${MIRROR}/Phi-3.5-vision-instruct-q4f32_1-MLC/resolve/main/`);
    expect(() => new URL(record.model)).not.toThrow();
    expect(record.model).toMatch(/^https:\/\/.+\/resolve\/main\/$/);
    // WebLLM's cleanModelUrl leaves a URL matching /.+\/resolve\/.+\// alone (adding "resolve/main/" otherwise).
    expect(record.model).toMatch(/.+\/resolve\/.+\//);
    expect(record.model_lib).toBe(LIB);
    expect(appConfigFor(options()).cacheBackend).toBe('cache');
    // A trailing slash on the base changes nothing.
    expect(appConfigFor(options(undefined, { weightsBaseUrl: `${MIRROR}/` })).model_list[0]!.model).toBe(record.model);
  });

  it('rejects relative URLs (WebLLM would throw "Invalid URL" after the download starts)', () => {
    expect(() => appConfigFor(options(undefined, { weightsBaseUrl: '/models/' }))).toThrow();
    expect(() => appConfigFor(options(undefined, { modelLibUrl: 'libs/x.wasm' }))).toThrow();
  });

  it('matches WebLLM\'s own prebuilt record for every WebLLM catalogue entry', () => {
    for (const e of CATALOGUE.models.filter((m) => m.runtime === 'webllm')) {
      const prebuilt = prebuiltAppConfig.model_list.find((r) => r.model_id === e.modelId);
      expect(prebuilt, e.modelId).toBeDefined();
      const ours = appConfigFor({ entry: e, weightsBaseUrl: 'https://huggingface.co/mlc-ai/', modelLibUrl: prebuilt!.model_lib, shaderF16: true, runtimeVersion: '0.2.86' }).model_list[0]!;
      // Same place as WebLLM's record after its cleanModelUrl, same library, same model type and memory.
      expect(ours.model).toBe(`${prebuilt!.model}/resolve/main/`);
      expect(ours.model_lib).toBe(prebuilt!.model_lib);
      expect(ours.model_type, e.id).toBe(prebuilt!.model_type);
      expect(ours.vram_required_MB).toBe(prebuilt!.vram_required_MB);
      expect(ours.overrides?.context_window_size).toBe(prebuilt!.overrides?.context_window_size);
      for (const f of prebuilt!.required_features ?? []) expect(ours.required_features).toContain(f);
    }
  });

  it('declares the VLM model type (else WebLLM rejects image parts) and shader-f16 where the catalogue needs it', () => {
    expect(appConfigFor(options('phi-3.5-vision-q4f32')).model_list[0]!.model_type).toBe(ModelType.VLM);
    expect(appConfigFor(options('smollm2-360m-q4f32')).model_list[0]!.model_type).toBeUndefined();
    // WebLLM's q4f16 Phi record lacks required_features; ours has it.
    expect(prebuiltAppConfig.model_list.find((r) => r.model_id === 'Phi-3.5-vision-instruct-q4f16_1-MLC')?.required_features).toBeUndefined();
    expect(appConfigFor(options('phi-3.5-vision-q4f16')).model_list[0]!.required_features).toEqual(['shader-f16']);
  });
});

describe('load', () => {
  it('sets the app config, reloads the model and maps progress (download, then load, ending at 1)', async () => {
    const fake = new FakeWebLlm();
    const reports: InitProgressReport[] = [
      { progress: 0, timeElapsed: 0, text: 'Start to fetch params' },
      { progress: 0.5, timeElapsed: 1, text: 'Fetching param cache[1/2]: 600MB fetched. 50% completed, 1 secs elapsed. It can take a while when we first visit this page to populate the cache. Later refreshes will become faster.' },
      { progress: 1, timeElapsed: 2, text: 'Fetching param cache[2/2]: 1200MB fetched. 100% completed, 2 secs elapsed. It can take a while when we first visit this page to populate the cache. Later refreshes will become faster.' },
      { progress: 0.5, timeElapsed: 3, text: 'Loading model from cache[1/2]: 600MB loaded. 50% completed, 3 secs elapsed.' },
      { progress: 1, timeElapsed: 4, text: 'Loading model from cache[2/2]: 1200MB loaded. 100% completed, 4 secs elapsed.' },
      { progress: 0.5, timeElapsed: 5, text: 'Loading GPU shader modules[10/20]: 50% completed, 5 secs elapsed.' },
      { progress: 1, timeElapsed: 6, text: 'Finish loading on WebGPU - swiftshader' },
    ];
    fake.onReload = async (f) => reports.forEach((r) => f.progress?.(r));
    const seen: Progress[] = [];
    const info = await new WebLlmEngine(fake, options(undefined, { contextWindow: 3072 })).load({ onProgress: (p) => seen.push(p) });

    expect(info).toEqual({ runtime: 'webllm', runtimeVersion: '0.2.86', modelId: 'Phi-3.5-vision-instruct-q4f32_1-MLC', device: 'webgpu' });
    expect(fake.calls).toEqual(['setAppConfig', 'setInitProgressCallback', 'reload']);
    expect(fake.appConfig).toEqual(appConfigFor(options()));
    expect(fake.chatOpts).toEqual({ context_window_size: 3072 });
    expect(seen.map((p) => [p.phase, p.done])).toEqual([
      ['download', 0],
      ['download', 0.5],
      ['download', 1],
      ['load', 0.5],
      ['load', 1],
      ['compile', 0.5],
      ['load', 1],
    ]);
    expect(seen.every((p) => p.total === 1 && typeof p.message === 'string')).toBe(true);
    expect(seen.at(-1)).toMatchObject({ phase: 'load', done: 1, total: 1 });
  });

  it('a fully cached model reports only the load phase', () => {
    expect(progressFromReport({ progress: 0.25, timeElapsed: 0, text: 'Loading model from cache[1/4]: 10MB loaded. 25% completed, 0 secs elapsed.' })).toMatchObject({ phase: 'load', done: 0.25 });
    expect(progressFromReport({ progress: Number.NaN, timeElapsed: 0, text: 'Start to fetch params' })).toMatchObject({ phase: 'download', done: 0 });
  });

  it('refuses an f16 model on an adapter without shader-f16 BEFORE reload (nothing downloads)', async () => {
    const fake = new FakeWebLlm();
    const err = await engineErrorOf(new WebLlmEngine(fake, options('phi-3.5-vision-q4f16', { shaderF16: false })).load());
    expect(err.engineCode).toBe('ENGINE_UNSUPPORTED');
    expect(err.message).toMatch(/shader-f16.*q4f32/);
    expect(fake.calls).not.toContain('reload');
    expect(fake.calls).toEqual([]);
  });

  it('loads the f16 model where the adapter has shader-f16', async () => {
    const { fake } = await loaded(options('phi-3.5-vision-q4f16', { shaderF16: true }));
    expect(fake.calls).toContain('reload');
    expect(fake.appConfig?.model_list[0]?.required_features).toEqual(['shader-f16']);
  });

  it('device lost during load becomes ENGINE_DEVICE_LOST with advice (Error and string forms)', async () => {
    for (const thrown of [Object.assign(new Error(WEBLLM_ERRORS.deviceLost.replace(/^DeviceLostError: /, '')), { name: 'DeviceLostError' }), WEBLLM_ERRORS.deviceLost]) {
      const fake = new FakeWebLlm();
      fake.onReload = async () => {
        throw thrown;
      };
      const engine = new WebLlmEngine(fake, options());
      const err = await engineErrorOf(engine.load());
      expect(err.engineCode).toBe('ENGINE_DEVICE_LOST');
      expect(err.message).toMatch(/device lost/);
      expect(err.message).toMatch(/smaller/);
      expect(isDeviceLost(err)).toBe(true);
      // Not loaded: generate refuses.
      expect((await engineErrorOf(engine.generate(request()))).engineCode).toBe('ENGINE_NOT_LOADED');
    }
  });

  it('maps WebLLM errors that cross its worker as strings', async () => {
    const cases: [string, string][] = [
      [WEBLLM_ERRORS.shaderF16, 'ENGINE_UNSUPPORTED'],
      [WEBLLM_ERRORS.noWebGpu, 'ENGINE_UNSUPPORTED'],
      [WEBLLM_ERRORS.network, 'ENGINE_UNREACHABLE'],
      [WEBLLM_ERRORS.networkOld, 'ENGINE_UNREACHABLE'],
      [WEBLLM_ERRORS.notFound, 'ENGINE_UNREACHABLE'],
      [WEBLLM_ERRORS.deviceLost, 'ENGINE_DEVICE_LOST'],
    ];
    for (const [text, code] of cases) {
      const fake = new FakeWebLlm();
      fake.onReload = async () => {
        throw text;
      };
      expect((await engineErrorOf(new WebLlmEngine(fake, options()).load())).engineCode, text).toBe(code);
    }
    // Anything else passes through as an Error with WebLLM's text.
    const other = mapWebLlmError('ContextWindowSizeExceededError: Prompt tokens exceed context window size', entry('phi-3.5-vision-q4f32'));
    expect(other).toBeInstanceOf(Error);
    expect(other).not.toBeInstanceOf(EngineError);
    expect(other.message).toMatch(/ContextWindowSizeExceeded/);
  });

  it('an abort during load unloads (which aborts WebLLM\'s reload) and throws AbortedError', async () => {
    const fake = new FakeWebLlm();
    const controller = new AbortController();
    fake.onReload = async () => {
      controller.abort();
      await new Promise((r) => setTimeout(r, 5));
      // WebLLM's reload returns normally after unload() aborted it ("Reload() is aborted").
    };
    const error = await new WebLlmEngine(fake, options()).load({ signal: controller.signal }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortedError');
    expect(fake.calls).toContain('unload');
  });
});

describe('generate', () => {
  it('resets the chat before every item and sends OpenAI-format messages WebLLM accepts', async () => {
    const { fake, engine } = await loaded();
    fake.calls.length = 0;
    const tokens: string[] = [];
    const r1 = await engine.generate(request({ jsonSchema: { type: 'object', properties: { diagnosis: { type: 'string' } }, required: ['diagnosis'] } }), { onToken: (t) => tokens.push(t) });
    await engine.generate(request());
    expect(fake.calls).toEqual(['resetChat', 'create', 'resetChat', 'create']);

    expect(r1.text).toBe('{"diagnosis": "glioma"}');
    expect(tokens).toEqual(['{"diagnosis":', ' "glioma"}']);
    expect(r1.finishReason).toBe('stop');

    const sent = fake.requests[0]!;
    expect(sent.messages).toHaveLength(2);
    expect(sent.messages[0]).toEqual({ role: 'system', content: 'You are a neuroradiologist.' });
    const user = sent.messages[1]!;
    if (user.role !== 'user' || typeof user.content === 'string') throw new Error('expected a user message with parts');
    const parts = user.content;
    expect(parts.filter((p) => p.type === 'text')).toEqual([{ type: 'text', text: 'What is the diagnosis?' }]);
    const urls = parts.flatMap((p) => (p.type === 'image_url' ? [p.image_url.url] : []));
    expect(urls).toHaveLength(2);
    expect(urls[0]).toMatch(/^data:image\/png;base64,/);
    expect(urls[1]).toMatch(/^data:image\/jpeg;base64,/);
    // In order, byte for byte.
    expect(new Uint8Array(Buffer.from(urls[0]!.split(',')[1]!, 'base64'))).toEqual(png(3));
    expect(new Uint8Array(Buffer.from(urls[1]!.split(',')[1]!, 'base64'))).toEqual(png(7));

    expect(sent).toMatchObject({ stream: true, stream_options: { include_usage: true }, temperature: 0, top_p: 0.9, seed: 42, max_tokens: 256 });
    expect(sent.response_format).toEqual({ type: 'json_object', schema: JSON.stringify({ type: 'object', properties: { diagnosis: { type: 'string' } }, required: ['diagnosis'] }) });
    expect(fake.requests[1]!.response_format).toBeUndefined();
  });

  it('sends a turn that interleaves text and images as consecutive user messages, read in the turn\'s order', async () => {
    const img1 = { bytes: png(3), mime: 'image/png' };
    const img2 = { bytes: png(7), mime: 'image/jpeg' };
    const url = (img: { bytes: Uint8Array; mime: string }) => `data:${img.mime};base64,${Buffer.from(img.bytes).toString('base64')}`;
    const turn: ChatTurn = {
      role: 'user',
      parts: [
        { type: 'text', text: 'A: Example 1 — class: glioma' },
        { type: 'image', image: img1 },
        { type: 'text', text: 'B: Example 2 — class: meningioma' },
        { type: 'image', image: img2 },
      ],
    };
    // WebLLM takes one text part per message and lays out its images before its text: each image opens the next message.
    expect(toWebLlmMessages(turn, entry('phi-3.5-vision-q4f32'))).toEqual([
      { role: 'user', content: 'A: Example 1 — class: glioma' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: url(img1) } }, { type: 'text', text: 'B: Example 2 — class: meningioma' }] },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: url(img2) } }, { type: 'text', text: '' }] },
    ]);

    // Through the engine, the fake validates the request with WebLLM's own check, for the VLM record our app config declares.
    const { fake, engine } = await loaded();
    expect(fake.appConfig?.model_list[0]?.model_type).toBe(ModelType.VLM);
    const r = await engine.generate({ messages: [textTurn('system', 'You are a neuroradiologist.'), turn], sampling: { temperature: 0, topP: 1, seed: 1, maxTokens: 8 } });
    expect(r.finishReason).toBe('stop');
    const sent = fake.requests[0]!;
    expect(() => postInitAndCheckFieldsChatCompletion(structuredClone(sent), 'Phi-3.5-vision-instruct-q4f32_1-MLC', ModelType.VLM)).not.toThrow();
    expect(sent.messages[0]).toEqual({ role: 'system', content: 'You are a neuroradiologist.' });
    expect(sent.messages.slice(1)).toEqual(toWebLlmMessages(turn, entry('phi-3.5-vision-q4f32')));

    // The prompt reads as WebLLM's Conversation.getPromptArray (0.2.86) lays the messages out: per message, its images, then its text.
    const promptOrder = sent.messages.slice(1).flatMap((m) => {
      if (typeof m.content === 'string') return m.content ? [`text:${m.content}`] : [];
      const parts = m.content as readonly { type: string; text?: string; image_url?: { url: string } }[];
      const images = parts.flatMap((p) => (p.type === 'image_url' ? [`image:${p.image_url!.url}`] : []));
      const texts = parts.flatMap((p) => (p.type === 'text' && p.text ? [`text:${p.text}`] : []));
      return [...images, ...texts];
    });
    const turnOrder = turn.parts.map((p) => (p.type === 'text' ? `text:${p.text}` : `image:${url(p.image)}`));
    expect(promptOrder).toEqual(turnOrder);
    expect(turnOrder).toEqual(['text:A: Example 1 — class: glioma', `image:${url(img1)}`, 'text:B: Example 2 — class: meningioma', `image:${url(img2)}`]);
  });

  it('maps the final usage chunk (usage.extra) into EngineUsage', async () => {
    const { engine } = await loaded();
    const r = await engine.generate(request());
    expect(r.usage).toMatchObject({ promptTokens: 2561, completionTokens: 7, prefillTps: 812.5, decodeTps: 21.25 });
    expect(r.usage.ttftMs).toBeCloseTo(3200);
    expect(Number.isFinite(r.usage.totalMs)).toBe(true);
  });

  it('without a usage chunk, measures what it can and leaves the rest null', async () => {
    const { fake, engine } = await loaded();
    fake.script = { pieces: ['a', 'b'], finish: 'length' };
    const r = await engine.generate(request());
    expect(r.finishReason).toBe('length');
    expect(r.usage.promptTokens).toBeNull();
    expect(r.usage.prefillTps).toBeNull();
    expect(r.usage.ttftMs).not.toBeNull();
  });

  it('abort calls interruptGenerate and returns the text so far with finishReason abort', async () => {
    const { fake, engine } = await loaded();
    fake.script = { pieces: ['one ', 'two ', 'three ', 'four '] };
    const controller = new AbortController();
    const r = await engine.generate(request(), { signal: controller.signal, onToken: () => controller.abort() });
    expect(fake.calls).toContain('interruptGenerate');
    expect(r.finishReason).toBe('abort');
    expect(r.text).toBe('one ');
  });

  it('an abort that lands before WebLLM starts generating (its flag is reset then) is repeated', async () => {
    const { fake, engine } = await loaded();
    fake.script = { pieces: ['one ', 'two ', 'three ', 'four '] };
    const controller = new AbortController();
    fake.onCreate = () => controller.abort();
    const r = await engine.generate(request(), { signal: controller.signal });
    expect(fake.calls.filter((c) => c === 'interruptGenerate').length).toBeGreaterThanOrEqual(2);
    expect(r.finishReason).toBe('abort');
    expect(r.text.length).toBeLessThan('one two three four '.length);
  });

  it('an already aborted signal generates nothing', async () => {
    const { fake, engine } = await loaded();
    const controller = new AbortController();
    controller.abort();
    const r = await engine.generate(request(), { signal: controller.signal });
    expect(r).toMatchObject({ text: '', finishReason: 'abort' });
    expect(fake.calls).not.toContain('create');
  });

  it('device lost during generation becomes ENGINE_DEVICE_LOST, and the engine counts as unloaded', async () => {
    const texts = [WEBLLM_ERRORS.deviceLost, new DOMException("Failed to execute 'mapAsync' on 'GPUBuffer': Device is lost", 'AbortError')];
    for (const error of texts) {
      const { fake, engine } = await loaded();
      fake.script = { pieces: ['a', 'b', 'c'], failAfter: { pieces: 1, error } };
      const err = await engineErrorOf(engine.generate(request()));
      expect(err.engineCode).toBe('ENGINE_DEVICE_LOST');
      expect(err.message).toMatch(/smaller/);
      expect((await engineErrorOf(engine.generate(request()))).engineCode).toBe('ENGINE_NOT_LOADED');
    }
  });

  it('a model WebLLM dropped after a device loss (ModelNotLoadedError) is reported as device lost', async () => {
    const { fake, engine } = await loaded();
    fake.loaded = null; // what WebLLM's device.lost handler does: unload()
    const err = await engineErrorOf(engine.generate(request()));
    expect(err.engineCode).toBe('ENGINE_DEVICE_LOST');
  });

  it('refuses images for a text-only model before calling WebLLM', async () => {
    const { fake, engine } = await loaded(options('smollm2-360m-q4f32'));
    fake.calls.length = 0;
    expect((await engineErrorOf(engine.generate(request()))).engineCode).toBe('ENGINE_UNSUPPORTED');
    expect(fake.calls).toEqual([]);
    // Text only is fine, and passes WebLLM's validation for an LLM record.
    const r = await engine.generate({ messages: [textTurn('user', 'Score 1-5.')], sampling: { temperature: 0, topP: 1, seed: 1, maxTokens: 8 } });
    expect(r.finishReason).toBe('stop');
  });

  it('without the VLM model type WebLLM itself would reject the image parts', () => {
    const req: ChatCompletionRequestStreaming = {
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] }],
    };
    expect(() => postInitAndCheckFieldsChatCompletion(req, 'Phi-3.5-vision-instruct-q4f32_1-MLC', ModelType.LLM)).toThrow(/VLM/);
    expect(() => postInitAndCheckFieldsChatCompletion(req, 'Phi-3.5-vision-instruct-q4f32_1-MLC', ModelType.VLM)).not.toThrow();
  });
});

// ---------------------------------------------------------------------------
// WebLLM's real cache functions and MLCEngine.reload, over an in-memory Cache API.

/** Chrome's Cache API, enough of it for WebLLM: `add` fetches and fails the way Chrome does. */
class MemoryCache {
  readonly entries = new Map<string, { body: ArrayBuffer; type: string }>();
  constructor(private readonly log: string[]) {}
  async match(req: Request | string): Promise<Response | undefined> {
    const e = this.entries.get(typeof req === 'string' ? req : req.url);
    return e && new Response(e.body.slice(0), { headers: { 'Content-Type': e.type } });
  }
  async add(req: Request | string): Promise<void> {
    const url = typeof req === 'string' ? req : req.url;
    this.log.push(url);
    let res: Response;
    try {
      res = await fetch(url);
    } catch {
      throw new TypeError('Failed to fetch');
    }
    if (!res.ok) throw new TypeError("Failed to execute 'add' on 'Cache': Request failed");
    this.entries.set(url, { body: await res.arrayBuffer(), type: res.headers.get('Content-Type') ?? '' });
  }
  async put(url: string, body: string): Promise<void> {
    this.entries.set(url, { body: new TextEncoder().encode(body).buffer as ArrayBuffer, type: 'application/octet-stream' });
  }
  async keys(): Promise<Request[]> {
    return [...this.entries.keys()].map((u) => new Request(u));
  }
  async delete(req: Request | string): Promise<boolean> {
    return this.entries.delete(typeof req === 'string' ? req : req.url);
  }
}

class MemoryCacheStorage {
  readonly caches = new Map<string, MemoryCache>();
  /** URLs `Cache.add` fetched. */
  readonly fetched: string[] = [];
  async has(name: string): Promise<boolean> {
    return this.caches.has(name);
  }
  async open(name: string): Promise<MemoryCache> {
    let c = this.caches.get(name);
    if (!c) this.caches.set(name, (c = new MemoryCache(this.fetched)));
    return c;
  }
  get size(): number {
    return [...this.caches.values()].reduce((n, c) => n + c.entries.size, 0);
  }
  clear(): void {
    this.caches.clear();
    this.fetched.length = 0;
  }
}

const storage = new MemoryCacheStorage();
/** A local "mirror": answers mlc-chat-config.json, 404 for the rest; records the paths asked for. */
const mirrorHits: string[] = [];
let mirror: Server;
let mirrorUrl = '';
let deadUrl = '';

beforeAll(async () => {
  // What WebLLM and the worker read from the browser: a Cache API, the page's location; the worker's Comlink endpoint.
  vi.stubGlobal('caches', storage);
  vi.stubGlobal('location', { origin: 'http://127.0.0.1', href: 'http://127.0.0.1/' });
  vi.stubGlobal('self', globalThis);
  vi.stubGlobal('addEventListener', () => {});
  mirror = createServer((req, res) => {
    mirrorHits.push(req.url ?? '');
    if (req.url?.endsWith('/mlc-chat-config.json')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ model_type: 'phi3_v', context_window_size: 131072, tokenizer_files: ['tokenizer.json'] }));
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((r) => mirror.listen(0, '127.0.0.1', r));
  mirrorUrl = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}`;
  // A port nothing listens on: connection refused, like a mirror that is down.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  deadUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise((r) => probe.close(r));
});

afterAll(async () => {
  vi.unstubAllGlobals();
  await new Promise((r) => mirror.close(r));
});

beforeEach(() => {
  storage.clear();
  mirrorHits.length = 0;
});

/** Puts a complete model into the memory cache at the URLs WebLLM reads. */
async function populate(o: WebLlmOptions): Promise<void> {
  const record = appConfigFor(o).model_list[0]!;
  const model = await storage.open('webllm/model');
  await model.put(new URL('tensor-cache.json', record.model).href, JSON.stringify({ records: [{ dataPath: 'params_shard_0.bin' }, { dataPath: 'params_shard_1.bin' }] }));
  await model.put(new URL('params_shard_0.bin', record.model).href, 'x');
  await model.put(new URL('params_shard_1.bin', record.model).href, 'y');
  await model.put(new URL('tokenizer.json', record.model).href, '{}');
  await (await storage.open('webllm/config')).put(new URL('mlc-chat-config.json', record.model).href, '{}');
  await (await storage.open('webllm/wasm')).put(record.model_lib, 'wasm');
}

describe('cache listing and deletion', () => {
  it('isCached/deleteCached pass the model id and the same app config load uses', async () => {
    const seen: [string, string, AppConfig][] = [];
    const cache: WebLlmCache = {
      async has(id, cfg) {
        seen.push(['has', id, cfg]);
        return true;
      },
      async remove(id, cfg) {
        seen.push(['remove', id, cfg]);
      },
    };
    const o = options();
    expect(await isCached(cache, o)).toBe(true);
    await deleteCached(cache, o);
    const { fake } = await loaded(o);
    expect(seen.map(([op, id]) => [op, id])).toEqual([
      ['has', 'Phi-3.5-vision-instruct-q4f32_1-MLC'],
      ['remove', 'Phi-3.5-vision-instruct-q4f32_1-MLC'],
    ]);
    for (const [, , cfg] of seen) expect(cfg).toEqual(fake.appConfig);
  });

  it('with WebLLM\'s real hasModelInCache/deleteModelAllInfoInCache', async () => {
    const o = options();
    const cache = createWebLlmCache({ hasModelInCache, deleteModelAllInfoInCache }, storage as unknown as CacheStorage);
    expect(await isCached(cache, o)).toBe(false);
    await populate(o);
    expect(await isCached(cache, o)).toBe(true);
    // Another model's files are left alone.
    const other = options('smollm2-360m-q4f32', { modelLibUrl: 'https://models.hospital.example/libs/smollm2.wasm' });
    await populate(other);
    await deleteCached(cache, o);
    expect(await isCached(cache, o)).toBe(false);
    expect(await isCached(cache, other)).toBe(true);
    // WebLLM's own deletion leaves tensor-cache.json; the sweep removes it too.
    const left = [...storage.caches.values()].flatMap((c) => [...c.entries.keys()]);
    expect(left.every((u) => u.includes('SmolLM2') || u.endsWith('smollm2.wasm'))).toBe(true);
    expect(storage.fetched).toEqual([]);
  });

  it('deletes a half-downloaded model offline (WebLLM alone would try to fetch tensor-cache.json and fail)', async () => {
    const o = options(undefined, { weightsBaseUrl: `${deadUrl}/mlc` });
    const record = appConfigFor(o).model_list[0]!;
    await (await storage.open('webllm/model')).put(new URL('params_shard_0.bin', record.model).href, 'partial');
    await (await storage.open('webllm/config')).put(new URL('mlc-chat-config.json', record.model).href, '{}');
    await expect(deleteModelAllInfoInCache(record.model_id, appConfigFor(o))).rejects.toThrow(/Failed to fetch/);
    await deleteCached(createWebLlmCache({ hasModelInCache, deleteModelAllInfoInCache }, storage as unknown as CacheStorage), o);
    expect(storage.size).toBe(0);
  });
});

describe('a real MLCEngine.reload with our app config (Node: no GPU, so it stops at the model library)', () => {
  it('fetches the config from <base>/<model_id>/resolve/main/ and the library from model_lib; a 404 maps to ENGINE_UNREACHABLE', async () => {
    const o = options(undefined, { weightsBaseUrl: `${mirrorUrl}/mlc/`, modelLibUrl: `${mirrorUrl}/libs/v0_2_86/phi.wasm` });
    const err = await engineErrorOf(new WebLlmEngine(new MLCEngine({ logLevel: 'SILENT' }), o).load());
    expect(mirrorHits).toEqual(['/mlc/Phi-3.5-vision-instruct-q4f32_1-MLC/resolve/main/mlc-chat-config.json', '/libs/v0_2_86/phi.wasm']);
    expect(err.engineCode).toBe('ENGINE_UNREACHABLE');
    // Names where it looked and what the browser said.
    expect(err.message).toContain(`${mirrorUrl}/mlc/Phi-3.5-vision-instruct-q4f32_1-MLC/resolve/main/`);
    expect(err.message).toContain(`${mirrorUrl}/libs/v0_2_86/phi.wasm`);
    expect(err.message).toMatch(/Request failed.*mirror/);
  });

  it('a mirror that is down fails with ENGINE_UNREACHABLE', async () => {
    const err = await engineErrorOf(new WebLlmEngine(new MLCEngine({ logLevel: 'SILENT' }), options(undefined, { weightsBaseUrl: deadUrl })).load());
    expect(err.engineCode).toBe('ENGINE_UNREACHABLE');
  });
});

// ---------------------------------------------------------------------------
// The worker module, through the real worker runtime.

describe('workers/webllm.worker.ts', () => {
  let client: WorkerClient<WebLlmWorkerApi>;
  let api: WebLlmWorkerApi;
  /** SwiftShader as headless Chromium offers it: no shader-f16. */
  const swiftshader = {
    gpu: {
      requestAdapter: async () => ({
        features: new Set<string>(['subgroups']),
        limits: { maxBufferSize: 2 ** 30, maxStorageBufferBindingSize: 2 ** 30, maxComputeWorkgroupStorageSize: 32768, maxComputeInvocationsPerWorkgroup: 256, maxStorageBuffersPerShaderStage: 10 },
        info: { vendor: 'google', architecture: 'swiftshader', description: '', isFallbackAdapter: true },
      }),
    },
  };

  beforeAll(async () => {
    vi.stubGlobal('navigator', swiftshader);
    const { createWebLlmApi } = await import('../../../../workers/webllm-api.ts');
    // The worker entry's wiring, over the real library, with this test's cache storage.
    api = createWebLlmApi({
      createEngine: () => new MLCEngine({ logLevel: 'SILENT' }),
      cache: createWebLlmCache({ hasModelInCache, deleteModelAllInfoInCache }, storage as unknown as CacheStorage),
      prebuilt: prebuiltAppConfig.model_list,
      version: webllmPackage.version,
    });
    client = createWorkerClient<WebLlmWorkerApi>('WebLLM', () => {
      const { port1, port2 } = new MessageChannel();
      exposeApi(api, port2 as unknown as Parameters<typeof exposeApi>[1]);
      return Object.assign(port1, { terminate: () => (port1.close(), port2.close()) }) as unknown as Worker;
    });
  });
  afterEach(() => {
    vi.stubGlobal('navigator', swiftshader);
  });
  afterAll(() => client.terminate());

  const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as Error);

  it('refuses an f16 model on this adapter before fetching anything', async () => {
    const e = await failure(client.api.load({ entryId: 'phi-3.5-vision-q4f16', weightsBaseUrl: `${mirrorUrl}/mlc/`, modelLibUrl: `${mirrorUrl}/lib.wasm`, shaderF16: true }));
    expect(e?.name).toBe('EngineError');
    expect(e?.message).toMatch(/shader-f16/);
    expect(mirrorHits).toEqual([]);
    expect(storage.fetched).toEqual([]);
  });

  it('fails without WebGPU before fetching anything', async () => {
    vi.stubGlobal('navigator', {});
    const e = await failure(client.api.load({ entryId: 'smollm2-360m-q4f32', weightsBaseUrl: `${mirrorUrl}/mlc/`, modelLibUrl: `${mirrorUrl}/lib.wasm` }));
    expect(e?.message).toMatch(/WebLLM needs WebGPU/);
    expect(mirrorHits).toEqual([]);
  });

  it('a mirror without the model: the real MLCEngine asks it, and the error crosses the boundary mapped', async () => {
    const progress: Progress[] = [];
    const e = await failure(client.api.load({ entryId: 'phi-3.5-vision-q4f32', weightsBaseUrl: `${mirrorUrl}/mlc/`, modelLibUrl: `${mirrorUrl}/libs/phi.wasm` }, { onProgress: (p) => progress.push(p) }));
    expect(mirrorHits).toEqual(['/mlc/Phi-3.5-vision-instruct-q4f32_1-MLC/resolve/main/mlc-chat-config.json', '/libs/phi.wasm']);
    expect(e?.name).toBe('EngineError');
    expect(e?.message).toMatch(/could not be downloaded/);
    expect(progress[0]).toMatchObject({ phase: 'gpu' });
    expect(await client.api.info()).toBeNull();
  });

  it('resolves ids: catalogue id, WebLLM model id, prebuilt ids outside the catalogue, and refuses the rest', async () => {
    // Defaults come from WebLLM's prebuilt record: Hugging Face + its model library (nothing is fetched by cached()).
    expect(await client.api.cached({ entryId: 'smollm2-360m-q4f32' })).toBe(false);
    expect(await client.api.cached({ entryId: 'SmolLM2-360M-Instruct-q4f32_1-MLC' })).toBe(false);
    expect(await client.api.cached({ entryId: 'Qwen3-0.6B-q4f32_1-MLC' })).toBe(false);
    expect((await failure(client.api.cached({ entryId: 'no-such-model' })))?.message).toMatch(/neither in the model catalogue/);
    expect((await failure(client.api.cached({ entryId: 'smolvlm-256m' })))?.message).toMatch(/transformers, not WebLLM/);
    expect((await failure(client.api.cached({ entryId: 'smollm2-360m-q4f32', weightsBaseUrl: '/models/' })))?.message).toMatch(/absolute URLs/);
    expect(storage.fetched).toEqual([]);
  });

  it('cached and deleteCached use WebLLM\'s functions with the same app config as load', async () => {
    const source = { entryId: 'smollm2-360m-q4f32', weightsBaseUrl: `${deadUrl}/mlc/`, modelLibUrl: `${deadUrl}/libs/smollm2.wasm` };
    const o = options('smollm2-360m-q4f32', { weightsBaseUrl: source.weightsBaseUrl, modelLibUrl: source.modelLibUrl });
    await populate(o);
    expect(await client.api.cached(source)).toBe(true);
    await client.api.deleteCached(source);
    expect(await client.api.cached(source)).toBe(false);
    expect(storage.size).toBe(0);
  });

  it('generate before load says so', async () => {
    const e = await failure(client.api.generate({ request: request() }));
    expect(e?.message).toMatch(/Load the model/);
  });
});
