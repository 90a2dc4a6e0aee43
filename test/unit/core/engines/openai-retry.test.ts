/**
 * The endpoint engine against a server that behaves like a loaded vLLM:
 * 429 and 500 at random, requests it refuses, answers that come too late.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { textTurn } from '../../../../src/core/chat/turn.ts';
import type { GenerateRequest } from '../../../../src/core/engines/engine.ts';
import { EndpointHttpError, OpenAiCompatibleEngine } from '../../../../src/core/engines/openai/openai-engine.ts';
import { backoffMs, DEFAULT_RETRY_POLICY, isRetryableStatus, retryAfterMs } from '../../../../src/core/engines/openai/retry.ts';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';
import { startFakeOpenAi, type FakeOpenAi, type FakeOpenAiOptions } from '../../../support/fake-openai-server.ts';

const MODEL = 'qwen2.5-vl-7b';
const png = encodePng(new Uint8Array(16).fill(90), 4, 4);
const schema = { type: 'object', properties: { diagnosis: { type: 'string', enum: ['glioma', 'meningioma', 'normal'] } }, required: ['diagnosis'] };

const request = (question: string, maxTokens = 64): GenerateRequest => ({
  messages: [
    textTurn('system', 'You are a neuroradiologist.'),
    { role: 'user', parts: [{ type: 'image', image: { bytes: png, mime: 'image/png' } }, { type: 'text', text: question }] },
  ],
  sampling: { temperature: 0, topP: 1, seed: 7, maxTokens },
  jsonSchema: schema,
});

const servers: FakeOpenAi[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
async function serve(options: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const s = await startFakeOpenAi([MODEL], { answers: 'deterministic', ...options });
  servers.push(s);
  return s;
}
async function engineFor(s: FakeOpenAi, retry: Partial<typeof DEFAULT_RETRY_POLICY> = {}, concurrency = 1): Promise<OpenAiCompatibleEngine> {
  const engine = new OpenAiCompatibleEngine({ baseUrl: s.baseUrl, model: MODEL, concurrency, retry: { baseDelayMs: 1, maxDelayMs: 5, ...retry } });
  await engine.load();
  return engine;
}

describe('endpoint retries', () => {
  it('gets every answer through random 429s and 500s, each the same as from a healthy server', async () => {
    const questions = Array.from({ length: 24 }, (_, i) => `Which tumour is shown in scan ${i}?`);
    const healthy = await engineFor(await serve());
    const expected = await Promise.all(questions.map(async (q) => (await healthy.generate(request(q))).text));

    const flaky = await serve({ failureRate: 0.4, failureSeed: 3 });
    const engine = await engineFor(flaky, { retries: 12 }, 4);
    const got = await Promise.all(questions.map(async (q) => (await engine.generate(request(q))).text));

    expect(got).toEqual(expected);
    expect(got.every((t) => ['glioma', 'meningioma', 'normal'].includes((JSON.parse(t) as { diagnosis: string }).diagnosis))).toBe(true);
    expect(flaky.injected).toContain(429);
    expect(flaky.injected).toContain(500);
    expect(flaky.answered()).toBe(questions.length);
    expect(flaky.rejected).toEqual([]);
  });

  it('gives up after the retries with an error naming the server, the last status and the attempts', async () => {
    const down = await serve({ failureRate: 1 });
    const engine = await engineFor(down, { retries: 3 });
    const error = await engine.generate(request('Any finding?')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EndpointHttpError);
    const e = error as EndpointHttpError;
    expect(e.engineCode).toBe('ENGINE_HTTP');
    expect(e.attempts).toBe(4);
    expect([429, 500]).toContain(e.status);
    expect(e.endpoint).toBe(new URL(down.baseUrl).host);
    expect(e.message).toContain(`The server at ${new URL(down.baseUrl).host} answered ${e.status}`);
    expect(e.message).toContain('4 attempts');
    expect(down.injected).toHaveLength(4);
  });

  it('never asks again after a 400: the server\'s own validation message stops the request', async () => {
    const s = await serve();
    const engine = await engineFor(s, { retries: 5 });
    const error = (await engine.generate(request('How large is the lesion?', 0)).catch((e: unknown) => e)) as EndpointHttpError;
    expect(error).toBeInstanceOf(EndpointHttpError);
    expect(error.status).toBe(400);
    expect(error.attempts).toBe(1);
    expect(error.message).toContain('refused the request: 400 Bad Request: max_tokens must be at least 1, got 0.');
    expect(s.received).toHaveLength(1);
  });

  it('stops an attempt that runs past its time limit and asks again, then names the timeout', async () => {
    const slow = await serve({ latencyMs: 400 });
    const engine = await engineFor(slow, { retries: 1, timeoutMs: 40 });
    const error = (await engine.generate(request('Any finding?')).catch((e: unknown) => e)) as EndpointHttpError;
    expect(error).toBeInstanceOf(EndpointHttpError);
    expect(error.status).toBeNull();
    expect(error.attempts).toBe(2);
    expect(error.message).toContain('no complete answer within 0.04 s');
    expect(slow.received).toHaveLength(2);
  });

  it('ends as an abort when the caller aborts during a back-off, without asking again', async () => {
    // 500s only: a 429's Retry-After: 0 would let the client ask again at once, before the test aborts.
    const down = await serve({ failureRate: 1, failureStatus: 500 });
    // Jitter fixed at its ceiling: the first back-off is a full minute.
    const engine = new OpenAiCompatibleEngine({ baseUrl: down.baseUrl, model: MODEL, retry: { retries: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 }, random: () => 1 });
    await engine.load();
    const controller = new AbortController();
    const pending = engine.generate(request('Any finding?'), { signal: controller.signal });
    while (down.injected.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect((await pending).finishReason).toBe('abort');
    expect(down.received).toHaveLength(1);
  });
});

describe('back-off rules', () => {
  it('retries 429 and 5xx only', () => {
    expect([429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some(isRetryableStatus)).toBe(false);
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs('0')).toBe(0);
    expect(retryAfterMs(new Date(10_000 + 5000).toUTCString(), 10_000)).toBe(5000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
  });

  it('waits what the server asks, else a jittered doubling wait, never above the ceiling', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffMs(1, policy, 750)).toBe(750);
    expect(backoffMs(1, policy, 5000)).toBe(1000);
    expect(backoffMs(1, policy, null, () => 1)).toBe(100);
    expect(backoffMs(3, policy, null, () => 1)).toBe(400);
    expect(backoffMs(3, policy, null, () => 0.5)).toBe(200);
    expect(backoffMs(10, policy, null, () => 1)).toBe(1000);
  });
});
