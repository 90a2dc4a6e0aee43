/**
 * The three ONNX graphs of a transformers.js Idefics3 (SmolVLM) export at real
 * size: `vision_encoder` (SigLIP: patch conv, learned positions, pre-norm
 * layers with biases and tanh-GELU, post-norm, pixel-shuffle connector),
 * `embed_tokens`, and `decoder_model_merged` (Llama: RMSNorm, rotary
 * positions, grouped-query attention with a KV cache, SwiGLU MLP, lm_head).
 * Same input/output names as the real export; weights are seeded random, in
 * the formats of transformers.js' files: q4 layers are `com.microsoft`
 * `MatMulNBits`, q8 layers the dynamic-quantisation pattern (q8.ts).
 */
import { GraphBuilder, floatTensor, type ExternalTensor, type TensorData } from '../onnx/onnx-writer.ts';
import { causalBias, ints, scalar } from '../self-test-model/graphs.ts';
import type { RealSizeDims } from './dims.ts';
import { Q4_BLOCK, randomFloats, randomQ4 } from './q4.ts';
import { randomQ8 } from './q8.ts';

export const OPSET = 17;
export const MS_DOMAIN = { domain: 'com.microsoft', version: 1 } as const;
export const PRODUCER = 'neuroeval scripts/make-real-size-model.ts';
const FLOAT = { int: 1 }; // TensorProto.DataType.FLOAT, for Cast

/** Where weights go: kept in the graph, or appended to an external data file (see build.ts). */
export interface WeightSink {
  put(type: 'float32' | 'uint8' | 'int8', dims: readonly number[], data: Float32Array | Uint8Array | Int8Array): TensorData | ExternalTensor;
}

/** How a graph's MatMul weights are stored: fp32, 4-bit blocks (`MatMulNBits`) or dynamic 8-bit (`MatMulInteger`). */
export type WeightFormat = 'fp32' | 'q4' | 'q8';

/** Keeps every weight inside the ModelProto. */
export const inlineSink: WeightSink = {
  put: (type, dims, data) => ({ type, dims, data }),
};

/** The graph under construction, its weight sink and the seed prefix of its weights. */
interface Ctx {
  readonly g: GraphBuilder;
  readonly sink: WeightSink;
  readonly seed: string;
}

const weight = (c: Ctx, name: string, dims: readonly number[], scale: number): string =>
  c.g.constant(c.sink.put('float32', dims, randomFloats(`${c.seed}/${name}`, dims.reduce((a, b) => a * b, 1), scale)));

/** A vector of ones with a little noise (norm gains). */
function gain(c: Ctx, name: string, n: number): string {
  const noise = randomFloats(`${c.seed}/${name}`, n, 0.1);
  return c.g.constant(c.sink.put('float32', [n], noise.map((v) => 1 + v)));
}

/** x [.., k] → [.., n]: q4 `MatMulNBits`, q8 `DynamicQuantizeLinear` + `MatMulInteger`, or an fp32 `MatMul`; plus a bias where the layer has one. */
function linear(c: Ctx, x: string, name: string, k: number, n: number, format: WeightFormat, bias = false): string {
  let y: string;
  if (format === 'q4') {
    const w = randomQ4(`${c.seed}/${name}`, k, n);
    const packed = c.g.constant(c.sink.put('uint8', [n, Math.ceil(k / Q4_BLOCK), Q4_BLOCK / 2], w.packed));
    const scales = c.g.constant(c.sink.put('float32', [w.scales.length], w.scales));
    y = c.g.domainOp(MS_DOMAIN.domain, 'MatMulNBits', [x, packed, scales], { K: { int: k }, N: { int: n }, bits: { int: 4 }, block_size: { int: Q4_BLOCK } });
  } else if (format === 'q8') {
    // The op pattern onnxruntime's dynamic quantisation writes, which its optimiser fuses into one quantised GEMM.
    const w = randomQ8(`${c.seed}/${name}`, k, n);
    const [xq, xScale, xZero] = c.g.opMulti('DynamicQuantizeLinear', [x], 3) as [string, string, string];
    const weights = c.g.constant(c.sink.put('int8', [k, n], w.values));
    const zero = c.g.constant({ type: 'int8', dims: [], data: new Int8Array(1) });
    const product = c.g.op('MatMulInteger', [xq, weights, xZero, zero]);
    const scale = c.g.op('Mul', [xScale, c.g.constant(c.sink.put('float32', [n], w.scales))]);
    y = c.g.op('Mul', [c.g.op('Cast', [product], { to: FLOAT }), scale]);
  } else {
    y = c.g.op('MatMul', [x, weight(c, `${name}.weight`, [k, n], Math.sqrt(3 / k))]);
  }
  return bias ? c.g.op('Add', [y, weight(c, `${name}.bias`, [n], 0.02)]) : y;
}

