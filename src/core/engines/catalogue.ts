/**
 * The model catalogue (catalogue.json, versioned with the app) and the
 * "will it fit" check against this machine's GPU and free storage.
 */
import raw from './catalogue.json' with { type: 'json' };
import { describeDtypes } from './dtype-words.ts';

export { describeDtypes, partWord } from './dtype-words.ts';

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

/** Where transformers.js runs a model: the CPU (onnxruntime-web's WASM backend) or the GPU. */
export type WeightsDevice = 'wasm' | 'webgpu';

/**
 * When a folder holds several files of one part, which weight format a
 * device loads first: on WASM the 8-bit files (onnxruntime's WASM build has a
 * quantised GEMM for them, while it dequantises a whole 4-bit matrix to fp32
 * on every call), then full precision; on WebGPU the 4-bit files (real WebGPU
 * kernels). Only formats the entry lists are considered.
 */
const PREFERENCE: Record<WeightsDevice, readonly string[]> = {
  wasm: ['q8', 'int8', 'uint8', 'fp32', 'fp16', 'q4', 'q4f16', 'bnb4'],
  webgpu: ['q4', 'q4f16', 'fp16', 'fp32', 'q8', 'int8', 'uint8', 'bnb4'],
};

/** The weights a device loads of a catalogue entry ({@link weightsFor}). */
export interface DeviceWeights {
  /** The dtype of each ONNX session (`{ vision_encoder: 'fp32', decoder_model_merged: 'q8' }`). */
  readonly dtype: Readonly<Record<string, string>>;
  /** The ONNX files (and their data files) loaded, by path. */
  readonly files: readonly string[];
  /** Parts loaded in another device's format because the folder lacks this device's file. */
  readonly substituted: readonly { readonly part: string; readonly dtype: string; readonly wanted: string }[];
  /** Parts of which the folder holds no file at all: the device's own is named, so the runtime's error names what is missing. */
  readonly missing: readonly string[];
  /** In words, e.g. "q8 decoder; fp32 vision encoder and embeddings". */
  readonly summary: string;
}

/**
 * What a transformers.js catalogue entry loads on `device`: per part, the
 * file the entry lists for that device; when `present` (a folder's paths) is
 * given, the best format of that part the folder holds (the device's own,
 * else by {@link PREFERENCE}, named in `substituted`); a part the folder
 * holds no file of keeps the device's own (named in `missing`). Null when
 * the entry lists no ONNX files.
 */
export function weightsFor(entry: CatalogueEntry, device: WeightsDevice, present?: Iterable<string>): DeviceWeights | null {
  const files = (entry.source?.files ?? []).filter((f) => f.part !== 'config' && f.dtype);
  if (files.length === 0) return null;
  const have = present ? new Set(present) : null;
  const parts = [...new Set(files.map((f) => f.part))];
  const dtype: Record<string, string> = {};
  const loaded: string[] = [];
  const substituted: { part: string; dtype: string; wanted: string }[] = [];
  const missing: string[] = [];
  for (const part of parts) {
    const ofPart = files.filter((f) => f.part === part);
    const formats = [...new Set(ofPart.map((f) => f.dtype!))];
    const forDevice = ofPart.filter((f) => !f.devices || f.devices.includes(device)).map((f) => f.dtype!);
    // A format is there when every file of it (graph and data files) is; files the catalogue could not verify may be absent.
    const complete = (format: string) => !have || ofPart.filter((f) => f.dtype === format && !f.unverified).every((f) => have.has(f.path)) && ofPart.some((f) => f.dtype === format && have.has(f.path));
    const rank = (format: string) => (forDevice.includes(format) ? -1 : PREFERENCE[device].indexOf(format) >>> 0);
    const present = formats.filter(complete).sort((a, b) => rank(a) - rank(b))[0];
    if (present === undefined) missing.push(part);
    const chosen = present ?? [...formats].sort((a, b) => rank(a) - rank(b))[0]!;
    dtype[part] = chosen;
    loaded.push(...ofPart.filter((f) => f.dtype === chosen && (!have || have.has(f.path))).map((f) => f.path));
    if (present !== undefined && forDevice.length > 0 && !forDevice.includes(chosen)) substituted.push({ part, dtype: chosen, wanted: forDevice[0]! });
  }
  return { dtype, files: loaded, substituted, missing, summary: describeDtypes(dtype) };
}

/**
 * The dtype of each ONNX session a transformers.js catalogue entry loads on
 * `device` (`{ vision_encoder: 'fp32', decoder_model_merged: 'q8' }`), from
 * its file list; undefined when it lists none.
 */
export function sessionDtypes(entry: CatalogueEntry, device: WeightsDevice): Record<string, string> | undefined {
  const w = weightsFor(entry, device);
  return w ? { ...w.dtype } : undefined;
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
  /** The devices that load this file; absent: both. A part may list one file per device (an 8-bit decoder for WASM, a 4-bit one for WebGPU). */
  readonly devices?: readonly WeightsDevice[];
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
