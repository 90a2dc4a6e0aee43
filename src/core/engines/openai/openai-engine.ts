/**
 * Engine for an on-prem OpenAI-compatible server (vLLM, Ollama, llama.cpp
 * server, TGI): for teams whose evaluation outgrows one laptop. Never a
 * default — the user adds each endpoint and confirms its host. Images go as
 * data URLs inside the request, so the server needs no access to anything else.
 *
 * What comes back is not trusted: every string the server returns (error
 * messages, status text, model names, the answer) has the API key and any
 * `Bearer …` token replaced before it leaves this class, so a server that
 * echoes the request's headers cannot put the key into a stored answer, a
 * journal or an export. A stream that ends without the server's finish
 * marker was cut (a proxy, a crash): it is asked again like a 5xx, never
 * kept as a complete answer. An answer past the bytes its token budget
 * allows is cut there and marked truncated.
 */
import { AbortedError, isAbortLike } from '../../errors.ts';
import { redactSecrets, StreamRedactor } from '../../security/redact.ts';
import { answerByteCap, capAnswer, type ChatTurn, type Engine, type EngineInfo, type EngineUsage, type GenerateOptions, type GenerateRequest, type GenerateResult, type LoadOptions } from '../engine.ts';
import { EngineError } from '../errors.ts';
import { toDataUrl } from './data-url.ts';
import { attemptSignal, backoffMs, DEFAULT_RETRY_POLICY, isRetryableStatus, retryAfterMs, sleep, type RetryPolicy } from './retry.ts';
import { readSse } from './sse.ts';

interface OpenAiEndpointConfig {
  /** Base URL including the API prefix, e.g. `http://gpu01.hospital.local:8000/v1`. */
  readonly baseUrl: string;
  readonly model: string;
  /** Sent as a bearer token when set (some gateways need one). */
  readonly apiKey?: string;
  /** Requests in flight at once (the server batches them). */
  readonly concurrency?: number;
  /** Retries on 429/5xx and timeouts, and the limit of one attempt; see {@link DEFAULT_RETRY_POLICY}. */
  readonly retry?: Partial<RetryPolicy>;
  /** Jitter source, for tests. */
  readonly random?: () => number;
  /** For tests and non-browser hosts. */
  readonly fetch?: typeof fetch;
}

const encoder = new TextEncoder();

