/**
 * The three ONNX graphs of an Idefics3 / SmolVLM export, as transformers.js
 * loads them (`vision_encoder`, `embed_tokens`, `decoder_model_merged`), with
 * the same input/output names and dimension names, tiny sizes and seeded
 * random weights. The maths is a real (if miniature) model: patch embedding,
 * token embedding, and a causal two-layer attention decoder with a KV cache,
 * so the output depends on the image, the prompt and every generated token.
 */
import { Prng } from '../../src/core/demo/prng.ts';
import { GraphBuilder, floatTensor, int64Tensor, type TensorData } from '../onnx/onnx-writer.ts';

/** Sizes shared by the graphs and config.json. Changing any of them changes the committed model files. */
export interface ModelDims {
  readonly vocabSize: number;
  readonly hidden: number;
  readonly heads: number;
  readonly headDim: number;
  readonly layers: number;
  readonly intermediate: number;
  /** Side of the square frames the vision encoder takes (processor `max_image_size.longest_edge`). */
  readonly imageSize: number;
  readonly patchSize: number;
  /** Pixel-shuffle factor: scale × scale patches become one image token. */
  readonly scaleFactor: number;
  readonly visionHidden: number;
}

/** The sizes a text decoder needs. */
export type DecoderDims = Pick<ModelDims, 'vocabSize' | 'hidden' | 'heads' | 'headDim' | 'layers' | 'intermediate'>;

/**
 * The Hugging Face `config.json` fields of the llama-style causal decoder
 * (the VLM's `text_config`, and the text model's whole config). Key order is
 * kept stable so regenerated files match the committed ones byte for byte.
 */
export function llamaDecoderConfig(d: DecoderDims, tokens: { bos: number; eos: number; pad: number }): Record<string, unknown> {
  return {
    model_type: 'llama',
    vocab_size: d.vocabSize,
    hidden_size: d.hidden,
    intermediate_size: d.intermediate,
    num_hidden_layers: d.layers,
    num_attention_heads: d.heads,
    num_key_value_heads: d.heads,
    head_dim: d.headDim,
    max_position_embeddings: 2048,
    hidden_act: 'tanh',
    bos_token_id: tokens.bos,
    eos_token_id: tokens.eos,
    pad_token_id: tokens.pad,
    tie_word_embeddings: false,
  };
}

export const OPSET = 17;
export const PRODUCER = 'neuroeval scripts/make-self-test-model.ts';
const FLOAT = { int: 1 }; // TensorProto.DataType.FLOAT, for Cast

export function imageTokensPerFrame(d: ModelDims): number {
  return (d.imageSize / (d.patchSize * d.scaleFactor)) ** 2;
}

/**
 * Seeded uniform weights in [-scale, scale); one stream per tensor name, so tensors are independent of each other.
 * `seed` names the model (the VLM's weights use the default), so two models never share weights.
 */
export function weights(name: string, dims: readonly number[], scale: number, seed = 'neuroeval-self-test'): TensorData {
  const rng = new Prng(`${seed}/${name}`);
  const n = dims.reduce((a, b) => a * b, 1);
  const values = new Float32Array(n);
  for (let i = 0; i < n; i++) values[i] = rng.range(-scale, scale);
  return floatTensor(dims, values);
}

export const scalar = (v: number): TensorData => floatTensor([], [v]);
export const ints = (values: readonly number[]): TensorData => int64Tensor([values.length], values);

/** `vision_encoder`: pixel_values [batch, images, 3, H, W] + pixel_attention_mask → image_features [frames, tokens, hidden]. */
export function visionEncoder(d: ModelDims): Uint8Array {
  const g = new GraphBuilder('vision_encoder');
  const s = d.imageSize;
  const m = d.patchSize * d.scaleFactor; // pixels per side of one image token
  const grid = s / m;
  const tokens = grid * grid;
  const patchDim = 3 * m * m;

  const pixels = g.input('pixel_values', 'float32', ['batch_size', 'num_images', 3, 'height', 'width']);
  const mask = g.input('pixel_attention_mask', 'bool', ['batch_size', 'num_images', 'height', 'width']);

  const frames = g.op('Reshape', [pixels, g.constant(ints([-1, 3, s, s]))]);
  const maskF = g.op('Reshape', [g.op('Cast', [mask], { to: FLOAT }), g.constant(ints([-1, 1, s, s]))]);
  const masked = g.op('Mul', [frames, maskF]);
  // Space-to-depth: each m×m block of pixels becomes one token's feature vector.
  const blocks = g.op('Reshape', [masked, g.constant(ints([-1, 3, grid, m, grid, m]))]);
  const ordered = g.op('Transpose', [blocks], { perm: { ints: [0, 2, 4, 1, 3, 5] } });
  const patches = g.op('Reshape', [ordered, g.constant(ints([-1, tokens, patchDim]))]);

  const embedded = g.op('Tanh', [
    g.op('Add', [
      g.op('MatMul', [patches, g.constant(weights('vision.patch_embed', [patchDim, d.visionHidden], Math.sqrt(3 / patchDim)))]),
      g.constant(weights('vision.patch_bias', [d.visionHidden], 0.1)),
    ]),
  ]);
  const positioned = g.op('Add', [embedded, g.constant(weights('vision.position', [tokens, d.visionHidden], 0.5))]);
  g.op(
    'MatMul',
    [positioned, g.constant(weights('connector.proj', [d.visionHidden, d.hidden], Math.sqrt(3 / d.visionHidden)))],
    {},
    'image_features',
  );
  g.output('image_features', 'float32', ['num_frames', tokens, d.hidden]);
  return g.toModel({ opset: OPSET, producer: PRODUCER });
}

