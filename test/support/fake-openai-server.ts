/**
 * A local stand-in for an on-prem OpenAI-compatible server (vLLM, Ollama…):
 * `/v1/models`, `/v1/chat/completions` (streamed or not) and `/v1/embeddings`
 * (a deterministic unit vector per text), with CORS so the
 * app in the browser can call it. Records what it received.
 *
 * It checks each request the way vLLM's OpenAI server does (see
 * `openai-validation.ts`) and refuses a bad one with vLLM's error body. With
 * `answers: 'deterministic'` the answer depends only on the prompt, the
 * images and the seed (a JSON object following the request's schema when it
 * sends one), so two runs of the same items get the same answers. It can also
 * fail a seeded share of requests with 429 or 500, as a loaded server does,
 * and behave as a broken or hostile one: echo the request's Authorization
 * header in its error or its answer, close an answer stream mid-answer
 * (cleanly, or by dropping the connection), or stream far more than the
 * token budget allows.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mulberry32 } from '../../src/core/random/mulberry32.ts';
import { validateChatRequest, vllmError, type ChatRequest } from './openai-validation.ts';

export interface FakeOpenAiOptions {
  /**
   * `connected` (default): every answer is "Connected." (97 prompt / 2
   * completion tokens). `deterministic`: an answer derived from prompt,
   * images and seed, schema-shaped when the request has a JSON schema.
   */
  readonly answers?: 'connected' | 'deterministic';
  /** Fail this share (0–1) of chat requests, half 429 (with Retry-After: 0) and half 500, drawn from `failureSeed`. */
  readonly failureRate?: number;
  readonly failureSeed?: number;
  /** Fail with this status only (a 500 carries no Retry-After, so a client waits its own back-off). */
  readonly failureStatus?: 429 | 500;
  /** Wait this long before answering each chat request (ms). */
  readonly latencyMs?: number;
  /**
   * Repeat the request's Authorization header: `error` answers every chat
   * request 400 "Invalid header: <header>" (as some gateways do), `answer`
   * streams it inside the answer text, `alternate` does one then the other.
   */
  readonly echoAuthorization?: 'error' | 'answer' | 'alternate';
  /**
   * Close this many chat answer streams (the first ones) after their first
   * pieces, with no finish reason and no [DONE]: `end` ends the response
   * cleanly, `destroy` drops the connection. Infinity: every one.
   */
  readonly cutStreams?: { readonly count: number; readonly how: 'end' | 'destroy' };
  /** Stream an answer of about this many bytes, in 64 KiB pieces, whatever max_tokens says. */
  readonly oversizeBytes?: number;
}

export interface FakeOpenAi {
  readonly baseUrl: string;
  /** Every chat request body, valid or not, in arrival order. */
  readonly received: Record<string, unknown>[];
  /** The Authorization header of every request, in order ('' when absent). */
  readonly authorizations: string[];
  /** Every text sent to `/v1/embeddings`, in arrival order. */
  readonly embedded: string[];
  /** Requests refused as invalid: status and vLLM's message. */
  readonly rejected: { status: number; message: string }[];
  /** Failures sent on purpose (429 or 500), in order. */
  readonly injected: number[];
  /** Chat requests answered successfully. */
  readonly answered: () => number;
  /** Answer streams closed mid-answer on purpose. */
  readonly cut: () => number;
  /** Most chat requests being answered at once. */
  readonly maxInFlight: () => number;
  /** Total time (ms) spent on chat requests, from arrival to the last byte sent: the engine's share of a run. */
  readonly serverMs: () => number;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let s = '';
    req.on('data', (c) => (s += c));
    req.on('end', () => resolve(s));
  });
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** A value following a (small) JSON schema, chosen by the bytes of `h`: enums pick a member, strings a word. */
function instanceOf(schema: unknown, h: Buffer, depth = 0): unknown {
  const s = (schema ?? {}) as Record<string, unknown>;
  const byte = (i: number) => h[(depth * 7 + i) % h.length]!;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[byte(0) % s.enum.length];
  const variants = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(variants) && variants.length) return instanceOf(variants[byte(1) % variants.length], h, depth + 1);
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(props).map(([k, v], i) => [k, instanceOf(v, digest(`${h.toString('hex')}:${k}`), depth + i + 1)]));
    }
    case 'array':
      return [instanceOf(s.items, h, depth + 1)];
    case 'integer':
    case 'number': {
      const min = typeof s.minimum === 'number' ? s.minimum : 0;
      const max = typeof s.maximum === 'number' ? s.maximum : min + 100;
      const v = min + (byte(2) / 255) * (max - min);
      return type === 'integer' ? Math.round(v) : Math.round(v * 100) / 100;
    }
    case 'boolean':
      return byte(3) % 2 === 0;
    default:
      return `finding-${h.toString('hex').slice(0, 8)}`;
  }
}

