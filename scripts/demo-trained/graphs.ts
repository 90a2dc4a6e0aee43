/**
 * The demo-trained model's three ONNX graphs, in the transformers.js
 * Idefics3 layout (`vision_encoder`, `embed_tokens`, `decoder_model_merged`,
 * the same input and output names as the self-test model), with weights the
 * training script learned (scripts/demo-trained/train.py mirrors every op
 * here; `npm run demo-model -- check` compares their outputs).
 *
 * - vision: four strided convolutions (256 px → 8 × 8 cells), each cell one
 *   image token, projected to the decoder's width, plus a learned position;
 * - decoder: pre-norm (RMS) causal attention with a KV cache, ReLU MLP,
 *   sinusoidal positions, a final RMS norm and the output head.
 */
import { GraphBuilder, floatTensor, type TensorData } from '../onnx/onnx-writer.ts';
import { OPSET, attention, causalBias, decoderInputs, ints, scalar, splitIntoHeads, type DecoderDims } from '../self-test-model/graphs.ts';

export const PRODUCER = 'neuroeval scripts/demo-trained';
const FLOAT = { int: 1 };

export interface DemoModelDims extends DecoderDims {
  /** Side of the square image the vision encoder takes. */
  readonly imageSize: number;
  /** Channels of the four convolutions. */
  readonly channels: readonly [number, number, number, number];
  /** Image tokens per side (imageSize / 32). */
  readonly grid: number;
}

/** A trained tensor by name, with its shape (row-major float32). */
export type Weights = (name: string, dims: readonly number[]) => TensorData;

/** The convolutions: [kernel, stride, padding]; 256 → 64 → 32 → 16 → 8. */
export const CONVS: readonly (readonly [number, number, number])[] = [
  [5, 4, 2],
  [3, 2, 1],
  [3, 2, 1],
  [3, 2, 1],
];

export function visionEncoder(d: DemoModelDims, w: Weights): Uint8Array {
  const g = new GraphBuilder('vision_encoder');
  const s = d.imageSize;
  const pixels = g.input('pixel_values', 'float32', ['batch_size', 'num_images', 3, 'height', 'width']);
  const mask = g.input('pixel_attention_mask', 'bool', ['batch_size', 'num_images', 'height', 'width']);
  const frames = g.op('Reshape', [pixels, g.constant(ints([-1, 3, s, s]))]);
  const maskF = g.op('Reshape', [g.op('Cast', [mask], { to: FLOAT }), g.constant(ints([-1, 1, s, s]))]);
  let x = g.op('Mul', [frames, maskF]);
  let inCh = 3;
  CONVS.forEach(([k, stride, pad], i) => {
    const out = d.channels[i]!;
    x = g.op('Relu', [
      g.op('Conv', [x, g.constant(w(`vision.conv${i}.weight`, [out, inCh, k, k])), g.constant(w(`vision.conv${i}.bias`, [out]))], {
        kernel_shape: { ints: [k, k] },
        strides: { ints: [stride, stride] },
        pads: { ints: [pad, pad, pad, pad] },
      }),
    ]);
    inCh = out;
  });
  const tokens = d.grid * d.grid;
  // [frames, C, grid, grid] → [frames, tokens, C]: one token per cell, row by row.
  const cells = g.op('Transpose', [g.op('Reshape', [x, g.constant(ints([0, inCh, tokens]))])], { perm: { ints: [0, 2, 1] } });
  const projected = g.op('Add', [g.op('MatMul', [cells, g.constant(w('vision.proj.weight', [inCh, d.hidden]))]), g.constant(w('vision.proj.bias', [d.hidden]))]);
  g.op('Add', [projected, g.constant(w('vision.position', [tokens, d.hidden]))], {}, 'image_features');
  g.output('image_features', 'float32', ['num_frames', tokens, d.hidden]);
  return g.toModel({ opset: OPSET, producer: PRODUCER });
}

