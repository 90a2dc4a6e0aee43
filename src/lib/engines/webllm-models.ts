/**
 * WebLLM models usable on this device: recorded (in the settings table) the
 * first time one loads on the Models page, with the source it loaded from,
 * so runs can pick a WebLLM VLM and scoring a WebLLM text model as judge.
 * Only the source is kept; the weights stay in WebLLM's cache.
 */
import { CATALOGUE } from '../../core/engines/catalogue.ts';
import type { WebLlmSpec } from '../../core/engines/spec.ts';
import { repos } from '../storage/app-db.ts';

export const WEBLLM_MODELS_SETTING = 'engines.webllm';

export interface WebLlmSource {
  readonly entryId: string;
  readonly weightsBaseUrl?: string;
  readonly modelLibUrl?: string;
}

/** The spec of a WebLLM model from its source; its catalogue entry gives the label and task. */
export function webllmSpec(source: WebLlmSource): WebLlmSpec {
  const entry = CATALOGUE.models.find((m) => m.runtime === 'webllm' && (m.id === source.entryId || m.modelId === source.entryId));
  return {
    kind: 'webllm',
    id: `webllm:${entry?.id ?? source.entryId}`,
    label: `${entry?.label ?? source.entryId} (WebLLM)`,
    entryId: source.entryId,
    task: entry?.task === 'text-generation' ? 'text-generation' : 'image-text-to-text',
    files: [],
    ...(source.weightsBaseUrl ? { weightsBaseUrl: source.weightsBaseUrl } : {}),
    ...(source.modelLibUrl ? { modelLibUrl: source.modelLibUrl } : {}),
  };
}

export async function listWebLlmModels(): Promise<WebLlmSpec[]> {
  const list = await (await repos()).settings.get<WebLlmSource[]>(WEBLLM_MODELS_SETTING, []);
  return list.map(webllmSpec);
}

/** Records a WebLLM model that loaded on this device (replacing an earlier source of the same model). */
export async function rememberWebLlmModel(source: WebLlmSource): Promise<void> {
  const r = await repos();
  const list = (await r.settings.get<WebLlmSource[]>(WEBLLM_MODELS_SETTING, [])).filter((s) => s.entryId !== source.entryId);
  await r.settings.set(WEBLLM_MODELS_SETTING, [...list, source]);
}

/** Forgets the WebLLM models loaded from `weightsBaseUrl` (an imported folder that was deleted). */
export async function forgetWebLlmModel(weightsBaseUrl: string): Promise<void> {
  const r = await repos();
  const list = await r.settings.get<WebLlmSource[]>(WEBLLM_MODELS_SETTING, []);
  await r.settings.set(WEBLLM_MODELS_SETTING, list.filter((s) => s.weightsBaseUrl !== weightsBaseUrl));
}
