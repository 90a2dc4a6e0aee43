/**
 * The WebLLM worker entry: the API of ./webllm-api.ts over the real
 * `@mlc-ai/web-llm` library, exposed through the worker runtime.
 */
import { deleteModelAllInfoInCache, hasModelInCache, MLCEngine, prebuiltAppConfig } from '@mlc-ai/web-llm';
import webllmPackage from '@mlc-ai/web-llm/package.json' with { type: 'json' };
import { createWebLlmCache } from '../src/core/engines/webllm/webllm-engine.ts';
import { exposeApi } from './runtime/expose.ts';
import { createWebLlmApi } from './webllm-api.ts';

export type { WebLlmGenerateInput, WebLlmInfo, WebLlmLoadInput, WebLlmSourceInput, WebLlmWorkerApi } from './webllm-api.ts';

exposeApi(
  createWebLlmApi({
    createEngine: () => new MLCEngine({ logLevel: 'WARN' }),
    cache: createWebLlmCache({ hasModelInCache, deleteModelAllInfoInCache }, self.caches),
    prebuilt: prebuiltAppConfig.model_list,
    version: webllmPackage.version,
  }),
);