/** [b, s, heads·dim] → [b, heads, s, dim]. */
const heads = (c: Ctx, t: string, n: number, dim: number): string =>
  c.g.op('Transpose', [c.g.op('Reshape', [t, c.g.constant(ints([0, 0, n, dim]))])], { perm: { ints: [0, 2, 1, 3] } });

/** [b, heads, s, dim] → [b, s, heads·dim]. */
const merge = (c: Ctx, t: string, width: number): string =>
  c.g.op('Reshape', [c.g.op('Transpose', [t], { perm: { ints: [0, 2, 1, 3] } }), c.g.constant(ints([0, 0, width]))]);

// ── vision_encoder ──

/** 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))): SigLIP's `gelu_pytorch_tanh`. */
function geluTanh(c: Ctx, x: string): string {
  const { g } = c;
  const cube = g.op('Mul', [g.op('Mul', [x, x]), x]);
  const inner = g.op('Mul', [g.op('Add', [x, g.op('Mul', [cube, g.constant(scalar(0.044715))])]), g.constant(scalar(Math.sqrt(2 / Math.PI)))]);
  return g.op('Mul', [g.op('Mul', [x, g.constant(scalar(0.5))]), g.op('Add', [g.op('Tanh', [inner]), g.constant(scalar(1))])]);
}

const layerNorm = (c: Ctx, x: string, name: string, n: number): string =>
  c.g.op('LayerNormalization', [x, gain(c, `${name}.weight`, n), weight(c, `${name}.bias`, [n], 0.02)], { axis: { int: -1 }, epsilon: { float: 1e-6 } });

/** pixel_values [batch, images, 3, H, W] + pixel_attention_mask → image_features [frames, tokens, text hidden]. */
export function visionEncoder(d: RealSizeDims, sink: WeightSink, format: WeightFormat): GraphBuilder {
  const g = new GraphBuilder('vision_encoder');
  const c: Ctx = { g, sink, seed: `${d.id}/vision` };
  const v = d.vision;
  const s = v.imageSize;
  const grid = Math.floor(s / v.patchSize); // the patch conv drops a remainder (384 px / 14 → 27)
  const headDim = v.hidden / v.heads;

  const pixels = g.input('pixel_values', 'float32', ['batch_size', 'num_images', 3, 'height', 'width']);
  const mask = g.input('pixel_attention_mask', 'bool', ['batch_size', 'num_images', 'height', 'width']);
  const frames = g.op('Reshape', [pixels, g.constant(ints([-1, 3, s, s]))]);
  const maskF = g.op('Reshape', [g.op('Cast', [mask], { to: FLOAT }), g.constant(ints([-1, 1, s, s]))]);
  const conv = g.op('Conv', [g.op('Mul', [frames, maskF]), weight(c, 'patch_embedding.weight', [v.hidden, 3, v.patchSize, v.patchSize], Math.sqrt(3 / (3 * v.patchSize ** 2))), weight(c, 'patch_embedding.bias', [v.hidden], 0.02)], {
    kernel_shape: { ints: [v.patchSize, v.patchSize] },
    strides: { ints: [v.patchSize, v.patchSize] },
  });
  const patches = g.op('Transpose', [g.op('Reshape', [conv, g.constant(ints([0, v.hidden, -1]))])], { perm: { ints: [0, 2, 1] } });
  let x = g.op('Add', [patches, weight(c, 'position_embedding', [grid * grid, v.hidden], 0.5)]);

  for (let l = 0; l < v.layers; l++) {
    const p = `layers.${l}`;
    const xn = layerNorm(c, x, `${p}.layer_norm1`, v.hidden);
    const q = heads(c, linear(c, xn, `${p}.q_proj`, v.hidden, v.hidden, format, true), v.heads, headDim);
    const k = heads(c, linear(c, xn, `${p}.k_proj`, v.hidden, v.hidden, format, true), v.heads, headDim);
    const val = heads(c, linear(c, xn, `${p}.v_proj`, v.hidden, v.hidden, format, true), v.heads, headDim);
    const scores = g.op('Mul', [g.op('MatMul', [q, g.op('Transpose', [k], { perm: { ints: [0, 1, 3, 2] } })]), g.constant(scalar(1 / Math.sqrt(headDim)))]);
    const context = merge(c, g.op('MatMul', [g.op('Softmax', [scores], { axis: { int: -1 } }), val]), v.hidden);
    x = g.op('Add', [x, linear(c, context, `${p}.out_proj`, v.hidden, v.hidden, format, true)]);
    const mlp = linear(c, geluTanh(c, linear(c, layerNorm(c, x, `${p}.layer_norm2`, v.hidden), `${p}.fc1`, v.hidden, v.intermediate, format, true)), `${p}.fc2`, v.intermediate, v.hidden, format, true);
    x = g.op('Add', [x, mlp]);
  }
  x = layerNorm(c, x, 'post_layernorm', v.hidden);

  // Idefics3 connector: pixel shuffle (scale × scale neighbouring patches → one token), then a linear map without bias.
  const sf = d.scaleFactor;
  const small = grid / sf;
  let shuffled = g.op('Reshape', [x, g.constant(ints([-1, grid, small, v.hidden * sf]))]);
  shuffled = g.op('Transpose', [shuffled], { perm: { ints: [0, 2, 1, 3] } });
  shuffled = g.op('Reshape', [shuffled, g.constant(ints([-1, small, small, v.hidden * sf * sf]))]);
  shuffled = g.op('Transpose', [shuffled], { perm: { ints: [0, 2, 1, 3] } });
  shuffled = g.op('Reshape', [shuffled, g.constant(ints([-1, small * small, v.hidden * sf * sf]))]);
  const projected = linear(c, shuffled, 'connector.modality_projection', v.hidden * sf * sf, d.text.hidden, format);
  g.op('Identity', [projected], {}, 'image_features');
  g.output('image_features', 'float32', ['num_frames', small * small, d.text.hidden]);
  return g;
}

