/**
 * The dimensions of the real-size random-weight models: those of real
 * catalogue (or close public) VLMs, so a benchmark on them reads as many bytes
 * and does as much arithmetic per token as the real model would.
 */

/** The three ONNX parts of a transformers.js Idefics3 export. */
export type RealSizePart = 'vision_encoder' | 'embed_tokens' | 'decoder_model_merged';
/** Weight format of a part, as transformers.js names its files (`q4` → `<part>_q4.onnx`, `q8` → `<part>_quantized.onnx`). */
export type PartDtype = 'fp32' | 'q4' | 'q8';
export type PartDtypes = Readonly<Record<RealSizePart, PartDtype>>;

/** A SigLIP vision tower + Idefics3 pixel-shuffle connector + Llama (SmolLM2) decoder. */
export interface RealSizeDims {
  /** Folder name under the models cache, and the model id the engines report. */
  readonly id: string;
  /** The model whose dimensions these are. */
  readonly upstream: string;
  readonly text: {
    readonly vocabSize: number;
    readonly hidden: number;
    readonly layers: number;
    readonly heads: number;
    readonly kvHeads: number;
    readonly headDim: number;
    readonly intermediate: number;
    readonly ropeTheta: number;
    readonly rmsNormEps: number;
    readonly maxPositions: number;
  };
  readonly vision: {
    readonly imageSize: number;
    readonly patchSize: number;
    readonly hidden: number;
    readonly layers: number;
    readonly heads: number;
    readonly intermediate: number;
  };
  /** Pixel-shuffle factor of the connector: scale² patches become one image token. */
  readonly scaleFactor: number;
  /**
   * dtype of each ONNX part per device, as the catalogue lists the real
   * repository's files: on WebGPU the 4-bit files (real WebGPU kernels), on
   * WASM the 8-bit ones (onnxruntime's WASM build dequantises a whole 4-bit
   * matrix to fp32 on every call, but has a quantised GEMM for 8-bit).
   */
  readonly dtypes: { readonly webgpu: PartDtypes; readonly wasm: PartDtypes };
  /** Keep weights in `<file>.onnx_data` beside each graph (as exports of large models do) instead of inside it. */
  readonly externalData: boolean;
}

/**
 * HuggingFaceTB/SmolVLM-256M-Instruct (config.json at the catalogue's
 * revision): SmolLM2-135M-style decoder (30 layers, width 576, 9 heads over
 * 3 KV heads, rope θ 100 000), SigLIP base-patch16-512 vision tower, 4×4 pixel
 * shuffle (64 image tokens per 512 px frame). Catalogue layout: fp32 vision
 * encoder and embeddings, q4 decoder for WebGPU and q8 for WASM, weights
 * inside each .onnx file.
 */
export const SMOLVLM_256M: RealSizeDims = {
  id: 'real-size-smolvlm-256m',
  upstream: 'HuggingFaceTB/SmolVLM-256M-Instruct',
  text: { vocabSize: 49280, hidden: 576, layers: 30, heads: 9, kvHeads: 3, headDim: 64, intermediate: 1536, ropeTheta: 100000, rmsNormEps: 1e-5, maxPositions: 8192 },
  vision: { imageSize: 512, patchSize: 16, hidden: 768, layers: 12, heads: 12, intermediate: 3072 },
  scaleFactor: 4,
  dtypes: {
    webgpu: { vision_encoder: 'fp32', embed_tokens: 'fp32', decoder_model_merged: 'q4' },
    wasm: { vision_encoder: 'fp32', embed_tokens: 'fp32', decoder_model_merged: 'q8' },
  },
  externalData: false,
};

/**
 * HuggingFaceTB/SmolVLM-Instruct (2.2 B; config.json): SmolLM2-1.7B decoder
 * (24 layers, width 2048, 32 heads = 32 KV heads, MLP 8192, rope θ 273 768,
 * vocab 49 155), SigLIP-SO400M vision tower (27 layers, width 1152, MLP 4304,
 * patch 14 at 384 px), 3×3 pixel shuffle (81 image tokens per frame). The
 * catalogue's 2 B VLM (Qwen2-VL-2B) has another architecture; this one has its
 * size and the same layout (q4 vision encoder and decoder for WebGPU, q8 for
 * WASM, with `.onnx_data` files), and runs on the app's Idefics3 path unchanged.
 */
export const SMOLVLM_2B: RealSizeDims = {
  id: 'real-size-smolvlm-2b',
  upstream: 'HuggingFaceTB/SmolVLM-Instruct',
  text: { vocabSize: 49155, hidden: 2048, layers: 24, heads: 32, kvHeads: 32, headDim: 64, intermediate: 8192, ropeTheta: 273768, rmsNormEps: 1e-5, maxPositions: 16384 },
  vision: { imageSize: 384, patchSize: 14, hidden: 1152, layers: 27, heads: 16, intermediate: 4304 },
  scaleFactor: 3,
  dtypes: {
    webgpu: { vision_encoder: 'q4', embed_tokens: 'fp32', decoder_model_merged: 'q4' },
    wasm: { vision_encoder: 'q8', embed_tokens: 'fp32', decoder_model_merged: 'q8' },
  },
  externalData: true,
};

export const REAL_SIZE_MODELS: readonly RealSizeDims[] = [SMOLVLM_256M, SMOLVLM_2B];

/** Image tokens per frame: (⌊image / patch⌋ / scale)². */
export function imageTokens(d: RealSizeDims): number {
  return (Math.floor(d.vision.imageSize / d.vision.patchSize) / d.scaleFactor) ** 2;
}

/** transformers.js' file suffix of a dtype (its DEFAULT_DTYPE_SUFFIX_MAPPING). */
const SUFFIX: Record<PartDtype, string> = { fp32: '', q4: '_q4', q8: '_quantized' };

/** ONNX file name of a part, as transformers.js derives it from the dtype. */
export function partFile(part: RealSizePart, dtype: PartDtype): string {
  return `${part}${SUFFIX[dtype]}.onnx`;
}

export const PARTS: readonly RealSizePart[] = ['vision_encoder', 'embed_tokens', 'decoder_model_merged'];

/** Every (part, dtype) the folder holds: the union of the devices' choices, each file once. */
export function partFiles(d: RealSizeDims): { part: RealSizePart; dtype: PartDtype; file: string }[] {
  const seen = new Map<string, { part: RealSizePart; dtype: PartDtype; file: string }>();
  for (const device of ['webgpu', 'wasm'] as const) {
    for (const part of PARTS) {
      const dtype = d.dtypes[device][part];
      const file = partFile(part, dtype);
      if (!seen.has(file)) seen.set(file, { part, dtype, file });
    }
  }
  return [...seen.values()];
}
