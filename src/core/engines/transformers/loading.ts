/**
 * What the text LLM and the encoder share when they load a transformers.js
 * model and run it: device options (also with an injected ORT, where
 * transformers.js knows no device names), progress reporting, load errors,
 * and a macrotask turn so an abort sent to a worker gets in between steps.
 */
import { AbortedError, throwIfAborted } from '../../errors.ts';
import type { Progress } from '../../model/progress.ts';
import { EngineError } from '../errors.ts';
import type { FileBytesListener } from './download-meter.ts';
import { drivenType } from './driven-types.ts';
import type { ModelSource, TransformersRuntime } from './runtime.ts';
import type { VlmDevice } from './generation.ts';

export type TransformersDevice = VlmDevice;

/**
 * What a user changed of a VLM processor's own settings (its
 * preprocessor_config.json decides everything else); recorded with the run.
 */
export interface ProcessorSettings {
  /** Cut large images into tiles (Idefics3 / SmolVLM `do_image_splitting`); false: one frame per image. */
  readonly imageSplitting?: boolean;
}

/**
 * The text a prefix probe puts where a conversation goes on after its shared
 * parts (chat/prefix.ts): no prompt continues with it, so the tokens a probe
 * shares with a request end where the prefix does.
 */
export const PREFIX_MARKER = '\u2063\u27e6prefix-end\u27e7';

/** How to load a model: the same options for every task. */
export interface ModelLoadOptions {
  readonly source: ModelSource;
  /** Default `wasm`. */
  readonly device?: TransformersDevice;
  /**
   * `fp32`, `q8`, `q4f16`, … or one per session (`{ model: 'q8' }`).
   * Default: config.json's `transformers.js_config.dtype`, else transformers.js' default for the device.
   */
  readonly dtype?: string | Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: Progress) => void;
  /** VLMs: what the user changed of the processor's settings. */
  readonly processor?: ProcessorSettings;
  /**
   * false: every request goes through transformers.js' `generate`, a fresh
   * prompt each time and one request at a time (the engine as it was, for
   * comparisons). Default true: greedy requests keep shared prefixes and
   * decode in batches (cached-generation.ts) where the architecture allows.
   */
  readonly cachedDecoding?: boolean;
  /** Greedy requests decoded together, instead of the size measured on this machine (batch-size.ts): tests and comparisons. */
  readonly batch?: number;
}

/** What a loaded model says about itself. */
export interface ModelInfo {
  /** The folder name or the mirror's model id. */
  readonly modelId: string;
  /** `architectures[0]` of config.json (e.g. `LlamaForCausalLM`, `BertModel`). */
  readonly architecture: string;
  readonly device: TransformersDevice;
  /** transformers.js version and the ONNX Runtime build that runs the sessions. */
  readonly runtimeVersion: string;
  /** The weight format each ONNX session was loaded in, by session (`{ decoder_model_merged: 'q8', vision_encoder: 'fp32' }`). */
  readonly weights: Readonly<Record<string, string>>;
}

/** Session file names transformers.js uses across architectures (see vlm.ts). */
const SESSION_NAMES = [
  'model', 'encoder_model', 'decoder_model_merged', 'embed_tokens', 'vision_encoder', 'audio_encoder',
  'prepare_inputs_embeds', 'language_model', 'lm_head', 'gen_head', 'gen_img_embeds', 'image_decode',
];

/**
 * `from_pretrained` options for a device. With an injected ORT (Node),
 * transformers.js knows no device names, so each session's device is '' and
 * the execution provider goes in the session options.
 */
export function pretrainedOptions(runtime: TransformersRuntime, options: ModelLoadOptions, revision: string): Record<string, unknown> {
  const device = options.device ?? 'wasm';
  const deviceOptions = runtime.injectedOrt
    ? { device: Object.fromEntries(SESSION_NAMES.map((n) => [n, ''])), session_options: { executionProviders: [device] } }
    : { device };
  // No progress_callback: download progress is counted in the runtime's fetch (download-meter.ts says why).
  return {
    revision,
    ...(options.dtype === undefined ? {} : { dtype: options.dtype }),
    ...deviceOptions,
  };
}

/**
 * Loads with `load`, reporting the bytes of the files it fetches to
 * `downloads` (one {@link downloadReporter} per model load, so its total
 * spans the tokenizer's files and the weights), and turning failures into
 * `ENGINE_MODEL_MISSING` (aborts stay {@link AbortedError}).
 */
