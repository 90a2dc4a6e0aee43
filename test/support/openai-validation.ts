/**
 * The checks vLLM's OpenAI-compatible server makes on a chat-completions
 * request before it queues it, with its error body
 * (`{object: "error", message, type, param, code}`): the served model name,
 * messages with text and `image_url` parts whose data URLs decode to an
 * image, `response_format` (`text`, `json_object`, or `json_schema` with a
 * name and an object schema), and whole-number `max_tokens` and `seed`.
 */
import { createHash } from 'node:crypto';

export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly { readonly role: string; readonly texts: readonly string[] }[];
  /** SHA-256 of each image's decoded bytes, in order. */
  readonly imageHashes: readonly string[];
  readonly maxTokens?: number;
  readonly seed?: number;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly responseFormat?: { readonly type: 'text' | 'json_object' } | { readonly type: 'json_schema'; readonly name: string; readonly schema: Record<string, unknown> };
}

export type Checked = { readonly ok: true; readonly request: ChatRequest } | { readonly ok: false; readonly status: number; readonly message: string };

/** vLLM's error response body. */
export function vllmError(code: number, message: string): { object: 'error'; message: string; type: string; param: null; code: number } {
  const type = code === 404 ? 'NotFoundError' : code === 429 ? 'TooManyRequestsError' : code >= 500 ? 'InternalServerError' : 'BadRequestError';
  return { object: 'error', message, type, param: null, code };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const ROLES = new Set(['system', 'user', 'assistant']);

/** Signatures of the image formats vLLM's loader (PIL) reads in practice. */
function looksLikeImage(bytes: Buffer): boolean {
  const starts = (sig: number[]) => sig.every((b, i) => bytes[i] === b);
  return starts([0x89, 0x50, 0x4e, 0x47]) || starts([0xff, 0xd8, 0xff]) || starts([0x47, 0x49, 0x46]) || (starts([0x52, 0x49, 0x46, 0x46]) && bytes.subarray(8, 12).toString('latin1') === 'WEBP');
}

/** The bytes of a `data:image/…;base64,…` URL, or why it is refused. */
function decodeImageUrl(url: unknown, where: string): Buffer | string {
  if (typeof url !== 'string') return `${where}.image_url.url must be a string`;
  const m = /^data:(image\/[a-z0-9.+-]+);base64,(.*)$/is.exec(url);
  if (!m) return `${where}: only data:image/...;base64, URLs are accepted here (got "${url.slice(0, 40)}")`;
  const b64 = m[2]!;
  if (b64.length === 0 || b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return `${where}: the image data URL is not valid base64`;
  const bytes = Buffer.from(b64, 'base64');
  if (!looksLikeImage(bytes)) return `${where}: cannot identify image file (the data URL does not decode to an image)`;
  return bytes;
}

function checkResponseFormat(rf: unknown): ChatRequest['responseFormat'] | string {
  if (!isObject(rf)) return 'response_format must be an object';
  if (rf.type === 'text' || rf.type === 'json_object') return { type: rf.type };
  if (rf.type !== 'json_schema') return `response_format.type must be one of text, json_object, json_schema (got ${JSON.stringify(rf.type)})`;
  const js = rf.json_schema;
  if (!isObject(js)) return 'response_format.json_schema must be an object';
  if (typeof js.name !== 'string' || js.name === '') return 'response_format.json_schema.name must be a non-empty string';
  if (!isObject(js.schema)) return 'response_format.json_schema.schema must be an object';
  if (js.schema.type !== 'object') return `response_format.json_schema.schema must be an object schema (type "object"), got type ${JSON.stringify(js.schema.type)}`;
  return { type: 'json_schema', name: js.name, schema: js.schema };
}

const isWhole = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** Checks a parsed request body; `served` are the model names the server answers to. */
export function validateChatRequest(body: unknown, served: readonly string[]): Checked {
  const bad = (message: string, status = 400): Checked => ({ ok: false, status, message });
  if (!isObject(body)) return bad('the request body must be a JSON object');
  if (typeof body.model !== 'string' || !served.includes(body.model)) return bad(`The model \`${String(body.model)}\` does not exist.`, 404);
  if (!Array.isArray(body.messages) || body.messages.length === 0) return bad('messages must be a non-empty list');
  const messages: { role: string; texts: string[] }[] = [];
  const imageHashes: string[] = [];
  for (const [i, m] of body.messages.entries()) {
    const where = `messages[${i}]`;
    if (!isObject(m) || typeof m.role !== 'string' || !ROLES.has(m.role)) return bad(`${where}.role must be one of system, user, assistant`);
    if (typeof m.content === 'string') {
      messages.push({ role: m.role, texts: [m.content] });
      continue;
    }
    if (!Array.isArray(m.content)) return bad(`${where}.content must be a string or a list of content parts`);
    const texts: string[] = [];
    for (const [j, part] of m.content.entries()) {
      const at = `${where}.content[${j}]`;
      if (!isObject(part)) return bad(`${at} must be an object`);
      if (part.type === 'text') {
        if (typeof part.text !== 'string') return bad(`${at}.text must be a string`);
        texts.push(part.text);
      } else if (part.type === 'image_url') {
        if (!isObject(part.image_url)) return bad(`${at}.image_url must be an object with a url`);
        const bytes = decodeImageUrl(part.image_url.url, at);
        if (typeof bytes === 'string') return bad(bytes);
        imageHashes.push(createHash('sha256').update(bytes).digest('hex'));
        texts.push('<image>');
      } else return bad(`${at}.type ${JSON.stringify(part.type)} is not supported (text, image_url)`);
    }
    messages.push({ role: m.role, texts });
  }
  if (body.max_tokens !== undefined && body.max_tokens !== null && (!isWhole(body.max_tokens) || body.max_tokens < 1)) return bad(`max_tokens must be at least 1, got ${JSON.stringify(body.max_tokens)}.`);
  if (body.seed !== undefined && body.seed !== null && !isWhole(body.seed)) return bad(`seed must be an integer, got ${JSON.stringify(body.seed)}.`);
  if (body.temperature !== undefined && (typeof body.temperature !== 'number' || body.temperature < 0)) return bad('temperature must be a number ≥ 0');
  if (body.top_p !== undefined && (typeof body.top_p !== 'number' || body.top_p <= 0 || body.top_p > 1)) return bad('top_p must be in (0, 1]');
  let responseFormat: ChatRequest['responseFormat'];
  if (body.response_format !== undefined && body.response_format !== null) {
    const rf = checkResponseFormat(body.response_format);
    if (typeof rf === 'string') return bad(rf);
    responseFormat = rf;
  }
  const streamOptions = isObject(body.stream_options) ? body.stream_options : null;
  if (streamOptions && body.stream !== true) return bad('stream_options can only be set when stream is true');
  return {
    ok: true,
    request: {
      model: body.model,
      messages,
      imageHashes,
      ...(isWhole(body.max_tokens) ? { maxTokens: body.max_tokens } : {}),
      ...(isWhole(body.seed) ? { seed: body.seed } : {}),
      stream: body.stream === true,
      includeUsage: streamOptions?.include_usage === true,
      ...(responseFormat ? { responseFormat } : {}),
    },
  };
}
