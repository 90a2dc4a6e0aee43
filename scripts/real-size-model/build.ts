/**
 * Writes a real-size random-weight model folder in the transformers.js
 * layout the app's loader reads (config.json, processor and tokenizer files,
 * SmolVLM's chat_template.json, special_tokens_map.json and added_tokens.json,
 * onnx/<part>[_q4|_quantized].onnx for each device's dtype, and `.onnx_data`
 * files for large models). Weights go
 * to disk tensor by tensor, so a 2 B model never sits in memory whole; a
 * stamp file written last marks a complete folder, so the bench reuses it.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ExternalTensor, GraphBuilder } from '../onnx/onnx-writer.ts';
import type { ProtoWriter } from '../onnx/protobuf.ts';
import { idefics3JsonFiles, idefics3PreprocessorConfig, json } from '../self-test-model/build.ts';
import { buildVocabulary, smolvlmSideFiles, tokenId, tokenizerJson, type Vocabulary } from '../self-test-model/tokenizer.ts';
import { imageTokens, partFiles, type PartDtype, type RealSizeDims } from './dims.ts';
import { MS_DOMAIN, OPSET, PRODUCER, decoderModelMerged, embedTokens, inlineSink, visionEncoder, type WeightSink } from './graphs.ts';

/** Bump when the generated files change, so cached folders are rebuilt. */
export const GENERATOR_VERSION = 2;
const STAMP = 'real-size.json';
/** Tensors smaller than this stay inside the graph even with external data (norm gains, biases). */
const EXTERNAL_MIN_BYTES = 1024;

export interface RealSizeStamp {
  readonly generator: number;
  readonly dims: RealSizeDims;
  /** Every file with its size, the stamp excluded. */
  readonly files: readonly { readonly path: string; readonly bytes: number }[];
  /**
   * Bytes of decoder weights read per generated token, per device's decoder
   * file (every decoder weight once; the embedding row is negligible).
   */
  readonly decoderWeightBytes: { readonly webgpu: number; readonly wasm: number };
}

/**
 * The tokenizer vocabulary at the model's real size: the self-test byte-level
 * BPE (so prompts tokenise as SmolVLM's do, image tokens included) padded with
 * plain letter tokens, so every id the random model can emit decodes to text.
 */
function realSizeVocabulary(size: number): Vocabulary {
  const base = buildVocabulary();
  const ids = new Map(base.ids);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let i = 0; ids.size < size; i++) {
    const word = `Ġ${letters[i % 26]}${letters[Math.floor(i / 26) % 26]}${letters[Math.floor(i / 676) % 26]}${letters[Math.floor(i / 17576) % 26]}`;
    if (!ids.has(word)) ids.set(word, ids.size);
  }
  return { ids, size: ids.size, byteIds: base.byteIds };
}

/** Appends tensors to `<onnx file>_data`; returns references to them for the graph. */
class ExternalSink implements WeightSink {
  readonly #fd: number;
  readonly #location: string;
  #offset = 0;

  constructor(path: string, location: string) {
    this.#fd = openSync(path, 'w');
    this.#location = location;
  }