export async function loadOrExplain<T>(runtime: TransformersRuntime, downloads: FileBytesListener | undefined, modelId: string, load: () => Promise<T>): Promise<T> {
  try {
    return await runtime.downloads.during(downloads, load);
  } catch (error) {
    if (error instanceof AbortedError || error instanceof EngineError) throw error;
    throw new EngineError('ENGINE_MODEL_MISSING', `Could not load model "${modelId}": ${error instanceof Error ? error.message : String(error)}`, error);
  }
}

/**
 * Loads a decoder with `load`, its file edited for the engine's own decoder
 * (decoder-graph.ts, model-file-edits.ts) where that decoder keeps the cache
 * on WASM: the new keys and values as outputs of their own, and, for a model
 * type that decoder drives (it then runs every request, sampled ones too),
 * the attention split at the cache boundary. Loads on WebGPU, and the engine
 * as it was (`cachedDecoding: false`), get the files as they are. `load`
 * gets what was read here to add to its load options (the configuration, so
 * it is not read twice).
 */
export async function withNewKvOutputs<T>(runtime: TransformersRuntime, options: ModelLoadOptions, modelId: string, revision: string, load: (read: { readonly config?: unknown }) => Promise<T>): Promise<T> {
  if ((options.device ?? 'wasm') !== 'wasm' || options.cachedDecoding === false) return load({});
  const config = await runtime.lib.AutoConfig.from_pretrained(modelId, { revision });
  return runtime.edits.newKvOutputsDuring(() => load({ config }), { splitAttention: drivenType(config) });
}

/** Releases a model loaded while `signal` fired, then throws {@link AbortedError}. */
export async function disposeIfAborted(model: { dispose(): Promise<unknown> }, signal: AbortSignal | undefined): Promise<void> {
  if (!signal?.aborted) return;
  await model.dispose();
  throwIfAborted(signal);
}

export function modelInfo(runtime: TransformersRuntime, modelId: string, config: unknown, fallbackArchitecture: string, device: TransformersDevice, sessions: Readonly<Record<string, unknown>> = {}): ModelInfo {
  const architecture = (config as { architectures?: string[] }).architectures?.[0] ?? fallbackArchitecture;
  const weights: Record<string, string> = {};
  for (const [name, session] of Object.entries(sessions)) {
    const dtype = (session as { config?: { dtype?: unknown } } | null)?.config?.dtype;
    if (typeof dtype === 'string') weights[name] = dtype;
  }
  return {
    modelId,
    architecture,
    device,
    runtimeVersion: `transformers.js ${runtime.version}; ${runtime.backend.name} ${runtime.backend.version}`,
    weights,
  };
}

/** Resolves on the next macrotask, without setTimeout's 4 ms clamping (MessageChannel exists in browsers, workers and Node). */
export function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/**
 * On wasm, `generate()` never yields to the event loop, so an abort posted to
 * the worker would only arrive after the last token. A macrotask turn before
 * each forward pass lets it in.
 */
export function yieldBeforeEachForward(model: { forward(inputs: object): Promise<unknown> }): void {
  const forward = model.forward.bind(model);
  model.forward = async (inputs: object) => {
    await nextMacrotask();
    return forward(inputs);
  };
}

/** One running download total over every file a load fetches, as `download` progress naming the file that moved last. */
export function downloadReporter(onProgress: ((p: Progress) => void) | undefined): FileBytesListener | undefined {
  if (!onProgress) return undefined;
  const files = new Map<string, { loaded: number; total: number | null }>();
  return ({ url, loaded, total }) => {
    files.set(url, { loaded, total });
    let done = 0;
    let sum = 0;
    let known = true;
    for (const f of files.values()) {
      done += f.loaded;
      if (f.total === null) known = false;
      else sum += f.total;
    }
    onProgress({ phase: 'download', done, ...(known && sum > 0 ? { total: sum } : {}), message: fileName(url) });
  };
}

/** The path of a file below its model folder, as transformers.js names it (`onnx/model_q4.onnx`), else its last segment. */
function fileName(url: string): string {
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    path = url;
  }
  const parts = path.split('/').filter(Boolean);
  const at = parts.lastIndexOf('onnx');
  return (at >= 0 ? parts.slice(at) : parts.slice(-1)).join('/');
}