/** What the deterministic server says to a valid request: same prompt, images and seed, same answer. */
function deterministicAnswer(req: ChatRequest): { text: string; promptTokens: number } {
  const prompt = req.messages.map((m) => `${m.role}:${m.texts.join('\n')}`).join('\n');
  const h = digest(JSON.stringify([prompt, req.imageHashes, req.seed ?? null]));
  const schema = req.responseFormat?.type === 'json_schema' ? req.responseFormat.schema : null;
  const text = schema ? JSON.stringify(instanceOf(schema, h)) : req.responseFormat?.type === 'json_object' ? JSON.stringify({ answer: `finding-${h.toString('hex').slice(0, 8)}` }) : `Finding ${h.toString('hex').slice(0, 8)}.`;
  return { text, promptTokens: prompt.split(/\s+/).length + 64 * req.imageHashes.length };
}

/** Splits an answer into a few stream pieces (word boundaries), never cutting the text. */
function pieces(text: string): string[] {
  const parts = text.match(/\S+\s*|\s+/g) ?? [text];
  return parts.length ? parts : [''];
}

export async function startFakeOpenAi(models: string[] = ['medgemma-4b-it'], options: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const received: Record<string, unknown>[] = [];
  const authorizations: string[] = [];
  const rejected: { status: number; message: string }[] = [];
  const injected: number[] = [];
  const embedded: string[] = [];
  const failureDraw = mulberry32(options.failureSeed ?? 1);
  let answered = 0;
  let cut = 0;
  let chats = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let serverMs = 0;
  const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'Content-Type, Authorization', 'Access-Control-Allow-Methods': 'GET, POST' };
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { ...cors, 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const arrived = performance.now();
    try {
      await respond(req, res);
    } finally {
      if (req.url === '/v1/chat/completions') serverMs += performance.now() - arrived;
    }
  };
  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      res.end();
      return;
    }
    authorizations.push(req.headers.authorization ?? '');
    if (req.url === '/v1/models') {
      json(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', owned_by: 'vllm' })) });
      return;
    }
    if (req.url === '/v1/embeddings' && req.method === 'POST') {
      const body = JSON.parse(await readBody(req)) as { model?: string; input?: unknown };
      const input = typeof body.input === 'string' ? [body.input] : body.input;
      if (!models.includes(body.model ?? '') || !Array.isArray(input) || !input.every((t) => typeof t === 'string')) {
        json(res, 400, vllmError(400, 'embeddings need a served model and input text'));
        return;
      }
      embedded.push(...(input as string[]));
      // A unit vector drawn from the text's hash: the same text, the same vector.
      const data = (input as string[]).map((t, index) => {
        const d = createHash('sha256').update(t).digest();
        const v = Array.from({ length: 16 }, (_, k) => d[k]! / 255 - 0.5);
        const n = Math.hypot(...v);
        return { object: 'embedding', index, embedding: v.map((x) => x / n) };
      });
      json(res, 200, { object: 'list', model: body.model, data });
      return;
    }
    if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
      json(res, 404, vllmError(404, `Route ${req.method} ${req.url} not found`));
      return;
    }
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      received.push({ unparsable: text.slice(0, 200) });
      rejected.push({ status: 400, message: 'body is not JSON' });
      json(res, 400, vllmError(400, 'JSON decode error: the request body is not JSON'));
      return;
    }
    received.push(body as Record<string, unknown>);
    const checked = validateChatRequest(body, models);
    if (!checked.ok) {
      rejected.push({ status: checked.status, message: checked.message });
      json(res, checked.status, vllmError(checked.status, checked.message));
      return;
    }
    if (options.failureRate && failureDraw() < options.failureRate) {
      const status = options.failureStatus ?? (failureDraw() < 0.5 ? 429 : 500);
      injected.push(status);
      if (status === 429) json(res, 429, vllmError(429, 'The server is busy: too many requests in the queue.'), { 'Retry-After': '0' });
      else json(res, 500, vllmError(500, 'Internal server error (injected by the test server).'));
      return;
    }
    const request = checked.request;
    const auth = req.headers.authorization ?? '';
    const echo = options.echoAuthorization === 'alternate' ? (chats % 2 === 0 ? 'error' : 'answer') : options.echoAuthorization;
    chats++;
    if (echo === 'error') {
      json(res, 400, { error: `400 Bad Request: Invalid header: ${auth}` });
      return;
    }
    if (options.oversizeBytes !== undefined && request.stream) {
      res.writeHead(200, { ...cors, 'Content-Type': 'text/event-stream' });
      const piece = 'x'.repeat(64 * 1024);
      for (let sent = 0; sent < options.oversizeBytes && !res.destroyed; sent += piece.length) {
        res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: piece }, finish_reason: null }] })}\n\n`);
      }
      res.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: 'stop' }] })}\n\n`);
      res.end('data: [DONE]\n\n');
      answered++;
      return;
    }
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
      const given = options.answers === 'deterministic' ? deterministicAnswer(request) : { text: 'Connected.', promptTokens: 97 };
      const answer = echo === 'answer' ? { ...given, text: `${given.text} (request header Authorization: ${auth})` } : given;
      const parts = options.answers === 'deterministic' || echo === 'answer' ? pieces(answer.text) : ['Connected', '.'];
      const usage = { prompt_tokens: answer.promptTokens, completion_tokens: options.answers === 'deterministic' ? parts.length : 2 };
      usage.completion_tokens = Math.min(usage.completion_tokens, request.maxTokens ?? Infinity);
      const finish = request.maxTokens !== undefined && parts.length > request.maxTokens ? 'length' : 'stop';
      const sent = request.maxTokens !== undefined ? parts.slice(0, request.maxTokens) : parts;
      if (!request.stream) {
        json(res, 200, { object: 'chat.completion', model: request.model, choices: [{ index: 0, message: { role: 'assistant', content: sent.join('') }, finish_reason: finish }], usage });
        answered++;
        return;
      }
      res.writeHead(200, { ...cors, 'Content-Type': 'text/event-stream' });
      if (options.cutStreams && cut < options.cutStreams.count) {
        cut++;
        // Half the answer, then nothing: no finish reason, no [DONE].
        for (const piece of sent.slice(0, Math.max(1, Math.floor(sent.length / 2)))) res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: piece }, finish_reason: null }] })}\n\n`);
        await new Promise((r) => setTimeout(r, 5));
        if (options.cutStreams.how === 'destroy') res.destroy();
        else res.end();
        return;
      }
      for (const piece of sent) {
        res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: piece }, finish_reason: null }] })}\n\n`);
        if (options.answers !== 'deterministic') await new Promise((r) => setTimeout(r, 10));
      }
      res.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: finish }] })}\n\n`);
      if (request.includeUsage) res.write(`data: ${JSON.stringify({ choices: [], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
      answered++;
    } finally {
      inFlight--;
    }
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    authorizations,
    rejected,
    injected,
    embedded,
    answered: () => answered,
    cut: () => cut,
    maxInFlight: () => maxInFlight,
    serverMs: () => serverMs,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
