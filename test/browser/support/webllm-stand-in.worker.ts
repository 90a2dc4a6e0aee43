/**
 * The WebLLM worker for browser tests, where no WebLLM model can run (no
 * weights, no GPU): the app's own worker API (workers/webllm-api.ts), with
 * its real WebLlmEngine adapter, over a stand-in MLCEngine that checks every
 * request with WebLLM's own validation (`postInitAndCheckFieldsChatCompletion`)
 * and answers deterministically. What it received is readable from the
 * worker's console as `neuroevalWebLlmStandIn.requests`.
 *
 * Bundled by the test (esbuild) and served in place of the built
 * `assets/webllm.worker-*.js`.
 */
import {
  ModelType,
  postInitAndCheckFieldsChatCompletion,
  prebuiltAppConfig,
  type AppConfig,
  type ChatCompletionChunk,
  type ChatCompletionRequestStreaming,
  type InitProgressCallback,
} from '@mlc-ai/web-llm';
import type { WebLlmApi } from '../../../src/core/engines/webllm/webllm-engine.ts';
import { exposeApi } from '../../../workers/runtime/expose.ts';
import { createWebLlmApi } from '../../../workers/webllm-api.ts';

interface SeenPart {
  readonly type: 'text' | 'image_url';
  readonly text?: string;
  /** The image's data URL prefix and length (the bytes themselves are not kept). */
  readonly image?: string;
}
interface SeenRequest {
  readonly model: string;
  readonly messages: { readonly role: string; readonly content: string | SeenPart[] }[];
  readonly maxTokens: number | null;
}

const requests: SeenRequest[] = [];
/** Files fetched by `reload`, in order. */
const fetched: string[] = [];
(globalThis as { neuroevalWebLlmStandIn?: unknown }).neuroevalWebLlmStandIn = { requests, fetched };

/**
 * The answer: for a VLM, a ranked differential when asked for one, else a
 * NeuroVLM-Bench JSON object; for a text model (the judge), a verdict.
 */
function answerFor(vlm: boolean, prompt: string): string {
  if (!vlm) return '{"equivalent":false,"confidence":0.9,"rationale":"stand-in judge"}';
  if (/differential/i.test(prompt)) return '{"differential":[{"diagnosis":"Cerebral venous thrombosis","confidence":0.6,"evidence":"stand-in"}]}';
  return '{"modality":"MRI","specialized_sequence":"T2","plane":"axial","diagnosis_name":"tumor","diagnosis_detailed":"glioma","icd10_code":null,"severity_score":0.5,"diagnosis_confidence":0.8,"severity_confidence":0.5}';
}

class StandInMlc implements WebLlmApi {
  #config: AppConfig | null = null;
  #loaded: string | null = null;
  #progress: InitProgressCallback | null = null;

  setAppConfig(config: AppConfig): void {
    this.#config = config;
  }
  setInitProgressCallback(cb: InitProgressCallback): void {
    this.#progress = cb;
  }
  async reload(modelId: string | string[]): Promise<void> {
    const id = Array.isArray(modelId) ? modelId[0]! : modelId;
    const record = this.#config?.model_list.find((r) => r.model_id === id);
    if (!record) throw new Error(`ModelNotFoundError: ${id}`);
    // Files the app serves itself (an imported folder) are fetched as WebLLM fetches them: the config, the
    // tensor cache with every weight shard it lists, and the model library. No other host is contacted here.
    if (new URL(record.model).origin === self.location.origin) {
      const get = async (url: string) => {
        const res = await fetch(url);
        fetched.push(url);
        if (!res.ok) throw new Error(`TypeError: Failed to fetch ${url} (${res.status})`);
        return res;
      };
      await get(new URL('mlc-chat-config.json', record.model).href);
      const cache = (await (await get(new URL('tensor-cache.json', record.model).href)).json()) as { records: { dataPath: string }[] };
      for (const r of cache.records) await get(new URL(r.dataPath, record.model).href);
      await get(record.model_lib);
    }
    this.#progress?.({ progress: 1, timeElapsed: 0, text: 'Finish loading on WebGPU - stand-in' });
    this.#loaded = id;
  }
  async unload(): Promise<void> {
    this.#loaded = null;
  }
  async resetChat(): Promise<void> {}
  interruptGenerate(): void {}
  getMessage(): Promise<string> {
    return Promise.resolve('');
  }
  chat = {
    completions: {
      create: async (request: ChatCompletionRequestStreaming): Promise<AsyncIterable<ChatCompletionChunk>> => {
        const record = this.#config?.model_list.find((r) => r.model_id === this.#loaded);
        if (!record) throw new Error('ModelNotLoadedError: Model not loaded before trying to complete ChatCompletionRequest.');
        const type = record.model_type ?? ModelType.LLM;
        // WebLLM's own request validation, as MLCEngine runs it before generating.
        postInitAndCheckFieldsChatCompletion(request, record.model_id, type);
        requests.push({
          model: record.model_id,
          maxTokens: request.max_tokens ?? null,
          messages: request.messages.map((m) => ({
            role: m.role,
            content:
              typeof m.content === 'string'
                ? m.content
                : (m.content ?? []).map((p): SeenPart =>
                    p.type === 'image_url' ? { type: 'image_url', image: `${p.image_url.url.slice(0, 22)}…(${p.image_url.url.length})` } : { type: 'text', text: (p as { text: string }).text },
                  ),
          })),
        });
        const prompt = request.messages.map((m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join(' '))).join(' ');
        const text = answerFor(type === ModelType.VLM, prompt);
        async function* stream(): AsyncGenerator<ChatCompletionChunk> {
          const base = { id: 'stand-in', created: 0, model: record!.model_id, object: 'chat.completion.chunk' as const };
          yield { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null, logprobs: null }] };
          yield { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop', logprobs: null }] };
          yield { ...base, choices: [], usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, extra: { prefill_tokens_per_s: 1000, decode_tokens_per_s: 100 } } as ChatCompletionChunk['usage'] };
        }
        return stream();
      },
    },
  };
}

exposeApi(
  createWebLlmApi({
    createEngine: () => new StandInMlc() as unknown as WebLlmApi,
    cache: { has: async () => true, remove: async () => {} },
    prebuilt: prebuiltAppConfig.model_list,
    version: 'stand-in',
  }),
);
