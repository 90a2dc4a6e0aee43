/**
 * Engine over WebLLM (`@mlc-ai/web-llm`): the fastest WebGPU runtime, with
 * Phi-3.5-vision as its VLM and small text models for judging. It runs in a
 * worker of its own. The WebLLM calls go through {@link WebLlmApi}, a subset
 * of its real `MLCEngineInterface`, so a version bump that changes them fails
 * the type check, and tests drive the same surface.
 */
import type { AppConfig, ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionRequestStreaming, InitProgressReport, MLCEngineInterface, ModelRecord, ModelType } from '@mlc-ai/web-llm';
import { AbortedError } from '../../errors.ts';
import type { Progress } from '../../model/progress.ts';
import { toDataUrl } from '../openai/data-url.ts';
import { f32Alternative, type CatalogueEntry } from '../catalogue.ts';
import { turnText } from '../../chat/turn.ts';
import type { ChatTurn, Engine, EngineImage, EngineInfo, GenerateOptions, GenerateRequest, GenerateResult, LoadOptions } from '../engine.ts';
import { EngineError } from '../errors.ts';

/** The parts of WebLLM's engine this adapter uses. */
export type WebLlmApi = Pick<MLCEngineInterface, 'reload' | 'unload' | 'resetChat' | 'interruptGenerate' | 'setInitProgressCallback' | 'setAppConfig'> & {
  chat: { completions: { create(request: ChatCompletionRequestStreaming): Promise<AsyncIterable<ChatCompletionChunk>> } };
};

/** WebLLM's cache helpers (`hasModelInCache`, `deleteModelAllInfoInCache`), injected for tests. */
export interface WebLlmCache {
  has(modelId: string, appConfig: AppConfig): Promise<boolean>;
  remove(modelId: string, appConfig: AppConfig): Promise<void>;
}

/** The two WebLLM exports {@link createWebLlmCache} wraps; the worker passes the real ones. */
interface WebLlmCacheFunctions {
  hasModelInCache(modelId: string, appConfig?: AppConfig): Promise<boolean>;
  deleteModelAllInfoInCache(modelId: string, appConfig?: AppConfig): Promise<void>;
}

/** The Cache API scopes of WebLLM's `cache` backend. */
const WEBLLM_CACHE_SCOPES = ['webllm/model', 'webllm/config', 'webllm/wasm'] as const;

/** WebLLM's `ModelType.VLM`; typed so a renumbering in WebLLM fails the type check (no runtime import of the 7 MB library here). */
const MODEL_TYPE_VLM: ModelType.VLM = 2;

export interface WebLlmOptions {
  readonly entry: CatalogueEntry;
  /** Absolute base URL of the weights, e.g. an on-prem mirror `https://models.local/mlc/`; the record adds `<model_id>/resolve/main/`. */
  readonly weightsBaseUrl: string;
  /** Absolute URL of the model library (.wasm) for this WebLLM version. */
  readonly modelLibUrl: string;
  /** Whether the adapter has `shader-f16`: f16 models are refused before anything downloads. */
  readonly shaderF16: boolean;
  readonly runtimeVersion: string;
  readonly contextWindow?: number;
}

/** The app config WebLLM needs for one model; WebLLM requires absolute URLs with `/resolve/<rev>/`. */
export function appConfigFor(o: WebLlmOptions): AppConfig {
  const base = new URL(o.weightsBaseUrl);
  const model = new URL(`${o.entry.modelId}/resolve/main/`, base.href.endsWith('/') ? base : `${base.href}/`).href;
  const record: ModelRecord = {
    model,
    model_id: o.entry.modelId,
    model_lib: new URL(o.modelLibUrl).href,
    vram_required_MB: o.entry.vramMB,
    // Without model_type VLM, WebLLM treats the model as text-only and rejects image parts.
    ...(o.entry.images ? { model_type: MODEL_TYPE_VLM } : {}),
    // WebLLM's own records cap the context (mlc-chat-config.json may ask for far more, and the KV cache is allocated up front).
    overrides: { context_window_size: o.entry.contextLength },
    ...(o.entry.needsShaderF16 ? { required_features: ['shader-f16'] } : {}),
  };
  return { model_list: [record], cacheBackend: 'cache' };
}

