/**
 * Reading records written before schema v3, once, to bring them up to date.
 * Used by the v2 → v3 database migration (schema.ts) and by the reader of
 * version-1 run exports (scoring/io/run-export.ts), which hold the same
 * pre-v3 shapes:
 *
 * - the run configuration sat inside the provenance (`provenance.config`),
 *   and an OpenAI-compatible engine there could carry its `apiKey`;
 * - a response had only its item key, no `caseId` / `questionId`.
 *
 * Nothing else may read an item key apart: new code uses the typed fields.
 */
import type { EngineSpec } from '../engines/spec.ts';
import type { RunConfig } from './config.ts';
import { withoutSecrets } from './secrets.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Case and question ids of an item key written before v3
 * (`${caseId}#${questionId}|${modelId}|${variant}|s${sample}`, runner/plan.ts).
 * The known suffix is cut first, so case ids holding `|` still work; a key
 * without `#` is all case id. THE ONLY PLACE that reads an item key apart:
 * it runs once per old row, in the v3 migration or on reading an old export.
 */
export function legacyItemKeyParts(r: { itemKey: string; modelId: string; variant: string; sample: number }): { caseId: string; questionId: string } {
  const suffix = `|${r.modelId}|${r.variant}|s${r.sample}`;
  const head = r.itemKey.endsWith(suffix) ? r.itemKey.slice(0, -suffix.length) : r.itemKey.split('|')[0]!;
  const hash = head.lastIndexOf('#');
  return hash === -1 ? { caseId: head, questionId: '' } : { caseId: head.slice(0, hash), questionId: head.slice(hash + 1) };
}

/**
 * The endpoint id an OpenAI-compatible engine of an old config refers to:
 * `${host}/${model}`, as src/features/models/endpoints.ts names endpoints.
 */
function legacyEndpointId(baseUrl: string, model: string): string {
  let host: string;
  try {
    host = new URL(baseUrl).host;
  } catch {
    host = baseUrl;
  }
  return `${host}/${model}`;
}

/** An engine of an old config: secrets dropped, an endpoint referred to by id. */
function legacyEngineSpec(engine: unknown): EngineSpec {
  const e = withoutSecrets(isObj(engine) ? engine : {});
  if (e.kind === 'openai' && typeof e.endpointId !== 'string') {
    const baseUrl = typeof e.baseUrl === 'string' ? e.baseUrl : '';
    const model = typeof e.model === 'string' ? e.model : '';
    return { ...e, endpointId: legacyEndpointId(baseUrl, model) } as unknown as EngineSpec;
  }
  return e as unknown as EngineSpec;
}

/**
 * Splits an old provenance into the run configuration it held (`null` when it
 * held none) and the provenance without it. Secrets are dropped from both.
 */
export function splitLegacyProvenance(provenance: unknown): { config: RunConfig | null; provenance: unknown } {
  if (!isObj(provenance)) return { config: null, provenance };
  const { config, ...rest } = provenance;
  const clean = withoutSecrets(rest);
  if (!isObj(config)) return { config: null, provenance: clean };
  const c = withoutSecrets(config);
  const engines = Array.isArray(c.engines) ? c.engines.map(legacyEngineSpec) : [];
  return { config: { ...c, engines } as unknown as RunConfig, provenance: clean };
}
