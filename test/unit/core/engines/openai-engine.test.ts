/**
 * The on-prem OpenAI-compatible engine against a real local HTTP server that
 * speaks the chat-completions streaming protocol.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textTurn } from '../../../../src/core/chat/turn.ts';
import type { ChatTurn, GenerateRequest } from '../../../../src/core/engines/engine.ts';
import { OpenAiCompatibleEngine } from '../../../../src/core/engines/openai/openai-engine.ts';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';

interface Seen {
  body: Record<string, unknown>;
  auth?: string;
}
const seen: Seen[] = [];
let inFlight = 0;
let maxInFlight = 0;
let server: Server;
let base = '';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let s = '';
    req.on('data', (c) => (s += c));
    req.on('end', () => resolve(s));
  });
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  if (req.url === '/v1/models') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [{ id: 'medgemma-4b' }, { id: 'qwen2.5-vl-7b' }] }));
    return;
  }
  if (req.url !== '/v1/chat/completions') {
    res.writeHead(404);
    res.end();
    return;
  }
  const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
  seen.push({ body, ...(req.headers.authorization ? { auth: req.headers.authorization } : {}) });
  const text = String((body.messages as { content: unknown }[]).at(-1)?.content instanceof Array ? 'image' : 'text');
  if (JSON.stringify(body).includes('FAIL500')) {
    res.writeHead(500, { 'Content-Type': 'text/plain' });
    res.end('CUDA out of memory');
    return;
  }
  inFlight++;
  maxInFlight = Math.max(maxInFlight, inFlight);
  res.writeHead(200, { 'Content-Type': 'text/event-stream' });
  const slow = JSON.stringify(body).includes('SLOW');
  const pieces = ['{"diagnosis":', ' "glioma",', ` "seen": "${text}"}`];
  for (const p of pieces) {
    res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: p }, finish_reason: null }] })}\n\n`);
    await new Promise((r) => setTimeout(r, slow ? 150 : 20));
  }
  res.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: body.max_tokens === 2 ? 'length' : 'stop' }] })}\n\n`);
  res.write(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 812, completion_tokens: 9 } })}\n\n`);
  res.end('data: [DONE]\n\n');
  inFlight--;
}

beforeAll(async () => {
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const png = encodePng(new Uint8Array(16).fill(200), 4, 4);
const request = (extra = '', maxTokens = 64): GenerateRequest => ({
  messages: [
    textTurn('system', 'You are a neuroradiologist.'),
    {
      role: 'user',
      parts: [
        { type: 'text', text: `Classify this scan. ${extra}` },
        { type: 'image', image: { bytes: png, mime: 'image/png' } },
        { type: 'image', image: { bytes: png, mime: 'image/png' } },
      ],
    },
  ],
  sampling: { temperature: 0, topP: 1, seed: 42, maxTokens },
  jsonSchema: { type: 'object', properties: { diagnosis: { type: 'string' } }, required: ['diagnosis'] },
});

describe('OpenAI-compatible engine', () => {
  it('checks the model is served, then streams an answer with usage figures', async () => {
    const engine = new OpenAiCompatibleEngine({ baseUrl: base, model: 'medgemma-4b', apiKey: 'secret' });
    expect(await engine.load()).toMatchObject({ runtime: 'openai-compatible', modelId: 'medgemma-4b', device: expect.stringMatching(/^127\.0\.0\.1:\d+$/) });
    const tokens: string[] = [];
    const result = await engine.generate(request(), { onToken: (t) => tokens.push(t) });
    expect(result.text).toBe('{"diagnosis": "glioma", "seen": "image"}');
    expect(tokens).toHaveLength(3);
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toMatchObject({ promptTokens: 812, completionTokens: 9 });
    expect(Number.isFinite(result.usage.ttftMs)).toBe(true);
    expect(Number.isFinite(result.usage.decodeTps)).toBe(true);

    const sent = seen.at(-1)!;
    expect(sent.auth).toBe('Bearer secret');
    expect(sent.body).toMatchObject({ model: 'medgemma-4b', temperature: 0, top_p: 1, seed: 42, max_tokens: 64, stream: true, stream_options: { include_usage: true } });
    expect(sent.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'answer', strict: true, schema: request().jsonSchema } });
    const user = (sent.body.messages as { role: string; content: { type: string; image_url?: { url: string } }[] }[])[1]!;
    expect(user.content.map((p) => p.type)).toEqual(['text', 'image_url', 'image_url']);
    expect(user.content[1]!.image_url!.url).toBe(`data:image/png;base64,${Buffer.from(png).toString('base64')}`);
  });

  it('sends an interleaved turn as content parts in its exact order, each image as a data URL of its bytes', async () => {
    const png1 = encodePng(new Uint8Array(16).fill(10), 4, 4);
    const jpeg2 = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);
    const turn: ChatTurn = {
      role: 'user',
      parts: [
        { type: 'text', text: 'A: Example 1 — class: glioma' },
        { type: 'image', image: { bytes: png1, mime: 'image/png' } },
        { type: 'text', text: 'B: Example 2 — class: meningioma' },
        { type: 'image', image: { bytes: jpeg2, mime: 'image/jpeg' } },
      ],
    };
    const engine = new OpenAiCompatibleEngine({ baseUrl: base, model: 'medgemma-4b' });
    await engine.load();
    await engine.generate({ messages: [textTurn('system', 'You are a neuroradiologist.'), turn], sampling: { temperature: 0, topP: 1, seed: 42, maxTokens: 64 } });

    const messages = seen.at(-1)!.body.messages as { role: string; content: unknown }[];
    expect(messages).toEqual([
      { role: 'system', content: 'You are a neuroradiologist.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'A: Example 1 — class: glioma' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${Buffer.from(png1).toString('base64')}` } },
          { type: 'text', text: 'B: Example 2 — class: meningioma' },
          { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${Buffer.from(jpeg2).toString('base64')}` } },
        ],
      },
    ]);
  });

  it('reports a length stop', async () => {
    const engine = new OpenAiCompatibleEngine({ baseUrl: base, model: 'medgemma-4b' });
    await engine.load();
    expect((await engine.generate(request('', 2))).finishReason).toBe('length');
  });

  it('names the host and what to do when the model is missing, the server fails, or nothing answers', async () => {
    await expect(new OpenAiCompatibleEngine({ baseUrl: base, model: 'llava' }).load()).rejects.toMatchObject({ engineCode: 'ENGINE_MODEL_MISSING', message: expect.stringContaining('It serves: medgemma-4b, qwen2.5-vl-7b') });
    const engine = new OpenAiCompatibleEngine({ baseUrl: base, model: 'medgemma-4b', retry: { baseDelayMs: 1 } });
    await engine.load();
    await expect(engine.generate(request('FAIL500'))).rejects.toMatchObject({ engineCode: 'ENGINE_HTTP', message: expect.stringContaining('500 Internal Server Error: CUDA out of memory') });
    await expect(new OpenAiCompatibleEngine({ baseUrl: 'http://127.0.0.1:9/v1', model: 'x' }).load()).rejects.toMatchObject({ engineCode: 'ENGINE_UNREACHABLE', message: expect.stringContaining('127.0.0.1:9 did not answer') });
    await expect(new OpenAiCompatibleEngine({ baseUrl: base, model: 'x' }).generate(request())).rejects.toMatchObject({ engineCode: 'ENGINE_NOT_LOADED' });
  });

  it('stops on abort and returns what arrived', async () => {
    const engine = new OpenAiCompatibleEngine({ baseUrl: base, model: 'medgemma-4b' });
    await engine.load();
    const controller = new AbortController();
    const pending = engine.generate(request('SLOW'), { signal: controller.signal, onToken: () => controller.abort() });
    const result = await pending;
    expect(result.finishReason).toBe('abort');
    expect(result.text).toBe('{"diagnosis":');
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    // Let the server finish streams of earlier tests (an aborted one keeps writing for a while).
    while (inFlight > 0) await new Promise((r) => setTimeout(r, 20));
    maxInFlight = 0;
    const engine = new OpenAiCompatibleEngine({ baseUrl: base, model: 'medgemma-4b', concurrency: 2 });
    await engine.load();
    await Promise.all([1, 2, 3, 4, 5].map(() => engine.generate(request('SLOW'))));
    expect(maxInFlight).toBe(2);
  });
});