/** `embed_tokens`: input_ids [batch, seq] → inputs_embeds [batch, seq, hidden]. */
export function embedTokens(d: ModelDims): Uint8Array {
  const g = new GraphBuilder('embed_tokens');
  const ids = g.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  const table = g.constant(weights('text.embed_tokens', [d.vocabSize, d.hidden], 0.8));
  g.op('Gather', [table, ids], { axis: { int: 0 } }, 'inputs_embeds');
  g.output('inputs_embeds', 'float32', ['batch_size', 'sequence_length', d.hidden]);
  return g.toModel({ opset: OPSET, producer: PRODUCER });
}

/**
 * `decoder_model_merged`: inputs_embeds + attention_mask + position_ids +
 * past_key_values.N.{key,value} → logits + present.N.{key,value}, the KV cache
 * growing along axis 2 as in every transformers.js decoder export.
 * `outputBias` is added to the logits (it steers the random model towards printable text).
 */
export function decoderModelMerged(d: ModelDims, outputBias: Float32Array): Uint8Array {
  const g = new GraphBuilder('decoder_model_merged');
  const embeds = g.input('inputs_embeds', 'float32', ['batch_size', 'sequence_length', d.hidden]);
  causalDecoder(g, d, embeds, outputBias);
  return g.toModel({ opset: OPSET, producer: PRODUCER });
}

/**
 * The causal decoder after its input embeddings: declares attention_mask,
 * position_ids and past_key_values.N.{key,value} (in that order), adds the
 * layers, and the outputs logits + present.N.{key,value}. `seed` names the
 * weight streams (see {@link weights}).
 */
// ── Pieces shared by the decoder (Llama layout) and the encoder (BERT layout) ──
// Node order matters: the generated files must stay byte-identical, so each
// helper creates its nodes in the order the inline expressions did.

/** Additive attention bias [batch, 1, 1, keys] from a 0/1 mask: -1e4 for padded keys. */
export function paddingBias(g: GraphBuilder, attentionMask: string): string {
  const maskF = g.op('Cast', [attentionMask], { to: FLOAT });
  return g.op('Unsqueeze', [
    g.op('Mul', [g.op('Sub', [g.constant(scalar(1)), maskF]), g.constant(scalar(-1e4))]),
    g.constant(ints([1, 2])),
  ]);
}

/** [batch, seq, hidden] → [batch, heads, seq, headDim]. */
export function splitIntoHeads(g: GraphBuilder, t: string, d: { readonly heads: number; readonly headDim: number }): string {
  return g.op('Transpose', [g.op('Reshape', [t, g.constant(ints([0, 0, d.heads, d.headDim]))])], { perm: { ints: [0, 2, 1, 3] } });
}

/** Scaled dot-product attention with an additive bias; heads merged back to [batch, seq, hidden]. */
export function attention(g: GraphBuilder, q: string, k: string, v: string, bias: string, d: { readonly headDim: number; readonly hidden: number }): string {
  const scores = g.op('Mul', [
    g.op('MatMul', [q, g.op('Transpose', [k], { perm: { ints: [0, 1, 3, 2] } })]),
    g.constant(scalar(1 / Math.sqrt(d.headDim))),
  ]);
  const probs = g.op('Softmax', [g.op('Add', [scores, bias])], { axis: { int: -1 } });
  return g.op('Reshape', [
    g.op('Transpose', [g.op('MatMul', [probs, v])], { perm: { ints: [0, 2, 1, 3] } }),
    g.constant(ints([0, 0, d.hidden])),
  ]);
}

/**
 * The KV-cache decoder's inputs after `inputs_embeds`, in the order every
 * transformers.js decoder export declares them: attention_mask,
 * position_ids, past_key_values.N.{key,value}.
 */
