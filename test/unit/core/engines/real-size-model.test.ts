/**
 * The real-size model generator on a scaled-down configuration (same code,
 * small numbers): the graphs load in onnxruntime-web (wasm, Node) and return
 * outputs of the configured shapes, the q4 weights are what onnxruntime's
 * MatMulNBits multiplies by and the q8 layers compute what their int8 weights
 * say, each device's files are written with the config naming them, and the
 * folder loads through the app's transformers.js path unchanged (external data
 * files included).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../../../scripts/onnx/onnx-writer.ts';
import { ensureRealSizeModel, decoderWeightBytes, type RealSizeStamp } from '../../../../scripts/real-size-model/build.ts';
import { SMOLVLM_256M, SMOLVLM_2B, imageTokens, type RealSizeDims } from '../../../../scripts/real-size-model/dims.ts';
import { MS_DOMAIN, OPSET, PRODUCER } from '../../../../scripts/real-size-model/graphs.ts';
import { dequantiseQ4, q4Blocks, randomFloats, randomQ4 } from '../../../../scripts/real-size-model/q4.ts';
import { randomQ8 } from '../../../../scripts/real-size-model/q8.ts';
import { TransformersVlm } from '../../../../src/core/engines/transformers/vlm.ts';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';
import { loadNodeTransformers, ort } from '../../../support/transformers-node.ts';

/** Small, but every shape rule of the real ones: grouped KV heads, K not a multiple of the q4 block, q4 vision, external data. */
const TINY: RealSizeDims = {
  id: 'real-size-tiny',
  upstream: 'test',
  text: { vocabSize: 420, hidden: 64, layers: 2, heads: 4, kvHeads: 2, headDim: 16, intermediate: 96, ropeTheta: 10000, rmsNormEps: 1e-5, maxPositions: 512 },
  vision: { imageSize: 32, patchSize: 8, hidden: 48, layers: 2, heads: 4, intermediate: 72 },
  scaleFactor: 2,
  dtypes: {
    webgpu: { vision_encoder: 'q4', embed_tokens: 'fp32', decoder_model_merged: 'q4' },
    wasm: { vision_encoder: 'q8', embed_tokens: 'fp32', decoder_model_merged: 'q8' },
  },
  externalData: true,
};

/** The 256M model's layout: fp32 vision encoder, weights inside each .onnx file. */
const TINY_INLINE: RealSizeDims = {
  ...TINY,
  id: 'real-size-tiny-inline',
  dtypes: { webgpu: { ...TINY.dtypes.webgpu, vision_encoder: 'fp32' }, wasm: { ...TINY.dtypes.wasm, vision_encoder: 'fp32' } },
  externalData: false,
};

async function session(dir: string, file: string): Promise<ort.InferenceSession> {
  const onnx = join(dir, 'onnx', file);
  return ort.InferenceSession.create(readFileSync(onnx), { externalData: [{ path: `${file}_data`, data: readFileSync(`${onnx}_data`) }] });
}

const int64 = (values: number[], dims: number[]) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);
const finite = (t: ort.Tensor) => Array.from(t.data as Float32Array).every(Number.isFinite);