/**
 * One WebLLM init report as our progress: `download` while shards are fetched,
 * `load` while they go onto the GPU (and the final "Finish loading", at 1),
 * `compile` while shader modules build. Each phase runs 0 → 1.
 */
export function progressFromReport(r: InitProgressReport): Progress {
  const done = Number.isFinite(r.progress) ? Math.min(1, Math.max(0, r.progress)) : 0;
  const phase = /^(Start to fetch|Fetching)/.test(r.text) ? 'download' : /^Loading GPU shader/.test(r.text) ? 'compile' : 'load';
  if (/^Finish loading/.test(r.text)) return { phase: 'load', done: 1, total: 1, message: r.text };
  return { phase, done, total: 1, message: r.text };
}

const deviceLost = (entry: CatalogueEntry, error: unknown) =>
  new EngineError('ENGINE_DEVICE_LOST', `The GPU stopped (device lost) while running ${entry.label}, usually from running out of GPU memory. Reload the model, or pick a smaller one.`, error);

/**
 * Turns WebLLM's errors (which cross its worker as strings) into ours.
 * @param record the model record being loaded, named in download errors.
 */
export function mapWebLlmError(error: unknown, entry: CatalogueEntry, record?: Pick<ModelRecord, 'model' | 'model_lib'>): Error {
  if (error instanceof EngineError || error instanceof AbortedError) return error;
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  // WebLLM's DeviceLostError, its log line, and WebGPU's own "Device is lost" (mapAsync and friends).
  if (/DeviceLostError|device (was|is|has been) lost/i.test(text)) {
    return deviceLost(entry, error);
  }
  if (/ShaderF16SupportError|shader-f16/i.test(text)) {
    const alt = f32Alternative(entry);
    return new EngineError(
      'ENGINE_UNSUPPORTED',
      `${entry.label} needs shader-f16, which this GPU lacks. ${alt ? `Choose ${alt.label}, which computes in fp32.` : 'No fp32 build of it is in the catalogue; choose another model.'}`,
      error,
    );
  }
  if (/WebGPUNotAvailableError|WebGPUNotFoundError/.test(text)) {
    return new EngineError('ENGINE_UNSUPPORTED', 'WebLLM needs WebGPU, which this browser does not offer. Try Chrome or Edge with hardware acceleration on.', error);
  }
  // Chromium 156 (Cache.add): "TypeError: Failed to fetch" when the host is unreachable, "Failed to execute 'add' on 'Cache': Request failed"
  // for a 404; older builds said "Cache.add() encountered a network error".
  if (/Cache\.add|'add' on 'Cache'|NetworkError|Failed to fetch|network error/i.test(text)) {
    const from = record ? ` from ${record.model} (library ${record.model_lib})` : '';
    return new EngineError('ENGINE_UNREACHABLE', `The weights of ${entry.label} could not be downloaded${from}: ${text}. Check the model mirror setting, or import the model from a folder.`, error);
  }
  return error instanceof Error ? error : new Error(text);
}

/**
 * One turn as WebLLM chat messages. WebLLM takes at most ONE text part per
 * message and lays out a message as its images followed by its text
 * (`postInitAndCheckFieldsChatCompletion`, `Conversation.getPromptArray` in
 * @mlc-ai/web-llm 0.2.86). So a user turn whose parts interleave text and
 * images is sent as consecutive user messages, each holding the images that
 * come next and the text that follows them: the prompt then reads in exactly
 * the turn's order (NeuroVLM-Bench few-shot: label, its image, label, its
 * image, …). System and assistant turns are text.
 */