// ── embed_tokens ──

/** input_ids [batch, seq] → inputs_embeds [batch, seq, hidden]. */
export function embedTokens(d: RealSizeDims, sink: WeightSink): GraphBuilder {
  const g = new GraphBuilder('embed_tokens');
  const c: Ctx = { g, sink, seed: `${d.id}/text` };
  const ids = g.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  g.op('Gather', [weight(c, 'embed_tokens', [d.text.vocabSize, d.text.hidden], 0.05), ids], { axis: { int: 0 } }, 'inputs_embeds');
  g.output('inputs_embeds', 'float32', ['batch_size', 'sequence_length', d.text.hidden]);
  return g;
}

// ── decoder_model_merged ──

/** x · rsqrt(mean(x²) + eps) · gain, in the op pattern onnxruntime fuses into one normalisation kernel. */
function rmsNorm(c: Ctx, x: string, name: string, n: number, eps: number): string {
  const { g } = c;
  const meanSquare = g.op('ReduceMean', [g.op('Pow', [x, g.constant(scalar(2))])], { axes: { ints: [-1] }, keepdims: { int: 1 } });
  return g.op('Mul', [g.op('Div', [x, g.op('Sqrt', [g.op('Add', [meanSquare, g.constant(scalar(eps))])])]), gain(c, name, n)]);
}

/** cos and sin [batch, 1, seq, headDim] of the rotary embedding at position_ids (rotate-half layout). */
function rotaryTables(c: Ctx, positionIds: string, headDim: number, theta: number): { cos: string; sin: string } {
  const { g } = c;
  const invFreq = floatTensor([headDim / 2], Array.from({ length: headDim / 2 }, (_, i) => theta ** (-(2 * i) / headDim)));
  const pos = g.op('Unsqueeze', [g.op('Cast', [positionIds], { to: FLOAT }), g.constant(ints([2]))]);
  const freqs = g.op('Mul', [pos, g.constant(invFreq)]);
  const angles = g.op('Concat', [freqs, freqs], { axis: { int: -1 } });
  const axis1 = g.constant(ints([1]));
  return { cos: g.op('Unsqueeze', [g.op('Cos', [angles]), axis1]), sin: g.op('Unsqueeze', [g.op('Sin', [angles]), axis1]) };
}

/** x·cos + rotate_half(x)·sin, x [batch, heads, seq, headDim]. */
function rotate(c: Ctx, x: string, t: { cos: string; sin: string }, headDim: number): string {
  const { g } = c;
  const h = headDim / 2;
  const slice = (from: number, to: number) => g.op('Slice', [x, g.constant(ints([from])), g.constant(ints([to])), g.constant(ints([3]))]);
  const rotated = g.op('Concat', [g.op('Neg', [slice(h, headDim)]), slice(0, h)], { axis: { int: 3 } });
  return g.op('Add', [g.op('Mul', [x, t.cos]), g.op('Mul', [rotated, t.sin])]);
}