export function decoderInputs(g: GraphBuilder, d: Pick<DecoderDims, 'heads' | 'headDim' | 'layers'>) {
  const attentionMask = g.input('attention_mask', 'int64', ['batch_size', 'total_sequence_length']);
  const positionIds = g.input('position_ids', 'int64', ['batch_size', 'sequence_length']);
  const cacheShape = ['batch_size', d.heads, 'past_sequence_length', d.headDim] as const;
  const presentShape = ['batch_size', d.heads, 'total_sequence_length', d.headDim] as const;
  const past = Array.from({ length: d.layers }, (_, l) => ({
    key: g.input(`past_key_values.${l}.key`, 'float32', cacheShape),
    value: g.input(`past_key_values.${l}.value`, 'float32', cacheShape),
  }));
  return { attentionMask, positionIds, past, presentShape };
}

/**
 * Additive attention bias [batch, 1, seq, total]: -1e4 for padded keys and for
 * keys in later cache slots than the query's (causal). Causality is by slot
 * (the query's slot is past length + its index), not by position id, as real
 * exports build their mask: a batch whose rows are padded to one length keeps
 * each row's own positions (cumsum of its mask) and still sees every earlier
 * token of its own. Without padding, slot and position are the same.
 */
export function causalBias(g: GraphBuilder, attentionMask: string, positionIds: string): string {
  const padBias = paddingBias(g, attentionMask);
  const dim1 = (t: string) => g.op('Squeeze', [g.op('Shape', [t], { start: { int: 1 }, end: { int: 2 } }), g.constant(ints([0]))]);
  const total = dim1(attentionMask);
  const past = g.op('Sub', [total, dim1(positionIds)]);
  const keySlot = g.op('Range', [g.constant(int64Tensor([], [0])), total, g.constant(int64Tensor([], [1]))]);
  const querySlot = g.op('Unsqueeze', [g.op('Range', [past, total, g.constant(int64Tensor([], [1]))]), g.constant(ints([0, 1, 3]))]);
  const causal = g.op('Where', [g.op('LessOrEqual', [keySlot, querySlot]), g.constant(scalar(0)), g.constant(scalar(-1e4))]);
  return g.op('Add', [causal, padBias]);
}

export function causalDecoder(g: GraphBuilder, d: DecoderDims, embeds: string, outputBias: Float32Array, seed?: string): void {
  const h = d.hidden;
  const w = (name: string, dims: readonly number[], scale: number) => weights(name, dims, scale, seed);
  const { attentionMask, positionIds, past, presentShape } = decoderInputs(g, d);

  // Sinusoidal position signal; frequencies 1/(i+1) and phases 0 or π/2 keep the weights exactly reproducible.
  const freq = floatTensor([h], Array.from({ length: h }, (_, i) => 1 / (Math.floor(i / 2) + 1)));
  const phase = floatTensor([h], Array.from({ length: h }, (_, i) => (i % 2 === 0 ? 0 : Math.PI / 2)));
  const pos = g.op('Unsqueeze', [g.op('Cast', [positionIds], { to: FLOAT }), g.constant(ints([2]))]);
  const signal = g.op('Sin', [g.op('Add', [g.op('Mul', [pos, g.constant(freq)]), g.constant(phase)])]);
  let x = g.op('Add', [embeds, g.op('Mul', [signal, g.constant(scalar(0.1))])]);

  const bias = causalBias(g, attentionMask, positionIds);

  const splitHeads = (t: string) => splitIntoHeads(g, t, d);
  const linear = (t: string, name: string, rows: number, cols: number) =>
    g.op('MatMul', [t, g.constant(w(name, [rows, cols], Math.sqrt(3 / rows)))]);

  const presents: string[] = [];
  for (let l = 0; l < d.layers; l++) {
    const layer = past[l]!;
    const q = splitHeads(linear(x, `layers.${l}.q_proj`, h, h));
    const k = splitHeads(linear(x, `layers.${l}.k_proj`, h, h));
    const v = splitHeads(linear(x, `layers.${l}.v_proj`, h, h));
    const keys = g.op('Concat', [layer.key, k], { axis: { int: 2 } }, `present.${l}.key`);
    const values = g.op('Concat', [layer.value, v], { axis: { int: 2 } }, `present.${l}.value`);
    presents.push(keys, values);

    const context = attention(g, q, keys, values, bias, d);
    x = g.op('Add', [x, linear(context, `layers.${l}.o_proj`, h, h)]);
    const mlp = linear(g.op('Tanh', [linear(x, `layers.${l}.up_proj`, h, d.intermediate)]), `layers.${l}.down_proj`, d.intermediate, h);
    x = g.op('Add', [x, mlp]);
  }

  const lmHead = g.constant(w('lm_head', [h, d.vocabSize], 2 * Math.sqrt(3 / h)));
  g.op('Add', [g.op('MatMul', [x, lmHead]), g.constant(floatTensor([d.vocabSize], outputBias))], {}, 'logits');
  g.output('logits', 'float32', ['batch_size', 'sequence_length', d.vocabSize]);
  for (const name of presents) g.output(name, 'float32', presentShape);
}