export function toWebLlmMessages(m: ChatTurn, entry: Pick<CatalogueEntry, 'images' | 'label'>): ChatCompletionMessageParam[] {
  const withImages = m.parts.some((p) => p.type === 'image');
  if (withImages && (m.role !== 'user' || !entry.images)) {
    throw new EngineError('ENGINE_UNSUPPORTED', m.role !== 'user' ? `Images can only be sent in user turns, not in a ${m.role} turn.` : `${entry.label} does not accept images.`);
  }
  if (m.role === 'system') return [{ role: 'system', content: turnText(m) }];
  if (m.role === 'assistant') return [{ role: 'assistant', content: turnText(m) }];
  if (!withImages) return [{ role: 'user', content: turnText(m) }];
  const segments: { images: EngineImage[]; texts: string[] }[] = [];
  let current: { images: EngineImage[]; texts: string[] } = { images: [], texts: [] };
  for (const p of m.parts) {
    if (p.type === 'image') {
      // An image after text starts the next message, so it is read after that text.
      if (current.texts.length > 0) {
        segments.push(current);
        current = { images: [], texts: [] };
      }
      current.images.push(p.image);
    } else current.texts.push(p.text);
  }
  segments.push(current);
  return segments.map((seg) =>
    seg.images.length === 0
      ? { role: 'user', content: seg.texts.join('\n') }
      : {
          role: 'user',
          content: [
            ...seg.images.map((img) => ({ type: 'image_url' as const, image_url: { url: toDataUrl(img) } })),
            { type: 'text' as const, text: seg.texts.join('\n') },
          ],
        },
  );
}

export class WebLlmEngine implements Engine {
  #loaded = false;
  constructor(
    private readonly api: WebLlmApi,
    private readonly options: WebLlmOptions,
  ) {}

  async load(opts: LoadOptions = {}): Promise<EngineInfo> {
    const { entry, shaderF16 } = this.options;
    this.#loaded = false;
    // Many f16 records do not declare shader-f16; they would fail at shader compilation after a multi-GB download.
    if (entry.needsShaderF16 && !shaderF16) throw mapWebLlmError(new Error('ShaderF16SupportError'), entry);
    const appConfig = appConfigFor(this.options);
    this.api.setAppConfig(appConfig);
    this.api.setInitProgressCallback((r: InitProgressReport) => opts.onProgress?.(progressFromReport(r)));
    const onAbort = () => void this.api.unload();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await this.api.reload(entry.modelId, this.options.contextWindow ? { context_window_size: this.options.contextWindow } : undefined);
    } catch (error) {
      if (opts.signal?.aborted) throw new AbortedError();
      throw mapWebLlmError(error, entry, appConfig.model_list[0]);
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
    if (opts.signal?.aborted) throw new AbortedError();
    this.#loaded = true;
    return { runtime: 'webllm', runtimeVersion: this.options.runtimeVersion, modelId: entry.modelId, device: 'webgpu' };
  }