/**
 * inputs_embeds + attention_mask + position_ids + past_key_values.N.{key,value}
 * [batch, kvHeads, past, headDim] → logits + present.N.{key,value}.
 */
export function decoderModelMerged(d: RealSizeDims, sink: WeightSink, format: WeightFormat): GraphBuilder {
  const g = new GraphBuilder('decoder_model_merged');
  const c: Ctx = { g, sink, seed: `${d.id}/text` };
  const t = d.text;

  let x = g.input('inputs_embeds', 'float32', ['batch_size', 'sequence_length', t.hidden]);
  const attentionMask = g.input('attention_mask', 'int64', ['batch_size', 'total_sequence_length']);
  const positionIds = g.input('position_ids', 'int64', ['batch_size', 'sequence_length']);
  const cacheShape = ['batch_size', t.kvHeads, 'past_sequence_length', t.headDim] as const;
  const past = Array.from({ length: t.layers }, (_, l) => ({
    key: g.input(`past_key_values.${l}.key`, 'float32', cacheShape),
    value: g.input(`past_key_values.${l}.value`, 'float32', cacheShape),
  }));
  const bias = causalBias(g, attentionMask, positionIds);
  const rope = rotaryTables(c, positionIds, t.headDim, t.ropeTheta);

  for (let l = 0; l < t.layers; l++) {
    const p = `layers.${l}`;
    const xn = rmsNorm(c, x, `${p}.input_layernorm`, t.hidden, t.rmsNormEps);
    const q = rotate(c, heads(c, linear(c, xn, `${p}.q_proj`, t.hidden, t.heads * t.headDim, format), t.heads, t.headDim), rope, t.headDim);
    const k = rotate(c, heads(c, linear(c, xn, `${p}.k_proj`, t.hidden, t.kvHeads * t.headDim, format), t.kvHeads, t.headDim), rope, t.headDim);
    const v = heads(c, linear(c, xn, `${p}.v_proj`, t.hidden, t.kvHeads * t.headDim, format), t.kvHeads, t.headDim);
    const keys = g.op('Concat', [past[l]!.key, k], { axis: { int: 2 } }, `present.${l}.key`);
    const values = g.op('Concat', [past[l]!.value, v], { axis: { int: 2 } }, `present.${l}.value`);

    // Grouped-query attention without copying the cache: the `group` query heads that share a KV head
    // are stacked along the sequence axis ([b, kvHeads, group·seq, dim]), as repeat_kv pairs them.
    const grouped = g.op('Reshape', [q, g.constant(ints([0, t.kvHeads, -1, t.headDim]))]);
    const scores = g.op('Mul', [g.op('MatMul', [grouped, g.op('Transpose', [keys], { perm: { ints: [0, 1, 3, 2] } })]), g.constant(scalar(1 / Math.sqrt(t.headDim)))]);
    const perHead = g.op('Reshape', [scores, g.constant(ints([0, t.heads, -1, 0]))]);
    const probs = g.op('Softmax', [g.op('Add', [perHead, bias])], { axis: { int: -1 } });
    const context = g.op('MatMul', [g.op('Reshape', [probs, g.constant(ints([0, t.kvHeads, -1, 0]))]), values]);
    const attended = merge(c, g.op('Reshape', [context, g.constant(ints([0, t.heads, -1, t.headDim]))]), t.heads * t.headDim);
    x = g.op('Add', [x, linear(c, attended, `${p}.o_proj`, t.heads * t.headDim, t.hidden, format)]);

    const xm = rmsNorm(c, x, `${p}.post_attention_layernorm`, t.hidden, t.rmsNormEps);
    const gate = linear(c, xm, `${p}.gate_proj`, t.hidden, t.intermediate, format);
    const up = linear(c, xm, `${p}.up_proj`, t.hidden, t.intermediate, format);
    const swiglu = g.op('Mul', [g.op('Mul', [gate, g.op('Sigmoid', [gate])]), up]);
    x = g.op('Add', [x, linear(c, swiglu, `${p}.down_proj`, t.intermediate, t.hidden, format)]);
  }
  const logits = linear(c, rmsNorm(c, x, 'norm', t.hidden, t.rmsNormEps), 'lm_head', t.hidden, t.vocabSize, format);
  g.op('Identity', [logits], {}, 'logits');
  g.output('logits', 'float32', ['batch_size', 'sequence_length', t.vocabSize]);
  for (let l = 0; l < t.layers; l++) {
    for (const kind of ['key', 'value']) g.output(`present.${l}.${kind}`, 'float32', ['batch_size', t.kvHeads, 'total_sequence_length', t.headDim]);
  }
  return g;
}
