/**
 * Engine for an on-prem OpenAI-compatible server (vLLM, Ollama, llama.cpp
 * server, TGI): for teams whose evaluation outgrows one laptop. Never a
 * default — the user adds each endpoint and confirms its host. Images go as
 * data URLs inside the request, so the server needs no access to anything else.
 */
import { AbortedError } from '../../errors.ts';
import type { ChatTurn, Engine, EngineInfo, EngineUsage, GenerateOptions, GenerateRequest, GenerateResult, LoadOptions } from '../engine.ts';
import { EngineError } from '../errors.ts';
import { toDataUrl } from './data-url.ts';
import { readSse } from './sse.ts';

interface OpenAiEndpointConfig {
  /** Base URL including the API prefix, e.g. `http://gpu01.hospital.local:8000/v1`. */
  readonly baseUrl: string;
  readonly model: string;
  /** Sent as a bearer token when set (some gateways need one). */
  readonly apiKey?: string;
  /** Requests in flight at once (the server batches them). */
  readonly concurrency?: number;
  /** For tests and non-browser hosts. */
  readonly fetch?: typeof fetch;
}

/** Limits how many generate calls run at once. */
class Semaphore {
  #free: number;
  #waiting: (() => void)[] = [];
  constructor(n: number) {
    this.#free = Math.max(1, Math.floor(n));
  }
  async acquire(): Promise<() => void> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((r) => this.#waiting.push(r));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    };
  }
}

interface ChunkChoice {
  delta?: { content?: string | null };
  finish_reason?: string | null;
}
interface Chunk {
  choices?: ChunkChoice[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string };
}

/**
 * One turn as an OpenAI chat message: a plain string when the turn is one
 * text part, otherwise content parts in the turn's order (each image an
 * `image_url` data URL where it stands).
 */