/** UTF-8 bytes of a piece of text. */
function utf8Length(text: string): number {
  return encoder.encode(text).length;
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

/**
 * The server refused a request (a 4xx other than 429, whose message is the
 * server's own), or kept failing (429, 5xx, no answer in time) until the
 * retries ran out. `status` is the last HTTP status, null when the last
 * attempt timed out.
 */
export class EndpointHttpError extends EngineError {
  readonly endpoint: string;
  readonly status: number | null;
  readonly attempts: number;
  constructor(endpoint: string, status: number | null, attempts: number, message: string) {
    super('ENGINE_HTTP', message);
    this.endpoint = endpoint;
    this.status = status;
    this.attempts = attempts;
  }
}

/** An answer stream that ended (or broke off) before the server said it was finished. */
class StreamCutError extends Error {}

/** The message of an error body (vLLM: `{message}`, OpenAI: `{error: {message}}`), else the body's start. */
function serverMessage(body: string): string {
  try {
    const j = JSON.parse(body) as { message?: unknown; error?: { message?: unknown } | string };
    const m = j.message ?? (typeof j.error === 'object' ? j.error?.message : j.error);
    if (typeof m === 'string' && m) return m.slice(0, 500);
  } catch {
    // Not JSON: a proxy's HTML or plain text.
  }
  return body.slice(0, 300);
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
  readonly #policy: RetryPolicy;
  readonly #random: () => number;
  #loaded = false;

  constructor(config: OpenAiEndpointConfig) {
    this.#cfg = { ...config, baseUrl: config.baseUrl.replace(/\/+$/, '') };
    this.#fetch = config.fetch ?? ((...a) => fetch(...a));
    this.#slots = new Semaphore(config.concurrency ?? 1);
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...config.retry };
    this.#random = config.random ?? Math.random;
  }

  get host(): string {
    return new URL(this.#cfg.baseUrl).host;
  }

  /** Text from the server, without the key or any bearer token. */
  #redact(text: string): string {
    return redactSecrets(text, this.#cfg.apiKey ? [this.#cfg.apiKey] : []);
  }

  #headers(): Record<string, string> {
    return { 'Content-Type': 'application/json', ...(this.#cfg.apiKey ? { Authorization: `Bearer ${this.#cfg.apiKey}` } : {}) };
  }

  /**
   * Sends one request and hands a successful response to `consume`, within
   * the same attempt (so the time limit covers the streamed answer too).
   * 429, 5xx, timeouts and answer streams cut short are asked again after a
   * back-off, up to the policy's retries; any other 4xx stops at once with
   * the server's message. A caller's abort ends it with AbortedError, also
   * during a back-off. Every server text in an error is redacted.
   */
  async #send<T>(path: string, init: { method: string; body?: string }, caller: AbortSignal | undefined, consume: (res: Response, signal: AbortSignal) => Promise<T>): Promise<T> {
    const policy = this.#policy;
    for (let attempt = 1; ; attempt++) {
      const limit = attemptSignal(caller, policy.timeoutMs);
      let failed: { status: number | null; text: string; retryAfter: number | null };
      try {
        let res: Response;
        try {
          res = await this.#fetch(`${this.#cfg.baseUrl}${path}`, { ...init, headers: this.#headers(), signal: limit.signal });
        } catch (error) {
          if (caller?.aborted) throw new AbortedError();
          if (!limit.timedOut()) throw this.#unreachable(error);
          throw error;
        }
        if (res.ok) return await consume(res, limit.signal);
        const detail = this.#redact(serverMessage(await res.text().catch(() => '')));
        const text = `${res.status} ${this.#redact(res.statusText)}${detail ? `: ${detail}` : ''}`;
        if (!isRetryableStatus(res.status)) throw new EndpointHttpError(this.host, res.status, attempt, `The server at ${this.host} refused the request: ${text}`);
        failed = { status: res.status, text, retryAfter: retryAfterMs(res.headers.get('retry-after')) };
      } catch (error) {
        if (caller?.aborted) throw new AbortedError();
        if (error instanceof StreamCutError) failed = { status: null, text: 'an answer stream that ended before the server finished it', retryAfter: null };
        else if (limit.timedOut()) failed = { status: null, text: `no complete answer within ${(policy.timeoutMs ?? 0) / 1000} s`, retryAfter: null };
        else throw error;
      } finally {
        limit.dispose();
      }
      if (attempt > policy.retries) {
        const tries = attempt === 1 ? '1 attempt' : `${attempt} attempts`;
        const verb = failed.status === null ? 'gave' : 'answered';
        const last = failed.status ?? (failed.text.startsWith('no complete') ? 'a timeout' : 'a cut-off stream');
        throw new EndpointHttpError(this.host, failed.status, attempt, `The server at ${this.host} ${verb} ${failed.text} (${tries}; the last status was ${last}).`);
      }
      await sleep(backoffMs(attempt, policy, failed.retryAfter, this.#random), caller);
    }
  }

  #unreachable(error: unknown): EngineError {
    return new EngineError(
      'ENGINE_UNREACHABLE',
      `The server at ${this.host} did not answer. Check that it is running, that this browser can reach it, that it allows this page's origin (CORS), and that it is listed in NeuroEval's network settings.`,
      error,
    );
  }

  /** Checks the server is up and serves the configured model. */
  async load(options: LoadOptions = {}): Promise<EngineInfo> {
    options.onProgress?.({ phase: 'connect', done: 0, total: 1 });
    const body = (await this.#send('/models', { method: 'GET' }, options.signal, (res) => res.json().catch(() => null))) as { data?: { id?: string }[] } | null;
    const ids = body?.data?.map((m) => m.id).filter((id): id is string => typeof id === 'string');
    if (!ids) throw new EngineError('ENGINE_BAD_RESPONSE', `${this.host}/models did not return a model list: is this an OpenAI-compatible server?`);
    if (!ids.includes(this.#cfg.model)) {
      throw new EngineError('ENGINE_MODEL_MISSING', `The server at ${this.host} does not serve "${this.#cfg.model}". It serves: ${this.#redact(ids.join(', ')) || 'nothing'}.`);
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
    const cap = answerByteCap(s.maxTokens);
    // What the caller was shown: a retried attempt shows only what goes beyond it, and nothing of a secret.
    const shown = new StreamRedactor(this.#cfg.apiKey ? [this.#cfg.apiKey] : []);
    let shownLength = 0;
    let ttft: number | null = null;
    let text = '';
    let finish: GenerateResult['finishReason'] = 'stop';
    let truncated = false;
    let usage: Chunk['usage'] = null;
    const read = async (res: Response, signal: AbortSignal): Promise<void> => {
      if (!res.body) throw new EngineError('ENGINE_BAD_RESPONSE', `${this.host} sent an empty response.`);
      // Each attempt starts the answer afresh.
      text = '';
      finish = 'stop';
      truncated = false;
      usage = null;
      let bytes = 0;
      let finished = false;
      try {
        for await (const data of readSse(res.body)) {
          if (data === '[DONE]') {
            finished = true;
            break;
          }
          let chunk: Chunk;
          try {
            chunk = JSON.parse(data) as Chunk;
          } catch {
            throw new EngineError('ENGINE_BAD_RESPONSE', `${this.host} sent a stream event that is not JSON: ${this.#redact(data.slice(0, 120))}`);
          }
          if (chunk.error) throw new EngineError('ENGINE_HTTP', `${this.host} reported an error: ${this.#redact(chunk.error.message ?? 'unknown')}`);
          const choice = chunk.choices?.[0];
          const piece = choice?.delta?.content ?? '';
          if (piece) {
            ttft ??= performance.now() - t0;
            text += piece;
            bytes += utf8Length(piece);
            if (text.length > shownLength) {
              const fresh = shown.push(text.slice(shownLength));
              shownLength = text.length;
              if (fresh) options.onToken?.(fresh);
            }
          }
          if (choice?.finish_reason) {
            finish = choice.finish_reason === 'length' ? 'length' : 'stop';
            finished = true;
          }
          if (chunk.usage) usage = chunk.usage;
          if (bytes > cap) {
            // A runaway answer: keep what the budget allows and stop reading the rest.
            truncated = true;
            finished = true;
            break;
          }
        }
      } catch (error) {
        if (error instanceof EngineError || signal.aborted) throw error;
        // The connection broke mid-answer (reset, proxy timeout): the same as a stream cut short.
        throw new StreamCutError(error instanceof Error ? error.message : String(error));
      } finally {
        if (truncated) await res.body.cancel().catch(() => undefined);
      }
      if (!finished) throw new StreamCutError('no finish marker');
    };
    try {
      await this.#send('/chat/completions', { method: 'POST', body: JSON.stringify(body) }, options.signal, read);
    } catch (error) {
      if (options.signal?.aborted || isAbortLike(error)) {
        return { text: this.#redact(text), finishReason: 'abort', usage: this.#usage(usage, ttft, performance.now() - t0) };
      }
      throw error;
    }
    const rest = shown.end();
    if (rest) options.onToken?.(rest);
    const capped = truncated ? capAnswer(text, s.maxTokens) : { text, truncated: false };
    return {
      text: this.#redact(capped.text),
      finishReason: capped.truncated ? 'length' : finish,
      usage: this.#usage(usage, ttft, performance.now() - t0),
      ...(capped.truncated ? { truncated: true } : {}),
    };
  }

  #usage(u: Chunk['usage'], ttft: number | null, total: number): EngineUsage {
    const prompt = u?.prompt_tokens ?? null;
    const completion = u?.completion_tokens ?? null;
    const decodeMs = ttft === null ? null : total - ttft;
    return {
      promptTokens: prompt,
      completionTokens: completion,
      ttftMs: ttft,
      prefillTps: prompt !== null && ttft ? (prompt / ttft) * 1000 : null,
      decodeTps: completion !== null && decodeMs && completion > 1 ? ((completion - 1) / decodeMs) * 1000 : null,
      totalMs: total,
    };
  }

  /**
   * Sentence vectors from the server's `/embeddings` (an embedding model it
   * serves), through the same retries, time limit and key as generation;
   * one vector per text, in order.
   */
  async embed(texts: readonly string[], options: GenerateOptions = {}): Promise<Float32Array[]> {
    if (!this.#loaded) throw new EngineError('ENGINE_NOT_LOADED', 'Connect to the endpoint (load) before asking for embeddings.');
    const body = JSON.stringify({ model: this.#cfg.model, input: texts, encoding_format: 'float' });
    const res = (await this.#send('/embeddings', { method: 'POST', body }, options.signal, (r) => r.json().catch(() => null))) as { data?: { index?: number; embedding?: unknown }[] } | null;
    const rows = [...(res?.data ?? [])].sort((x, y) => (x.index ?? 0) - (y.index ?? 0));
    if (rows.length !== texts.length || !rows.every((r) => Array.isArray(r.embedding) && r.embedding.every((x) => typeof x === 'number'))) {
      throw new EngineError('ENGINE_BAD_RESPONSE', `${this.host}/embeddings did not return one vector of numbers per text (${texts.length} sent).`);
    }
    return rows.map((r) => Float32Array.from(r.embedding as number[]));
  }

  async unload(): Promise<void> {
    this.#loaded = false;
  }
}