describe('real-size model generator (scaled-down configuration)', () => {
  let dir: string;
  let stamp: RealSizeStamp;

  beforeAll(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'neuroeval-real-size-')), TINY.id);
    stamp = ensureRealSizeModel(dir, TINY).stamp;
  });

  afterAll(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('writes the transformers.js layout for each device\'s dtypes, graphs with their .onnx_data, SmolVLM\'s side files, and reuses a complete folder', () => {
    expect(stamp.files.map((f) => f.path)).toEqual(
      expect.arrayContaining([
        'config.json', 'tokenizer.json', 'chat_template.json', 'special_tokens_map.json', 'added_tokens.json',
        'onnx/vision_encoder_q4.onnx', 'onnx/vision_encoder_q4.onnx_data', 'onnx/vision_encoder_quantized.onnx_data', 'onnx/embed_tokens.onnx_data',
        'onnx/decoder_model_merged_q4.onnx_data', 'onnx/decoder_model_merged_quantized.onnx', 'onnx/decoder_model_merged_quantized.onnx_data',
      ]),
    );
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(config['text_config']).toMatchObject({ num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, vocab_size: 420 });
    expect(config['transformers.js_config']).toMatchObject({
      dtype: TINY.dtypes.webgpu,
      device_config: { wasm: { dtype: TINY.dtypes.wasm } },
      use_external_data_format: { 'decoder_model_merged_q4.onnx': 1, 'decoder_model_merged_quantized.onnx': 1 },
    });
    const added = JSON.parse(readFileSync(join(dir, 'added_tokens.json'), 'utf8')) as Record<string, number>;
    const tokenizer = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } };
    expect(added['<image>']).toBe(tokenizer.model.vocab['<image>']);
    expect(JSON.parse(readFileSync(join(dir, 'chat_template.json'), 'utf8'))).toHaveProperty('chat_template');
    expect(stamp.decoderWeightBytes.wasm).toBeGreaterThan(stamp.decoderWeightBytes.webgpu);
    expect(ensureRealSizeModel(dir, TINY).generated).toBe(false);
  });

  it('runs each graph in onnxruntime-web and returns outputs of the configured shapes', async () => {
    const s = TINY.vision.imageSize;
    const vision = await session(dir, 'vision_encoder_q4.onnx');
    const pixels = new ort.Tensor('float32', randomFloats('pixels', 3 * s * s, 1), [1, 1, 3, s, s]);
    const mask = new ort.Tensor('bool', new Uint8Array(s * s).fill(1), [1, 1, s, s]);
    const { image_features: features } = await vision.run({ pixel_values: pixels, pixel_attention_mask: mask });
    expect(features!.dims).toEqual([1, imageTokens(TINY), TINY.text.hidden]);
    expect(finite(features!)).toBe(true);

    const embed = await session(dir, 'embed_tokens.onnx');
    const { inputs_embeds: embeds } = await embed.run({ input_ids: int64([5, 17, 300, 2, 9], [1, 5]) });
    expect(embeds!.dims).toEqual([1, 5, TINY.text.hidden]);

    for (const file of ['decoder_model_merged_q4.onnx', 'decoder_model_merged_quantized.onnx']) {
      const decoder = await session(dir, file);
      const { kvHeads, headDim, layers, vocabSize } = TINY.text;
      const empty = new ort.Tensor('float32', new Float32Array(0), [1, kvHeads, 0, headDim]);
      const feeds: Record<string, ort.Tensor> = { inputs_embeds: embeds!, attention_mask: int64([1, 1, 1, 1, 1], [1, 5]), position_ids: int64([0, 1, 2, 3, 4], [1, 5]) };
      for (let l = 0; l < layers; l++) feeds[`past_key_values.${l}.key`] = feeds[`past_key_values.${l}.value`] = empty;
      const prefill = await decoder.run(feeds);
      expect(prefill['logits']!.dims).toEqual([1, 5, vocabSize]);
      expect(prefill['present.1.value']!.dims).toEqual([1, kvHeads, 5, headDim]);
      expect(finite(prefill['logits']!)).toBe(true);

      // One decode step on the cache: the cache grows by one position.
      const step: Record<string, ort.Tensor> = {
        inputs_embeds: new ort.Tensor('float32', (embeds!.data as Float32Array).slice(0, TINY.text.hidden), [1, 1, TINY.text.hidden]),
        attention_mask: int64([1, 1, 1, 1, 1, 1], [1, 6]),
        position_ids: int64([5], [1, 1]),
      };
      for (let l = 0; l < layers; l++) for (const kind of ['key', 'value']) step[`past_key_values.${l}.${kind}`] = prefill[`present.${l}.${kind}`]!;
      const next = await decoder.run(step);
      expect(next['logits']!.dims).toEqual([1, 1, vocabSize]);
      expect(next['present.0.key']!.dims).toEqual([1, kvHeads, 6, headDim]);
      await decoder.release();
    }
    await Promise.all([vision.release(), embed.release()]);
  });

  it('computes q8 layers as their int8 weights and column scales say, to within the activations\' 8-bit rounding', async () => {
    const [k, n] = [48, 10];
    const w = randomQ8('check-q8', k, n);
    const g = new GraphBuilder('one_q8_matmul');
    const a = g.input('a', 'float32', [2, k]);
    const [aq, aScale, aZero] = g.opMulti('DynamicQuantizeLinear', [a], 3) as [string, string, string];
    const product = g.op('MatMulInteger', [aq, g.constant({ type: 'int8', dims: [k, n], data: w.values }), aZero, g.constant({ type: 'int8', dims: [], data: new Int8Array(1) })]);
    const y = g.op('Mul', [g.op('Cast', [product], { to: { int: 1 } }), g.op('Mul', [aScale, g.constant({ type: 'float32', dims: [n], data: w.scales })])]);
    g.op('Identity', [y], {}, 'y');
    g.output('y', 'float32', [2, n]);
    const sess = await ort.InferenceSession.create(g.toModel({ opset: OPSET, producer: PRODUCER }));
    const input = randomFloats('input-q8', 2 * k, 1);
    const out = (await sess.run({ a: new ort.Tensor('float32', input, [2, k]) }))['y']!.data as Float32Array;
    for (let r = 0; r < 2; r++) {
      for (let col = 0; col < n; col++) {
        let want = 0;
        for (let i = 0; i < k; i++) want += input[r * k + i]! * w.values[i * n + col]! * w.scales[col]!;
        // 8-bit activations: an error of about scale/2 per input, summed over K.
        expect(Math.abs(out[r * n + col]! - want)).toBeLessThan(0.05);
      }
    }
    await sess.release();
  });

  it('packs q4 weights the way MatMulNBits reads them (K not a multiple of the block too)', async () => {
    for (const [k, n] of [[64, 24], [72, 10]] as const) {
      const w = randomQ4(`check-${k}`, k, n);
      expect(w.packed.length).toBe(n * q4Blocks(k) * 16);
      const floats = dequantiseQ4(w);
      expect(floats.length).toBe(k * n);
      const g = new GraphBuilder('one_matmul');
      const a = g.input('a', 'float32', [2, k]);
      const packed = g.constant({ type: 'uint8', dims: [n, q4Blocks(k), 16], data: w.packed });
      const scales = g.constant({ type: 'float32', dims: [w.scales.length], data: w.scales });
      const y = g.domainOp(MS_DOMAIN.domain, 'MatMulNBits', [a, packed, scales], { K: { int: k }, N: { int: n }, bits: { int: 4 }, block_size: { int: 32 } });
      g.op('Identity', [y], {}, 'y');
      g.output('y', 'float32', [2, n]);
      const sess = await ort.InferenceSession.create(g.toModel({ opset: OPSET, producer: PRODUCER, domains: [MS_DOMAIN] }));
      const input = randomFloats(`input-${k}`, 2 * k, 1);
      const out = (await sess.run({ a: new ort.Tensor('float32', input, [2, k]) }))['y']!.data as Float32Array;
      for (let r = 0; r < 2; r++) {
        for (let col = 0; col < n; col++) {
          let want = 0;
          for (let i = 0; i < k; i++) want += input[r * k + i]! * floats[i * n + col]!;
          expect(out[r * n + col]).toBeCloseTo(want, 4);
        }
      }
      await sess.release();
    }
  });

  // In Node, transformers.js 4.3.1 hands onnxruntime-web external data as file paths, which its wasm build cannot
  // open; the browser gets the bytes (the real-size bench loads the external-data layout there). So this uses the inline layout.
  it('loads through the app\'s transformers.js path and generates from an image and a question', async () => {
    const inline = join(dir, '..', TINY_INLINE.id);
    ensureRealSizeModel(inline, TINY_INLINE);
    const vlm = await TransformersVlm.load(await loadNodeTransformers(), { source: { kind: 'folder', location: inline } });
    try {
      const px = new Uint8Array(48 * 48).map((_, i) => (i * 7) % 256);
      const result = await vlm.generate({ text: 'What is shown?', images: [encodePng(px, 48, 48, 'gray')], maxTokens: 4, temperature: 0, topP: 1, seed: 0 });
      expect(result.usage.completionTokens).toBeGreaterThan(0);
      expect(result.usage.promptTokens).toBeGreaterThan(imageTokens(TINY));
      const prompts = vlm.takePrompts();
      expect(prompts).toHaveLength(1);
      expect(prompts[0]).toContain('<image>');
      expect(vlm.takePrompts()).toEqual([]);
    } finally {
      await vlm.dispose();
    }
  }, 60_000);

  it('gives the real models their published sizes: q4 decoder ≈ 85 MB (256M) and ≈ 1.07 GB (2.2B), q8 ≈ 135 MB (256M, the page lists 138 MB)', () => {
    expect(decoderWeightBytes(SMOLVLM_256M, 'q4') / 1e6).toBeGreaterThan(80);
    expect(decoderWeightBytes(SMOLVLM_256M, 'q4') / 1e6).toBeLessThan(90);
    expect(decoderWeightBytes(SMOLVLM_2B, 'q4') / 1e9).toBeGreaterThan(1.0);
    expect(decoderWeightBytes(SMOLVLM_2B, 'q4') / 1e9).toBeLessThan(1.15);
    expect(decoderWeightBytes(SMOLVLM_256M, 'q8') / 1e6).toBeGreaterThan(130);
    expect(decoderWeightBytes(SMOLVLM_256M, 'q8') / 1e6).toBeLessThan(140);
  });
});
