/**
 * On-prem OpenAI-compatible endpoints (vLLM, Ollama, llama.cpp server, TGI).
 * Never a default: each is added by the user, its host confirmed, and its
 * origin added to the page's network policy.
 */
import { imagesThenText } from '../../core/chat/turn.ts';
import { OpenAiCompatibleEngine } from '../../core/engines/openai/openai-engine.ts';
import type { EngineUsage } from '../../core/engines/engine.ts';
import { validateCspOrigin } from '../../core/security/csp.ts';
import { encodePng } from '../../core/imaging/png-encode.ts';
import { getAllowedOrigins, setAllowedOrigins } from '../../lib/network/allowed-origins.ts';
import { repos } from '../../lib/storage/app-db.ts';
import { ENDPOINTS_SETTING } from '../../lib/engines/app-host.ts';

export interface EndpointConfig {
  readonly id: string;
  readonly baseUrl: string;
  readonly model: string;
  readonly concurrency: number;
  /** Kept only in this browser's database. */
  readonly apiKey?: string;
}

export interface EndpointCheck {
  readonly ok: boolean;
  readonly message: string;
  readonly text?: string;
  readonly usage?: EngineUsage;
}

/** What the user sees for an endpoint: its model and host. */
export function endpointLabel(e: Pick<EndpointConfig, 'model' | 'baseUrl'>): string {
  return `${e.model} on ${new URL(e.baseUrl).host}`;
}

export async function listEndpoints(): Promise<EndpointConfig[]> {
  return (await repos()).settings.get<EndpointConfig[]>(ENDPOINTS_SETTING, []);
}

/** Adds an endpoint and allows its origin; returns the origin so the page can ask for a reload. */
export async function addEndpoint(input: { baseUrl: string; model: string; concurrency: number; apiKey?: string }): Promise<string> {
  const url = new URL(input.baseUrl);
  const origin = validateCspOrigin(url.origin);
  if (!input.model.trim()) throw new Error('Give the model name the server serves (as in its /v1/models list).');
  const endpoint: EndpointConfig = {
    id: `${url.host}/${input.model.trim()}`,
    baseUrl: url.href.replace(/\/+$/, ''),
    model: input.model.trim(),
    concurrency: Math.max(1, Math.min(64, Math.floor(input.concurrency) || 1)),
    ...(input.apiKey ? { apiKey: input.apiKey } : {}),
  };
  const r = await repos();
  const list = (await listEndpoints()).filter((e) => e.id !== endpoint.id);
  await r.settings.set(ENDPOINTS_SETTING, [...list, endpoint]);
  const allowed = await getAllowedOrigins();
  if (!allowed.includes(origin)) await setAllowedOrigins([...allowed, origin]);
  return origin;
}

export async function removeEndpoint(id: string): Promise<void> {
  const r = await repos();
  await r.settings.set(ENDPOINTS_SETTING, (await listEndpoints()).filter((e) => e.id !== id));
}

/** Connects, checks the model is served, and asks one short question about a test image. */
export async function checkEndpoint(e: EndpointConfig): Promise<EndpointCheck> {
  const engine = new OpenAiCompatibleEngine({ baseUrl: e.baseUrl, model: e.model, concurrency: e.concurrency, ...(e.apiKey ? { apiKey: e.apiKey } : {}) });
  try {
    await engine.load();
    const png = encodePng(Uint8Array.from({ length: 64 * 64 }, (_, i) => (i % 64) * 4), 64, 64);
    const r = await engine.generate({
      messages: [imagesThenText([{ bytes: png, mime: 'image/png' }], 'This is a connection test. Reply with one word.')],
      sampling: { temperature: 0, topP: 1, seed: 1, maxTokens: 16 },
    });
    return { ok: true, message: `${engine.host} answered (${r.finishReason}).`, text: r.text, usage: r.usage };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  } finally {
    await engine.unload();
  }
}
