/**
 * The test server refuses what vLLM refuses, with vLLM's error body, and
 * accepts what the endpoint engine sends: so a run that passes against it
 * sends requests a real vLLM takes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../../support/fake-openai-server.ts';

const MODEL = 'medgemma-4b-it';
const png = `data:image/png;base64,${Buffer.from(encodePng(new Uint8Array(16).fill(10), 4, 4)).toString('base64')}`;
const good = {
  model: MODEL,
  messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: png } }, { type: 'text', text: 'Which plane?' }] }],
  max_tokens: 32,
  seed: 11,
  response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { plane: { type: 'string', enum: ['axial', 'coronal', 'sagittal'] } } } } },
};

let server: FakeOpenAi;
beforeAll(async () => {
  server = await startFakeOpenAi([MODEL], { answers: 'deterministic' });
});
afterAll(() => server.close());

async function post(body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${server.baseUrl}/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('vLLM-like request validation', () => {
  it('answers a valid request with a schema-shaped answer that depends on prompt, images and seed only', async () => {
    const a = await post(good);
    const b = await post(good);
    const other = await post({ ...good, seed: 12 });
    expect(a.status).toBe(200);
    const text = (r: typeof a) => (r.json.choices as { message: { content: string } }[])[0]!.message.content;
    expect(text(a)).toBe(text(b));
    expect(['axial', 'coronal', 'sagittal']).toContain((JSON.parse(text(a)) as { plane: string }).plane);
    const seeds = await Promise.all([13, 14, 15, 16, 17, 18].map((seed) => post({ ...good, seed })));
    expect(new Set([text(other), ...seeds.map(text)]).size).toBeGreaterThan(1);
  });

  it.each([
    ['an unknown model', { ...good, model: 'llava' }, 404, 'The model `llava` does not exist.'],
    ['an image given by web address', { ...good, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.org/a.png' } }] }] }, 400, 'only data:image/...;base64, URLs'],
    ['a data URL that is not base64', { ...good, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,@@@@' } }] }] }, 400, 'not valid base64'],
    ['a data URL that is not an image', { ...good, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${Buffer.from('hello world!').toString('base64')}` } }] }] }, 400, 'cannot identify image file'],
    ['a schema that is not an object schema', { ...good, response_format: { type: 'json_schema', json_schema: { name: 'a', schema: { type: 'string' } } } }, 400, 'must be an object schema'],
    ['a json_schema without a name', { ...good, response_format: { type: 'json_schema', json_schema: { schema: { type: 'object' } } } }, 400, 'json_schema.name'],
    ['an unknown response_format', { ...good, response_format: { type: 'xml' } }, 400, 'response_format.type'],
    ['max_tokens 0', { ...good, max_tokens: 0 }, 400, 'max_tokens must be at least 1'],
    ['a fractional seed', { ...good, seed: 1.5 }, 400, 'seed must be an integer'],
    ['no messages', { ...good, messages: [] }, 400, 'messages must be a non-empty list'],
  ])('refuses %s with vLLM\'s error body', async (_what, body, status, message) => {
    const r = await post(body);
    expect(r.status).toBe(status);
    expect(r.json).toMatchObject({ object: 'error', code: status, param: null });
    expect(String(r.json.message)).toContain(message);
  });
});
