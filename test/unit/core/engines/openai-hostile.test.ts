/**
 * The endpoint engine against a broken or hostile OpenAI-compatible server
 * (test/support/fake-openai-server.ts): a server that echoes the request's
 * Authorization header in its error or its answer never gets the key into
 * what the engine returns (nor into a streamed piece); a stream closed
 * mid-answer is asked again like a 5xx and ends as an endpoint error naming
 * it when the retries run out; an answer far past its token budget is cut
 * at the budget's bytes and marked truncated.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { textTurn } from '../../../../src/core/chat/turn.ts';
import { answerByteCap, capAnswer, type GenerateRequest } from '../../../../src/core/engines/engine.ts';
import { EndpointHttpError, OpenAiCompatibleEngine } from '../../../../src/core/engines/openai/openai-engine.ts';
import { redactSecrets, StreamRedactor } from '../../../../src/core/security/redact.ts';
import { startFakeOpenAi, type FakeOpenAi, type FakeOpenAiOptions } from '../../../support/fake-openai-server.ts';

const MODEL = 'qwen2.5-vl-7b-instruct';
const KEY = 'sk-ZZSECRET-4242-abcdefghijkl';
const servers: FakeOpenAi[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function engineOn(options: FakeOpenAiOptions, retries = 2): Promise<{ server: FakeOpenAi; engine: OpenAiCompatibleEngine }> {
  const server = await startFakeOpenAi([MODEL], { answers: 'deterministic', ...options });
  servers.push(server);
  const engine = new OpenAiCompatibleEngine({ baseUrl: server.baseUrl, model: MODEL, apiKey: KEY, retry: { retries, baseDelayMs: 1, maxDelayMs: 2 } });
  await engine.load();
  return { server, engine };
}

const request = (maxTokens = 480): GenerateRequest => ({ messages: [textTurn('user', 'What is the most likely diagnosis?')], sampling: { temperature: 0, topP: 1, seed: 7, maxTokens } });

describe('a server that echoes the Authorization header', () => {
  it('in its error: the engine error names the server and the redacted header, never the key', async () => {
    const { server, engine } = await engineOn({ echoAuthorization: 'error' });
    const error = (await engine.generate(request()).catch((e: unknown) => e)) as EndpointHttpError;
    expect(server.authorizations.at(-1)).toBe(`Bearer ${KEY}`);
    expect(error).toBeInstanceOf(EndpointHttpError);
    expect(error.message).toBe(`The server at ${new URL(server.baseUrl).host} refused the request: 400 Bad Request: 400 Bad Request: Invalid header: Bearer [redacted]`);
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain('ZZSECRET');
  });

  it('in its streamed answer: neither the answer nor any streamed piece holds the key', async () => {
    const { engine } = await engineOn({ echoAuthorization: 'answer' });
    const pieces: string[] = [];
    const result = await engine.generate(request(), { onToken: (t) => pieces.push(t) });
    expect(result.text).toMatch(/^Finding [0-9a-f]{8}\. \(request header Authorization: Bearer \[redacted\]\)$/);
    expect(pieces.join('')).toBe(result.text);
    expect(pieces.some((p) => p.includes('ZZSECRET') || p.includes('sk-'))).toBe(false);
  });
});

describe('a stream closed mid-answer', () => {
  it.each(['end', 'destroy'] as const)('(%s) is asked again, and the retried answer is the whole one', async (how) => {
    const { server, engine } = await engineOn({ cutStreams: { count: 1, how } });
    const pieces: string[] = [];
    const result = await engine.generate(request(), { onToken: (t) => pieces.push(t) });
    expect(server.cut()).toBe(1);
    expect(server.received).toHaveLength(2);
    expect(result.finishReason).toBe('stop');
    expect(result.text).toMatch(/^Finding [0-9a-f]{8}\.$/);
    // What was shown of the cut attempt is not shown twice.
    expect(pieces.join('')).toBe(result.text);
  });

  it('ends as an endpoint error naming the cut streams when every attempt is cut', async () => {
    const { server, engine } = await engineOn({ cutStreams: { count: Infinity, how: 'end' } }, 2);
    const error = (await engine.generate(request()).catch((e: unknown) => e)) as EndpointHttpError;
    expect(error).toBeInstanceOf(EndpointHttpError);
    expect(error.attempts).toBe(3);
    expect(error.status).toBeNull();
    expect(error.message).toBe(`The server at ${new URL(server.baseUrl).host} gave an answer stream that ended before the server finished it (3 attempts; the last status was a cut-off stream).`);
    expect(server.cut()).toBe(3);
  });
});

describe('an answer past its budget', () => {
  it('is cut at the budget\'s bytes and marked truncated', async () => {
    const { engine } = await engineOn({ oversizeBytes: 8 * 1024 * 1024 });
    const result = await engine.generate(request(480));
    expect(result.truncated).toBe(true);
    expect(result.finishReason).toBe('length');
    expect(new TextEncoder().encode(result.text).length).toBe(answerByteCap(480));
    expect(answerByteCap(480)).toBe(480 * 32 + 1024);
  });
});

describe('redaction rules', () => {
  it('replaces the key anywhere and any bearer token, leaves prose alone', () => {
    expect(redactSecrets(`key=${KEY}; Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def`, [KEY])).toBe('key=[redacted]; Authorization: Bearer [redacted]');
    expect(redactSecrets('The bearer of the lesion… Bearer of bad news; Bearer token')).toBe('The bearer of the lesion… Bearer of bad news; Bearer token');
  });

  it('never streams part of a key or token split across pieces', () => {
    const text = `Answer: Bearer ${KEY} and ${KEY}, done.`;
    for (let size = 1; size <= 7; size++) {
      const r = new StreamRedactor([KEY]);
      const out: string[] = [];
      for (let i = 0; i < text.length; i += size) out.push(r.push(text.slice(i, i + size)));
      out.push(r.end());
      expect(out.join('')).toBe('Answer: Bearer [redacted] and [redacted], done.');
      expect(out.some((p) => /sk-|ZZ|4242/.test(p))).toBe(false);
    }
  });

  it('cuts an answer at a character boundary', () => {
    const cap = answerByteCap(1);
    const text = 'é'.repeat(cap);
    const cut = capAnswer(text, 1);
    expect(cut.truncated).toBe(true);
    expect(new TextEncoder().encode(cut.text).length).toBeLessThanOrEqual(cap);
    expect(cut.text).toBe('é'.repeat(Math.floor(cap / 2)));
    expect(capAnswer('short', 1)).toEqual({ text: 'short', truncated: false });
  });
});
