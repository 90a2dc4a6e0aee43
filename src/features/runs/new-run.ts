/**
 * Building a run from the form: the engines to use and the environment
 * recorded in provenance (the time estimate's speeds: speed-records.ts).
 */
import { compareIds } from '../../core/text/compare-ids.ts';
import type { CaseRecord } from '../../core/bundle/records.ts';
import type { ModelRecord } from '../../core/models/record.ts';
import { describeGpu } from '../../core/env/gpu.ts';
import { CATALOGUE, unanswerableProtocols, weightsFor, type CatalogueEntry } from '../../core/engines/catalogue.ts';
import { wasmThreadsFor } from '../../core/engines/transformers/threads.ts';
import { modelLocation } from '../../lib/models/model-store.ts';
import { BUNDLED_VLMS, bundledFiles, bundledLocation, isBundled } from '../models/bundled.ts';
import type { EndpointConfig } from '../models/endpoints.ts';
import type { WebLlmSpec } from '../../core/engines/spec.ts';
import type { EngineSpec, TransformersSpec } from '../../core/engines/spec.ts';
import type { ProvenanceInputs } from '../../core/runner/index.ts';

interface ModelChoice {
  readonly id: string;
  readonly label: string;
  readonly kind: 'transformers' | 'openai' | 'webllm';
  readonly record?: ModelRecord;
  readonly endpoint?: EndpointConfig;
  /** A WebLLM model that loaded on this device (Models page). */
  readonly webllm?: WebLlmSpec;
  /** Its catalogue entry (bundled models, catalogue models downloaded or imported): what its model card declares. */
  readonly entry?: CatalogueEntry;
}

/** Models a run can use: the bundled VLMs (self-test, demo-trained), stored transformers VLMs, WebLLM VLMs and on-prem endpoints. */
export function modelChoices(stored: readonly ModelRecord[], endpoints: readonly EndpointConfig[], webllm: readonly WebLlmSpec[] = []): ModelChoice[] {
  return [
    ...BUNDLED_VLMS.map((m): ModelChoice => ({ id: m.id, label: m.label, kind: 'transformers', entry: m })),
    ...stored.filter((m) => m.runtime === 'transformers').map((m): ModelChoice => {
      const entry = CATALOGUE.models.find((e) => e.runtime === 'transformers' && e.modelId === m.modelId);
      return { id: m.id, label: m.label, kind: 'transformers', record: m, ...(entry ? { entry } : {}) };
    }),
    ...webllm.filter((w) => w.task === 'image-text-to-text').map((w): ModelChoice => ({ id: w.id, label: w.label, kind: 'webllm', webllm: w })),
    ...endpoints.map((e): ModelChoice => ({ id: `endpoint:${e.id}`, label: `${e.model} on ${new URL(e.baseUrl).host}`, kind: 'openai', endpoint: e })),
  ];
}

/** The engines of a run's configuration; an endpoint is named by its id, its API key stays in the endpoint settings. */
export async function engineConfigs(choices: readonly ModelChoice[], device: 'webgpu' | 'wasm', processor?: TransformersSpec['processor']): Promise<EngineSpec[]> {
  const out: EngineSpec[] = [];
  for (const c of choices) {
    if (c.kind === 'webllm' && c.webllm) {
      out.push(c.webllm);
    } else if (c.kind === 'openai' && c.endpoint) {
      const e = c.endpoint;
      out.push({ kind: 'openai', id: c.id, label: c.label, endpointId: e.id, baseUrl: e.baseUrl, model: e.model, concurrency: e.concurrency });
    } else {
      const location = !c.record && isBundled(c.id) ? bundledLocation(c.id) : modelLocation(c.id);
      const stored = c.record ? c.record.files.map((f) => ({ name: f.name, sha256: f.sha256 })) : await bundledFiles(c.id);
      // A catalogue model loads, per session, the file its entry lists for this device (q8 decoder on WASM, q4 on WebGPU),
      // or the best the stored folder holds; the run names only the weights it loads, so each device's answers have their own identity.
      const entry = c.record ? CATALOGUE.models.find((m) => m.runtime === 'transformers' && m.modelId === c.record!.modelId) : undefined;
      const weights = entry ? weightsFor(entry, device, stored.map((f) => f.name)) : null;
      const files = weights ? stored.filter((f) => !f.name.startsWith('onnx/') || weights.files.includes(f.name)) : stored;
      out.push({ kind: 'transformers', id: c.id, label: c.label, location, device, files, ...(weights ? { dtype: { ...weights.dtype } } : {}), ...(processor ? { processor: { ...processor } } : {}) });
    }
  }
  return out;
}

/** What provenance records about this browser. */
export async function environmentForProvenance(): Promise<ProvenanceInputs['environment']> {
  const { facts } = await describeGpu('gpu' in navigator ? navigator.gpu : undefined);
  return {
    userAgent: navigator.userAgent,
    crossOriginIsolated: window.crossOriginIsolated,
    // The count the transformers worker runs onnxruntime-web with (threads.ts), from the same facts.
    wasmThreads: wasmThreadsFor(navigator.hardwareConcurrency, window.crossOriginIsolated),
    adapter: facts.available
      ? { vendor: facts.vendor ?? '', architecture: facts.architecture ?? '', description: facts.description ?? '', isFallbackAdapter: facts.isFallbackAdapter === true, features: [...facts.features] }
      : null,
  };
}

/** Values present in the cases for one field, sorted. */
export function facetValues(cases: readonly CaseRecord[], key: 'split' | 'taskFamily' | 'diseaseGroup' | 'modality'): string[] {
  const values = cases.map((c) => c[key]).filter((v): v is string => !!v).sort(compareIds);
  return values.filter((v, i) => i === 0 || v !== values[i - 1]);
}

/** How many questions of `cases` each protocol asks. */
export function questionsPerProtocol<C extends { readonly questions: readonly unknown[] }>(cases: readonly C[], protocolOf: (c: C) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of cases) {
    const id = protocolOf(c);
    out.set(id, (out.get(id) ?? 0) + c.questions.length);
  }
  return out;
}

/** A chosen model that its model card says cannot answer some of the run's requests. */
export interface AbilityWarning {
  readonly modelId: string;
  readonly label: string;
  /** What it was trained to answer, as protocol ids. */
  readonly answers: readonly string[];
  /** The run's requests per protocol it cannot answer. */
  readonly cannot: readonly { readonly protocolId: string; readonly requests: number }[];
}

/**
 * Chosen models whose declared abilities (the catalogue's `answers`, from the
 * model card) leave out protocols the run asks under; `requests` counts the
 * run's questions per protocol.
 */
export function abilityWarnings(chosen: readonly Pick<ModelChoice, 'id' | 'label' | 'entry'>[], requests: ReadonlyMap<string, number>): AbilityWarning[] {
  return chosen.flatMap((c) => {
    const cannot = unanswerableProtocols(c.entry, [...requests.keys()]);
    return cannot.length && c.entry?.answers ? [{ modelId: c.id, label: c.label, answers: c.entry.answers, cannot: cannot.map((p) => ({ protocolId: p, requests: requests.get(p) ?? 0 })) }] : [];
  });
}