  put(type: 'float32' | 'uint8' | 'int8', dims: readonly number[], data: Float32Array | Uint8Array | Int8Array) {
    if (data.byteLength < EXTERNAL_MIN_BYTES) return inlineSink.put(type, dims, data);
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    writeSync(this.#fd, bytes);
    const ref: ExternalTensor = { type, dims, external: { location: this.#location, offset: this.#offset, length: bytes.length } };
    this.#offset += bytes.length;
    return ref;
  }

  close(): void {
    closeSync(this.#fd);
  }
}

/** Writes a ModelProto in its pieces, gathered into 1 MiB writes. */
function writeProto(path: string, proto: ProtoWriter): void {
  const fd = openSync(path, 'w');
  try {
    const buffer = new Uint8Array(1 << 20);
    let used = 0;
    for (const piece of proto.pieces) {
      if (used + piece.length > buffer.length) {
        writeSync(fd, buffer, 0, used);
        used = 0;
      }
      if (piece.length > buffer.length) writeSync(fd, piece);
      else {
        buffer.set(piece, used);
        used += piece.length;
      }
    }
    writeSync(fd, buffer, 0, used);
  } finally {
    closeSync(fd);
  }
}

function writePart(onnxDir: string, file: string, external: boolean, build: (sink: WeightSink) => GraphBuilder): void {
  const sink = external ? new ExternalSink(join(onnxDir, `${file}_data`), `${file}_data`) : inlineSink;
  try {
    writeProto(join(onnxDir, file), build(sink).toProto({ opset: OPSET, producer: PRODUCER, domains: [MS_DOMAIN] }));
  } finally {
    if (sink instanceof ExternalSink) sink.close();
  }
}

/**
 * Bytes of every decoder matrix in a format (q4: packed nibbles + fp32 block
 * scales; q8: one byte per weight + fp32 column scales; fp32: four bytes per
 * weight): what one decoded token reads.
 */
export function decoderWeightBytes(d: RealSizeDims, format: PartDtype = 'q4'): number {
  const t = d.text;
  const size = (k: number, n: number) => (format === 'q4' ? n * Math.ceil(k / 32) * (16 + 4) : format === 'q8' ? k * n + 4 * n : 4 * k * n);
  const attn = 2 * size(t.hidden, t.heads * t.headDim) + 2 * size(t.hidden, t.kvHeads * t.headDim);
  const mlp = 2 * size(t.hidden, t.intermediate) + size(t.intermediate, t.hidden);
  return t.layers * (attn + mlp) + size(t.hidden, t.vocabSize);
}

function configJson(d: RealSizeDims, vocab: Vocabulary, tokens: { bos: number; eos: number; pad: number }): unknown {
  const t = d.text;
  const v = d.vision;
  const files = partFiles(d).map((f) => f.file);
  return {
    architectures: ['Idefics3ForConditionalGeneration'],
    model_type: 'idefics3',
    image_token_id: tokenId(vocab, '<image>'),
    scale_factor: d.scaleFactor,
    vocab_size: t.vocabSize,
    pad_token_id: tokens.pad,
    tie_word_embeddings: false,
    text_config: {
      model_type: 'llama',
      vocab_size: t.vocabSize,
      hidden_size: t.hidden,
      intermediate_size: t.intermediate,
      num_hidden_layers: t.layers,
      num_attention_heads: t.heads,
      num_key_value_heads: t.kvHeads,
      head_dim: t.headDim,
      rope_theta: t.ropeTheta,
      rms_norm_eps: t.rmsNormEps,
      max_position_embeddings: t.maxPositions,
      hidden_act: 'silu',
      bos_token_id: tokens.bos,
      eos_token_id: tokens.eos,
      pad_token_id: tokens.pad,
      tie_word_embeddings: false,
    },
    vision_config: {
      model_type: 'idefics3_vision',
      num_channels: 3,
      image_size: v.imageSize,
      patch_size: v.patchSize,
      hidden_size: v.hidden,
      intermediate_size: v.intermediate,
      num_hidden_layers: v.layers,
      num_attention_heads: v.heads,
      hidden_act: 'gelu_pytorch_tanh',
    },
    // transformers.js reads `device_config.<device>` over the top level, so each device loads its own files.
    'transformers.js_config': {
      dtype: d.dtypes.webgpu,
      device_config: { wasm: { dtype: d.dtypes.wasm } },
      ...(d.externalData ? { use_external_data_format: Object.fromEntries(files.map((f) => [f, 1])) } : {}),
    },
    neuroeval: {
      name: `Real-size random weights (${d.upstream} dimensions)`,
      note: `Random weights with the dimensions, layer counts and q4 layout of ${d.upstream}, generated by scripts/make-real-size-model.ts to measure speed. It produces meaningless text.`,
    },
  };
}

/** The stamp of a complete folder for these dimensions, or null (missing, partial, or from another generator version). */
export function readStamp(dir: string, d: RealSizeDims): RealSizeStamp | null {
  const path = join(dir, STAMP);
  if (!existsSync(path)) return null;
  try {
    const stamp = JSON.parse(readFileSync(path, 'utf8')) as RealSizeStamp;
    if (stamp.generator !== GENERATOR_VERSION || JSON.stringify(stamp.dims) !== JSON.stringify(d)) return null;
    const whole = stamp.files.every((f) => existsSync(join(dir, f.path)) && statSync(join(dir, f.path)).size === f.bytes);
    return whole ? stamp : null;
  } catch {
    return null;
  }
}

/** Replaces `dir` with the model's files; returns the stamp. */
export function writeRealSizeModel(dir: string, d: RealSizeDims): RealSizeStamp {
  rmSync(dir, { recursive: true, force: true });
  const onnxDir = join(dir, 'onnx');
  mkdirSync(onnxDir, { recursive: true });
  const vocab = realSizeVocabulary(d.text.vocabSize);
  const tokens = { bos: tokenId(vocab, '<|im_start|>'), eos: tokenId(vocab, '<end_of_utterance>'), pad: tokenId(vocab, '<|im_end|>') };
  const preprocessor = idefics3PreprocessorConfig({ longestEdge: d.vision.imageSize, frame: d.vision.imageSize, split: false });
  const names: string[] = [];
  for (const f of idefics3JsonFiles({ config: configJson(d, vocab, tokens), tokens, preprocessor, imageSeqLen: imageTokens(d), tokenizer: tokenizerJson(vocab) })) {
    writeFileSync(join(dir, f.path), f.bytes);
    names.push(f.path);
  }
  // The rest of a SmolVLM repository's top-level files, so `npm run smoke:real --from` takes the folder as it is.
  for (const f of smolvlmSideFiles(vocab)) {
    writeFileSync(join(dir, f.path), json(f.value));
    names.push(f.path);
  }
  for (const { part, dtype, file } of partFiles(d)) {
    const build = part === 'vision_encoder' ? (sink: WeightSink) => visionEncoder(d, sink, dtype) : part === 'embed_tokens' ? (sink: WeightSink) => embedTokens(d, sink) : (sink: WeightSink) => decoderModelMerged(d, sink, dtype);
    writePart(onnxDir, file, d.externalData, build);
    names.push(`onnx/${file}`);
    if (d.externalData) names.push(`onnx/${file}_data`);
  }
  const stamp: RealSizeStamp = {
    generator: GENERATOR_VERSION,
    dims: d,
    files: names.map((path) => ({ path, bytes: statSync(join(dir, path)).size })),
    decoderWeightBytes: { webgpu: decoderWeightBytes(d, d.dtypes.webgpu.decoder_model_merged), wasm: decoderWeightBytes(d, d.dtypes.wasm.decoder_model_merged) },
  };
  writeFileSync(join(dir, STAMP), json(stamp));
  return stamp;
}

/** The folder `dir`, generated unless a complete one for `d` is already there. */
export function ensureRealSizeModel(dir: string, d: RealSizeDims): { stamp: RealSizeStamp; generated: boolean } {
  const stamp = readStamp(dir, d);
  return stamp ? { stamp, generated: false } : { stamp: writeRealSizeModel(dir, d), generated: true };
}
