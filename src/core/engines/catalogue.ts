/**
 * The model catalogue (catalogue.json, versioned with the app) and the
 * "will it fit" check against this machine's GPU and free storage.
 */
import raw from './catalogue.json' with { type: 'json' };

type Runtime = 'transformers' | 'webllm' | 'openai-compatible';
type ModelTask = 'image-text-to-text' | 'text-generation' | 'feature-extraction';

export interface CatalogueEntry {
  readonly id: string;
  readonly label: string;
  readonly runtime: Runtime;
  /** The runtime's own id: a Hugging Face repo for transformers.js, a prebuilt record id for WebLLM. */
  readonly modelId: string;
  readonly task: ModelTask;
  readonly parameters: string;
  readonly quantisation: string;
  readonly downloadBytes: number;
  readonly downloadApprox?: boolean;
  /** GPU memory the runtime needs, in MB (WebLLM publishes these). */
  readonly vramMB: number;
  readonly needsShaderF16: boolean;
  readonly images: boolean;
  readonly contextLength: number;
  readonly licence: string;
  readonly sources: readonly string[];
  readonly description?: string;
  /** Where the weights come from: the public host's repository, revision and the exact files the app loads. */
  readonly source?: ModelSourceFiles;
  /** Terms to accept on the model page before the host serves the files (e.g. Gemma, Health AI Developer Foundations). */
  readonly gated?: string;
  /** What the model is for in NeuroEval. */
  readonly purpose?: 'vlm-under-test' | 'judge' | 'encoder';
  /**
   * The protocols its model card says it was trained to answer (the
   * demo-trained model: the NeuroVLM-Bench JSON and the lesion question);
   * absent for a general model, which may be asked anything.
   */
  readonly answers?: readonly string[];
  /** Shipped with the app (the self-test model). */
  readonly bundled?: boolean;
  readonly selfTest?: boolean;
}

/**
 * A build of the same model (same upstream weights, same runtime) that
 * computes in fp32, for GPUs without shader-f16; null when the catalogue has
 * none (then nothing may advise one).
 */
export function f32Alternative(entry: CatalogueEntry, catalogue: Pick<Catalogue, 'models'> = CATALOGUE): CatalogueEntry | null {
  if (!entry.needsShaderF16) return null;
  const sameModel = (m: CatalogueEntry) => (m.source?.repo ?? m.modelId).replace(/-q4f(16|32)_1-MLC$/, '') === (entry.source?.repo ?? entry.modelId).replace(/-q4f(16|32)_1-MLC$/, '');
  return catalogue.models.find((m) => m.id !== entry.id && m.runtime === entry.runtime && !m.needsShaderF16 && sameModel(m)) ?? null;
}

/**
 * The dtype of each ONNX session a transformers.js catalogue entry loads
 * (`{ vision_encoder: 'fp32', decoder_model_merged: 'q4' }`), from its file
 * list; undefined when it lists none.
 */
export function sessionDtypes(entry: CatalogueEntry): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const f of entry.source?.files ?? []) if (f.dtype && f.part !== 'config') out[f.part] = f.dtype;
  return Object.keys(out).length ? out : undefined;
}

/** One file the app loads for a model, as the public host lays it out. */
export interface ModelSourceFile {
  /** Path inside the repository, e.g. `onnx/decoder_model_merged_q4.onnx`. */
  readonly path: string;
  /** Which part of the model: `vision_encoder`, `embed_tokens`, `decoder`, `model`, `config`, `tokenizer`, … */
  readonly part: string;
  /** Weight / math precision of an ONNX file (`q4`, `fp32`, …); absent for JSON files. */
  readonly dtype?: string;
  /** Size in bytes, when the model page lists it: checked after download. */
  readonly bytes?: number;
  /** SHA-256 of the file, when the host publishes it (LFS files): checked after download. */
  readonly sha256?: string;
  /** Named as the repository names such files, but not seen on its page when the catalogue was written. */
  readonly unverified?: boolean;
}