export function embedTokens(d: DemoModelDims, w: Weights): Uint8Array {
  const g = new GraphBuilder('embed_tokens');
  const ids = g.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  g.op('Gather', [g.constant(w('text.embed', [d.vocabSize, d.hidden])), ids], { axis: { int: 0 } }, 'inputs_embeds');
  g.output('inputs_embeds', 'float32', ['batch_size', 'sequence_length', d.hidden]);
  return g.toModel({ opset: OPSET, producer: PRODUCER });
}

/** x / sqrt(mean(x²) + 1e-5) · weight, over the last axis. */
function rmsNorm(g: GraphBuilder, x: string, weight: TensorData): string {
  const meanSquare = g.op('ReduceMean', [g.op('Mul', [x, x])], { axes: { ints: [-1] }, keepdims: { int: 1 } });
  const norm = g.op('Sqrt', [g.op('Add', [meanSquare, g.constant(scalar(1e-5))])]);
  return g.op('Mul', [g.op('Div', [x, norm]), g.constant(weight)]);
}

/** The inverse frequencies of the sinusoidal positions, each repeated for its sin and cos column. */
export function positionFrequencies(hidden: number): Float32Array {
  return Float32Array.from({ length: hidden }, (_, i) => 1 / 10000 ** ((2 * Math.floor(i / 2)) / hidden));
}

export function decoderModelMerged(d: DemoModelDims, w: Weights): Uint8Array {
  const g = new GraphBuilder('decoder_model_merged');
  const h = d.hidden;
  const embeds = g.input('inputs_embeds', 'float32', ['batch_size', 'sequence_length', h]);
  const { attentionMask, positionIds, past, presentShape } = decoderInputs(g, d);

  // Sinusoidal positions: sin for even columns, cos (= sin shifted by π/2) for odd ones.
  const phase = floatTensor([h], Array.from({ length: h }, (_, i) => (i % 2 === 0 ? 0 : Math.PI / 2)));
  const pos = g.op('Unsqueeze', [g.op('Cast', [positionIds], { to: FLOAT }), g.constant(ints([2]))]);
  const signal = g.op('Sin', [g.op('Add', [g.op('Mul', [pos, g.constant(floatTensor([h], positionFrequencies(h)))]), g.constant(phase)])]);
  let x = g.op('Add', [embeds, signal]);

  const bias = causalBias(g, attentionMask, positionIds);

  const linear = (t: string, name: string, rows: number, cols: number) => g.op('MatMul', [t, g.constant(w(name, [rows, cols]))]);
  const presents: string[] = [];
  for (let l = 0; l < d.layers; l++) {
    const p = `layers.${l}`;
    const n1 = rmsNorm(g, x, w(`${p}.norm1`, [h]));
    const q = splitIntoHeads(g, linear(n1, `${p}.q`, h, h), d);
    const k = splitIntoHeads(g, linear(n1, `${p}.k`, h, h), d);
    const v = splitIntoHeads(g, linear(n1, `${p}.v`, h, h), d);
    const keys = g.op('Concat', [past[l]!.key, k], { axis: { int: 2 } }, `present.${l}.key`);
    const values = g.op('Concat', [past[l]!.value, v], { axis: { int: 2 } }, `present.${l}.value`);
    presents.push(keys, values);
    x = g.op('Add', [x, linear(attention(g, q, keys, values, bias, d), `${p}.o`, h, h)]);
    const n2 = rmsNorm(g, x, w(`${p}.norm2`, [h]));
    x = g.op('Add', [x, linear(g.op('Relu', [linear(n2, `${p}.up`, h, d.intermediate)]), `${p}.down`, d.intermediate, h)]);
  }
  const out = rmsNorm(g, x, w('final_norm', [h]));
  g.op('Add', [linear(out, 'lm_head.weight', h, d.vocabSize), g.constant(w('lm_head.bias', [d.vocabSize]))], {}, 'logits');
  g.output('logits', 'float32', ['batch_size', 'sequence_length', d.vocabSize]);
  for (const name of presents) g.output(name, 'float32', presentShape);
  return g.toModel({ opset: OPSET, producer: PRODUCER });
}