function toOpenAiMessage(m: ChatTurn): { role: ChatTurn['role']; content: string | OpenAiContentPart[] } {
  const only = m.parts.length === 1 ? m.parts[0] : undefined;
  if (only?.type === 'text') return { role: m.role, content: only.text };
  if (m.role !== 'user' && m.parts.some((p) => p.type === 'image')) {
    throw new EngineError('ENGINE_UNSUPPORTED', `Images can only be sent in user turns, not in a ${m.role} turn.`);
  }
  return {
    role: m.role,
    content: m.parts.map((p): OpenAiContentPart => (p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image_url', image_url: { url: toDataUrl(p.image) } })),
  };
}

type OpenAiContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export class OpenAiCompatibleEngine implements Engine {
  readonly #cfg: OpenAiEndpointConfig;
  readonly #fetch: typeof fetch;
  readonly #slots: Semaphore;
  #loaded = false;

  constructor(config: OpenAiEndpointConfig) {
    this.#cfg = { ...config, baseUrl: config.baseUrl.replace(/\/+$/, '') };
    this.#fetch = config.fetch ?? ((...a) => fetch(...a));
    this.#slots = new Semaphore(config.concurrency ?? 1);
  }

  get host(): string {
    return new URL(this.#cfg.baseUrl).host;
  }

  #headers(): Record<string, string> {
    return { 'Content-Type': 'application/json', ...(this.#cfg.apiKey ? { Authorization: `Bearer ${this.#cfg.apiKey}` } : {}) };
  }

  async #request(path: string, init: RequestInit): Promise<Response> {
    let res: Response;
    try {
      res = await this.#fetch(`${this.#cfg.baseUrl}${path}`, { ...init, headers: this.#headers() });
    } catch (error) {
      if (init.signal?.aborted) throw new AbortedError();
      throw new EngineError(
        'ENGINE_UNREACHABLE',
        `The server at ${this.host} did not answer. Check that it is running, that this browser can reach it, that it allows this page's origin (CORS), and that it is listed in NeuroEval's network settings.`,
        error,
      );
    }
    if (!res.ok) {
      const body = (await res.text().catch(() => '')).slice(0, 300);
      throw new EngineError('ENGINE_HTTP', `The server at ${this.host} answered ${res.status} ${res.statusText}${body ? `: ${body}` : ''}`);
    }
    return res;
  }

  /** Checks the server is up and serves the configured model. */
  async load(options: LoadOptions = {}): Promise<EngineInfo> {
    options.onProgress?.({ phase: 'connect', done: 0, total: 1 });
    const res = await this.#request('/models', { method: 'GET', ...(options.signal ? { signal: options.signal } : {}) });
    const body = (await res.json().catch(() => null)) as { data?: { id?: string }[] } | null;
    const ids = body?.data?.map((m) => m.id).filter((id): id is string => typeof id === 'string');
    if (!ids) throw new EngineError('ENGINE_BAD_RESPONSE', `${this.host}/models did not return a model list: is this an OpenAI-compatible server?`);
    if (!ids.includes(this.#cfg.model)) {
      throw new EngineError('ENGINE_MODEL_MISSING', `The server at ${this.host} does not serve "${this.#cfg.model}". It serves: ${ids.join(', ') || 'nothing'}.`);
    }
    this.#loaded = true;
    options.onProgress?.({ phase: 'connect', done: 1, total: 1 });
    return { runtime: 'openai-compatible', runtimeVersion: 'openai-chat-completions', modelId: this.#cfg.model, device: this.host };
  }

  async generate(request: GenerateRequest, options: GenerateOptions = {}): Promise<GenerateResult> {
    if (!this.#loaded) throw new EngineError('ENGINE_NOT_LOADED', 'Connect to the endpoint (load) before generating.');
    const release = await this.#slots.acquire();
    try {
      return await this.#generate(request, options);
    } finally {
      release();
    }
  }

  async #generate(request: GenerateRequest, options: GenerateOptions): Promise<GenerateResult> {
    const s = request.sampling;
    const body = {
      model: this.#cfg.model,
      messages: request.messages.map(toOpenAiMessage),
      temperature: s.temperature,
      top_p: s.topP,
      seed: s.seed,
      max_tokens: s.maxTokens,
      stream: true,
      stream_options: { include_usage: true },
      ...(request.jsonSchema ? { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: request.jsonSchema, strict: true } } } : {}),
    };
    const t0 = performance.now();
    let ttft: number | null = null;
    let text = '';
    let finish: GenerateResult['finishReason'] = 'stop';
    let usage: Chunk['usage'] = null;
    try {
      const res = await this.#request('/chat/completions', { method: 'POST', body: JSON.stringify(body), ...(options.signal ? { signal: options.signal } : {}) });
      if (!res.body) throw new EngineError('ENGINE_BAD_RESPONSE', `${this.host} sent an empty response.`);
      for await (const data of readSse(res.body)) {
        if (data === '[DONE]') break;
        let chunk: Chunk;
        try {
          chunk = JSON.parse(data) as Chunk;
        } catch {
          throw new EngineError('ENGINE_BAD_RESPONSE', `${this.host} sent a stream event that is not JSON: ${data.slice(0, 120)}`);
        }
        if (chunk.error) throw new EngineError('ENGINE_HTTP', `${this.host} reported an error: ${chunk.error.message ?? 'unknown'}`);
        const choice = chunk.choices?.[0];
        const piece = choice?.delta?.content ?? '';
        if (piece) {
          ttft ??= performance.now() - t0;
          text += piece;
          options.onToken?.(piece);
        }
        if (choice?.finish_reason) finish = choice.finish_reason === 'length' ? 'length' : 'stop';
        if (chunk.usage) usage = chunk.usage;
      }
    } catch (error) {
      if (options.signal?.aborted || error instanceof AbortedError || (error instanceof Error && error.name === 'AbortError')) {
        return { text, finishReason: 'abort', usage: this.#usage(usage, ttft, performance.now() - t0) };
      }
      throw error;
    }
    return { text, finishReason: finish, usage: this.#usage(usage, ttft, performance.now() - t0) };
  }

  #usage(u: Chunk['usage'], ttft: number | null, total: number): EngineUsage {
    const prompt = u?.prompt_tokens ?? null;
    const completion = u?.completion_tokens ?? null;
    const decodeMs = ttft === null ? null : total - ttft;
    return {
      promptTokens: prompt,
      completionTokens: completion,
      ttftMs: ttft,
      prefillTokensPerS: prompt !== null && ttft ? (prompt / ttft) * 1000 : null,
      decodeTokensPerS: completion !== null && decodeMs && completion > 1 ? ((completion - 1) / decodeMs) * 1000 : null,
      totalMs: total,
    };
  }

  async unload(): Promise<void> {
    this.#loaded = false;
  }
}