export interface ModelSourceFiles {
  /** The public host, default `https://huggingface.co`. */
  readonly host?: string;
  /** The repository, e.g. `HuggingFaceTB/SmolVLM-256M-Instruct`. */
  readonly repo: string;
  /** A commit or branch of the repository; files are fetched at `<host>/<repo>/resolve/<revision>/<path>`. */
  readonly revision: string;
  /** The model page the ids and file names were checked against. */
  readonly page: string;
  readonly files: readonly ModelSourceFile[];
}

/** The URL of one file of a model source on its host. */
export function sourceFileUrl(source: ModelSourceFiles, path: string, host = source.host ?? DEFAULT_MODEL_HOST): string {
  const base = host.replace(/\/+$/, '');
  return `${base}/${source.repo}/resolve/${encodeURIComponent(source.revision)}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

export const DEFAULT_MODEL_HOST = 'https://huggingface.co';

export interface Catalogue {
  readonly catalogueVersion: number;
  readonly updated: string;
  readonly models: readonly CatalogueEntry[];
}

export const CATALOGUE = raw as Catalogue;

/** What the fit check knows about this machine. */
export interface MachineFacts {
  readonly webgpu: boolean;
  readonly shaderF16: boolean;
  readonly maxBufferSize: number;
  readonly maxStorageBufferBindingSize: number;
  /** Free storage for this site, bytes (quota − usage), when known. */
  readonly storageFreeBytes?: number;
  /** `navigator.deviceMemory` in GB (a coarse, capped hint), when known. */
  readonly deviceMemoryGB?: number;
}

interface FitVerdict {
  readonly fits: boolean;
  /** Hard blockers, in words a person can act on. */
  readonly problems: string[];
  /** Things that may go wrong. */
  readonly warnings: string[];
}

const MB = 1024 * 1024;

/** Checks, before any download, whether a model can run here. */
export function willItFit(entry: CatalogueEntry, m: MachineFacts): FitVerdict {
  const problems: string[] = [];
  const warnings: string[] = [];
  if (entry.runtime === 'webllm' && !m.webgpu) problems.push('WebLLM needs WebGPU, which this browser does not offer.');
  if (entry.needsShaderF16 && !m.shaderF16) {
    const alt = f32Alternative(entry);
    problems.push(
      `${entry.label} uses half-precision (${entry.quantisation}) shaders; this GPU lacks shader-f16. ` +
        (alt ? `Choose ${alt.label}, which computes in fp32.` : 'No fp32 build of this model is in the catalogue; choose another model.'),
    );
  }
  if (entry.runtime === 'webllm' && m.webgpu && m.maxStorageBufferBindingSize < 128 * MB) {
    problems.push('This GPU allows storage buffers under 128 MB, below what WebLLM needs.');
  }
  if (m.storageFreeBytes !== undefined && !entry.bundled && entry.downloadBytes > m.storageFreeBytes) {
    problems.push(`The download (${Math.round(entry.downloadBytes / MB).toLocaleString('en')} MB) is larger than the free storage (${Math.round(m.storageFreeBytes / MB).toLocaleString('en')} MB).`);
  }
  if (m.deviceMemoryGB !== undefined && entry.vramMB > m.deviceMemoryGB * 1024 * 0.75) {
    warnings.push(`This model needs about ${(entry.vramMB / 1024).toFixed(1)} GB of GPU memory; this device reports ${m.deviceMemoryGB} GB of memory in total.`);
  }
  if (entry.runtime === 'transformers' && !m.webgpu) warnings.push('No WebGPU: it will run on the CPU (WASM), much more slowly.');
  return { fits: problems.length === 0, problems, warnings };
}

/**
 * The protocols among `protocolIds` a model declares it cannot answer (its
 * `answers` list leaves them out): empty for a general model.
 */
export function unanswerableProtocols(entry: Pick<CatalogueEntry, 'answers'> | undefined, protocolIds: readonly string[]): string[] {
  const answers = entry?.answers;
  return answers ? protocolIds.filter((p) => !answers.includes(p)) : [];
}