  async generate(request: GenerateRequest, opts: GenerateOptions = {}): Promise<GenerateResult> {
    if (!this.#loaded) throw new EngineError('ENGINE_NOT_LOADED', 'Load the model before generating.');
    const entry = this.options.entry;
    const messages = request.messages.flatMap((m) => toWebLlmMessages(m, entry));
    const s = request.sampling;
    const t0 = performance.now();
    let ttft: number | null = null;
    let text = '';
    let finish: GenerateResult['finishReason'] = 'stop';
    let usage: ChatCompletionChunk['usage'] | undefined;
    const onAbort = () => void this.api.interruptGenerate();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // Every benchmark item starts from an empty conversation: no KV cache reuse between items.
      await this.api.resetChat();
      if (opts.signal?.aborted) return { text: '', finishReason: 'abort', usage: { promptTokens: null, completionTokens: null, ttftMs: null, prefillTps: null, decodeTps: null, totalMs: performance.now() - t0 } };
      const stream = await this.api.chat.completions.create({
        messages,
        stream: true,
        stream_options: { include_usage: true },
        temperature: s.temperature,
        top_p: s.topP,
        seed: s.seed,
        max_tokens: s.maxTokens,
        ...(request.jsonSchema ? { response_format: { type: 'json_object', schema: JSON.stringify(request.jsonSchema) } } : {}),
      });
      for await (const chunk of stream) {
        // WebLLM clears its interrupt flag when the generation starts, so an abort during prefill is lost: repeat it.
        if (opts.signal?.aborted) void this.api.interruptGenerate();
        const choice = chunk.choices[0];
        const piece = choice?.delta.content ?? '';
        if (piece) {
          ttft ??= performance.now() - t0;
          text += piece;
          opts.onToken?.(piece);
        }
        if (choice?.finish_reason) finish = choice.finish_reason === 'length' ? 'length' : choice.finish_reason === 'abort' ? 'abort' : 'stop';
        if (chunk.usage) usage = chunk.usage;
      }
    } catch (error) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      // WebLLM unloads the model itself when the device is lost; the next request then finds no model.
      const mapped = /ModelNotLoadedError|Model not loaded/.test(detail) ? deviceLost(entry, error) : mapWebLlmError(error, entry);
      if (mapped instanceof EngineError && mapped.engineCode === 'ENGINE_DEVICE_LOST') this.#loaded = false;
      throw mapped;
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
    if (opts.signal?.aborted) finish = 'abort';
    const extra = usage?.extra;
    return {
      text,
      finishReason: finish,
      usage: {
        promptTokens: usage?.prompt_tokens ?? null,
        completionTokens: usage?.completion_tokens ?? null,
        ttftMs: extra?.time_to_first_token_s !== undefined ? extra.time_to_first_token_s * 1000 : ttft,
        prefillTps: extra?.prefill_tokens_per_s ?? null,
        decodeTps: extra?.decode_tokens_per_s ?? null,
        totalMs: performance.now() - t0,
      },
    };
  }

  async unload(): Promise<void> {
    this.#loaded = false;
    await this.api.unload();
  }
}

/** Cache listing and deletion for the model manager. */
export async function isCached(cache: WebLlmCache, o: WebLlmOptions): Promise<boolean> {
  return cache.has(o.entry.modelId, appConfigFor(o));
}

export async function deleteCached(cache: WebLlmCache, o: WebLlmOptions): Promise<void> {
  await cache.remove(o.entry.modelId, appConfigFor(o));
}

/**
 * The {@link WebLlmCache} the worker uses: WebLLM's own functions, then, when
 * `storage` (the Cache API's `caches`) is given, a sweep of every cached file
 * under the model's URL and its library. WebLLM's deletion must read
 * `tensor-cache.json` first (downloading it when absent, failing offline) and
 * leaves that file behind; the sweep also clears half-finished downloads.
 */
export function createWebLlmCache(fns: WebLlmCacheFunctions, storage?: Pick<CacheStorage, 'has' | 'open'>): WebLlmCache {
  return {
    has: (modelId, appConfig) => fns.hasModelInCache(modelId, appConfig),
    async remove(modelId, appConfig) {
      let failure: unknown = null;
      try {
        await fns.deleteModelAllInfoInCache(modelId, appConfig);
      } catch (error) {
        failure = error;
      }
      if (!storage) {
        if (failure !== null) throw failure;
        return;
      }
      await sweepModelFromCaches(storage, modelId, appConfig);
    },
  };
}

/** Deletes every entry of WebLLM's cache scopes that belongs to one model of `appConfig`; returns how many. */
async function sweepModelFromCaches(storage: Pick<CacheStorage, 'has' | 'open'>, modelId: string, appConfig: AppConfig): Promise<number> {
  const record = appConfig.model_list.find((r) => r.model_id === modelId);
  if (!record) return 0;
  const prefix = record.model.endsWith('/') ? record.model : `${record.model}/`;
  let removed = 0;
  for (const scope of WEBLLM_CACHE_SCOPES) {
    if (!(await storage.has(scope))) continue;
    const cache = await storage.open(scope);
    for (const request of await cache.keys()) {
      if (request.url.startsWith(prefix) || request.url === record.model_lib) {
        if (await cache.delete(request)) removed++;
      }
    }
  }
  return removed;
}
