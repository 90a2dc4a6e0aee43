/**
 * The decoder-file edit (decoder-graph.ts) on the repository's own models,
 * run through onnxruntime-web: the edited file loads, its new outputs hold
 * exactly the positions each pass appends to `present.*`, and every other
 * output is unchanged; files without the Concat form, and bytes that are not
 * a model, are left alone. Then the fetch that makes the edit for a load
 * (model-file-edits.ts).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exposeNewKv, newKvOutput } from '../../../../src/core/engines/transformers/decoder-graph.ts';
import { ModelFileEdits } from '../../../../src/core/engines/transformers/model-file-edits.ts';
import { ort } from '../../../support/transformers-node.ts';
import { GraphBuilder } from '../../../../scripts/onnx/onnx-writer.ts';
import { OPSET, PRODUCER, decoderModelMerged, inlineSink } from '../../../../scripts/real-size-model/graphs.ts';
import type { RealSizeDims } from '../../../../scripts/real-size-model/dims.ts';

const model = (path: string) => new Uint8Array(readFileSync(fileURLToPath(new URL(`../../../../public/models/${path}`, import.meta.url))));

describe('new keys and values as outputs of their own', () => {
  it('adds one output per cache input to the demo-trained decoder, and a pass gives in them the positions present.* gains', async () => {
    const original = model('demo-trained/onnx/decoder_model_merged.onnx');
    const edit = exposeNewKv(original)!;
    expect(edit).not.toBeNull();
    const before = await ort.InferenceSession.create(original);
    const after = await ort.InferenceSession.create(edit.bytes);
    try {
      const past = before.inputNames.filter((n) => n.startsWith('past_key_values.'));
      expect(past.length).toBeGreaterThan(0);
      expect([...edit.inputs].sort()).toEqual([...past].sort());
      expect(after.inputNames).toEqual(before.inputNames);
      expect(after.outputNames).toEqual([...before.outputNames, ...edit.inputs.map(newKvOutput)]);

      // A pass of 3 new positions after 5 cached ones.
      const meta = before.inputMetadata as unknown as { name: string; shape: (number | string)[] }[];
      const hidden = meta.find((m) => m.name === 'inputs_embeds')!.shape[2] as number;
      const [P, T] = [5, 3];
      const feeds: Record<string, ort.Tensor> = {
        inputs_embeds: new ort.Tensor('float32', Float32Array.from({ length: T * hidden }, (_, i) => Math.sin(i)), [1, T, hidden]),
        attention_mask: new ort.Tensor('int64', new BigInt64Array(P + T).fill(1n), [1, P + T]),
        position_ids: new ort.Tensor('int64', BigInt64Array.from([5n, 6n, 7n]), [1, T]),
      };
      for (const m of meta.filter((x) => x.name.startsWith('past_key_values.'))) {
        const [, heads, , dim] = m.shape as number[];
        feeds[m.name] = new ort.Tensor('float32', Float32Array.from({ length: heads! * P * dim! }, (_, i) => Math.cos(i)), [1, heads!, P, dim!]);
      }
      const a = await before.run(feeds);
      const b = await after.run(feeds);
      expect(Array.from(b['logits']!.data as Float32Array)).toEqual(Array.from(a['logits']!.data as Float32Array));
      for (const name of past) {
        const present = a[`present.${name.slice('past_key_values.'.length)}`]!;
        const added = b[newKvOutput(name)]!;
        const [, heads, total, dim] = present.dims as number[];
        expect(total).toBe(P + T);
        expect(added.dims).toEqual([1, heads, T, dim]);
        const want: number[] = [];
        for (let h = 0; h < heads!; h++) want.push(...(present.data as Float32Array).subarray((h * total! + P) * dim!, (h + 1) * total! * dim!));
        expect(Array.from(added.data as Float32Array)).toEqual(want);
      }
    } finally {
      await before.release();
      await after.release();
    }
  });

  it('edits the self-test text model the same way', () => {
    const edit = exposeNewKv(model('self-test-text/onnx/model.onnx'));
    expect(edit?.inputs.length).toBeGreaterThan(0);
  });

  it('leaves alone a file without a cache (the vision encoder), and bytes that are not a model', () => {
    expect(exposeNewKv(model('demo-trained/onnx/vision_encoder.onnx'))).toBeNull();
    expect(exposeNewKv(new TextEncoder().encode('{"not": "a model"}'))).toBeNull();
    const decoder = model('demo-trained/onnx/decoder_model_merged.onnx');
    expect(exposeNewKv(decoder.subarray(0, decoder.length >> 1))).toBeNull();
  });
});

/** A pass of 3 new positions after 5 cached ones, for a decoder session's inputs. */
function passFeeds(session: ort.InferenceSession): Record<string, ort.Tensor> {
  const meta = session.inputMetadata as unknown as { name: string; shape: (number | string)[] }[];
  const [P, T] = [5, 3];
  const feeds: Record<string, ort.Tensor> = {
    attention_mask: new ort.Tensor('int64', new BigInt64Array(P + T).fill(1n), [1, P + T]),
    position_ids: new ort.Tensor('int64', BigInt64Array.from([5n, 6n, 7n]), [1, T]),
  };
  const embeds = meta.find((m) => m.name === 'inputs_embeds');
  if (embeds) {
    const hidden = embeds.shape[2] as number;
    feeds['inputs_embeds'] = new ort.Tensor('float32', Float32Array.from({ length: T * hidden }, (_, i) => Math.sin(i)), [1, T, hidden]);
  } else feeds['input_ids'] = new ort.Tensor('int64', BigInt64Array.from([3n, 4n, 5n]), [1, T]);
  for (const m of meta.filter((x) => x.name.startsWith('past_key_values.'))) {
    const [, heads, , dim] = m.shape as number[];
    feeds[m.name] = new ort.Tensor('float32', Float32Array.from({ length: heads! * P * dim! }, (_, i) => Math.cos(i)), [1, heads!, P, dim!]);
  }
  return feeds;
}

/** One layer whose cached keys and values are summed, not multiplied: a cache read the split does not know. */
function otherReader(): Uint8Array {
  const g = new GraphBuilder('other-reader');
  const x = g.input('x', 'float32', ['batch_size', 2, 'sequence_length', 4]);
  const past = { key: g.input('past_key_values.0.key', 'float32', ['batch_size', 2, 'past_sequence_length', 4]), value: g.input('past_key_values.0.value', 'float32', ['batch_size', 2, 'past_sequence_length', 4]) };
  const keys = g.op('Concat', [past.key, x], { axis: { int: 2 } }, 'present.0.key');
  const values = g.op('Concat', [past.value, x], { axis: { int: 2 } }, 'present.0.value');
  g.op('Add', [g.op('ReduceSum', [keys]), g.op('ReduceSum', [values])], {}, 'logits');
  g.output('logits', 'float32', [1]);
  for (const kind of ['key', 'value']) g.output(`present.0.${kind}`, 'float32', ['batch_size', 2, 'total_sequence_length', 4]);
  return g.toModel({ opset: 17, producer: 'test' });
}

describe('the attention split at the cache boundary', () => {
  for (const path of ['demo-trained/onnx/decoder_model_merged.onnx', 'self-test-text/onnx/model.onnx']) {
    it(`${path}: no whole-cache outputs; the new positions and the logits are the file's own`, async () => {
      const original = model(path);
      expect(exposeNewKv(original)!.split).toBe(false);
      const edit = exposeNewKv(original, { splitAttention: true })!;
      expect(edit.split).toBe(true);
      const before = await ort.InferenceSession.create(original);
      const after = await ort.InferenceSession.create(edit.bytes);
      try {
        expect(after.inputNames).toEqual(before.inputNames);
        expect(after.outputNames).toEqual(['logits', ...edit.inputs.map(newKvOutput)]);
        const feeds = passFeeds(before);
        const a = await before.run(feeds);
        const b = await after.run(feeds);
        // The context's sum over positions is taken in two parts: equal up to rounding, the same greedy token.
        const want = a['logits']!.data as Float32Array;
        const got = b['logits']!.data as Float32Array;
        expect(got.length).toBe(want.length);
        const scale = want.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
        const off = want.reduce((m, v, i) => Math.max(m, Math.abs(v - got[i]!)), 0);
        expect(off).toBeLessThan(scale * 1e-5);
        expect(want.reduce((best, v, i) => (v > want[best]! ? i : best), 0)).toBe(got.reduce((best, v, i) => (v > got[best]! ? i : best), 0));
        for (const name of edit.inputs) {
          const present = a[`present.${name.slice('past_key_values.'.length)}`]!;
          const [, heads, total, dim] = present.dims as number[];
          const tail: number[] = [];
          for (let h = 0; h < heads!; h++) tail.push(...(present.data as Float32Array).subarray((h * total! + 5) * dim!, (h + 1) * total! * dim!));
          // Later layers' keys and values come from earlier layers' attention: the same up to its rounding.
          const added = b[newKvOutput(name)]!;
          expect(added.dims).toEqual([1, heads, 3, dim]);
          const addedData = added.data as Float32Array;
          expect(tail.reduce((m, v, i) => Math.max(m, Math.abs(v - addedData[i]!)), 0)).toBeLessThan(1e-4);
        }
      } finally {
        await before.release();
        await after.release();
      }
    });
  }

  it('keeps the attention whole where a layer reads the cache in another way', () => {
    // The new outputs are added, the attention is left as it is.
    const edit = exposeNewKv(otherReader(), { splitAttention: true })!;
    expect(edit.split).toBe(false);
    expect([...edit.inputs].sort()).toEqual(['past_key_values.0.key', 'past_key_values.0.value']);
  });
});

/**
 * A small decoder of the real-size models' architecture (SmolLM2: grouped
 * query heads read each KV head through a reshape, not a copy) with
 * `heads` query heads over `kvHeads` KV heads, int8 weights as on WASM.
 */
function groupedDecoder(heads: number, kvHeads: number): Uint8Array {
  const dims = {
    text: { vocabSize: 97, hidden: 48, layers: 2, heads, kvHeads, headDim: 8, intermediate: 64, ropeTheta: 10000, rmsNormEps: 1e-5, maxPositions: 64 },
  } as RealSizeDims;
  return decoderModelMerged({ ...dims, id: `grouped-${heads}-${kvHeads}` }, inlineSink, 'q8').toModel({ opset: OPSET, producer: PRODUCER });
}

describe('a kept prefix held in the decoder file', () => {
  const decoders: [string, () => Uint8Array][] = [
    ...['demo-trained/onnx/decoder_model_merged.onnx', 'self-test-text/onnx/model.onnx'].map((path): [string, () => Uint8Array] => [path, () => model(path)]),
    ['6 query heads over 2 KV heads (grouped, as SmolVLM)', () => groupedDecoder(6, 2)],
    ['4 query heads over 1 KV head (multi-query)', () => groupedDecoder(4, 1)],
  ];
  for (const [label, load] of decoders) {
    it(`${label}: fed only the positions after it, the pass gives the whole file's logits and new positions`, async () => {
      const original = load();
      const whole = await ort.InferenceSession.create(original);
      const feeds = passFeeds(whole);
      // The 5 cached positions: the first 3 held in the file, the last 2 fed.
      const HELD = 3;
      const tensors = new Map<string, { dims: number[]; data: Float32Array }>();
      const tail: Record<string, ort.Tensor> = {};
      for (const [name, t] of Object.entries(feeds)) {
        if (!name.startsWith('past_key_values.')) continue;
        const [, heads, P, dim] = t.dims as number[];
        const data = t.data as Float32Array;
        const held = new Float32Array(heads! * HELD * dim!);
        const rest = new Float32Array(heads! * (P! - HELD) * dim!);
        for (let h = 0; h < heads!; h++) {
          held.set(data.subarray(h * P! * dim!, (h * P! + HELD) * dim!), h * HELD * dim!);
          rest.set(data.subarray((h * P! + HELD) * dim!, (h + 1) * P! * dim!), h * (P! - HELD) * dim!);
        }
        tensors.set(name, { dims: [1, heads!, HELD, dim!], data: held });
        tail[name] = new ort.Tensor('float32', rest, [1, heads!, P! - HELD, dim!]);
      }
      const edit = exposeNewKv(original, { prefix: { length: HELD, tensors } })!;
      expect(edit.split).toBe(true);
      // Only the prefix's positions are in the file: its size grew by them.
      const heldBytes = [...tensors.values()].reduce((n, t) => n + t.data.byteLength, 0);
      expect(edit.bytes.length).toBeGreaterThan(original.length + heldBytes);
      const holding = await ort.InferenceSession.create(edit.bytes);
      try {
        const a = await whole.run(feeds);
        const b = await holding.run({ ...feeds, ...tail });
        const want = a['logits']!.data as Float32Array;
        const got = b['logits']!.data as Float32Array;
        const scale = want.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
        expect(want.reduce((m, v, i) => Math.max(m, Math.abs(v - got[i]!)), 0)).toBeLessThan(scale * 1e-5);
        expect(want.reduce((best, v, i) => (v > want[best]! ? i : best), 0)).toBe(got.reduce((best, v, i) => (v > got[best]! ? i : best), 0));
        for (const name of edit.inputs) {
          const present = a[`present.${name.slice('past_key_values.'.length)}`]!;
          const [, heads, total, dim] = present.dims as number[];
          const added = b[newKvOutput(name)]!.data as Float32Array;
          let off = 0;
          for (let h = 0; h < heads!; h++) {
            const want = (present.data as Float32Array).subarray((h * total! + 5) * dim!, (h + 1) * total! * dim!);
            want.forEach((v, i) => (off = Math.max(off, Math.abs(v - added[h * 3 * dim! + i]!))));
          }
          expect(off).toBeLessThan(1e-4);
        }
        // A different prefix gives different logits: the file reads what it holds.
        for (const t of tensors.values()) t.data.fill(0.5);
        const other = await ort.InferenceSession.create(exposeNewKv(original, { prefix: { length: HELD, tensors } })!.bytes);
        const c = (await other.run({ ...feeds, ...tail }))['logits']!.data as Float32Array;
        await other.release();
        expect(c.reduce((m, v, i) => Math.max(m, Math.abs(v - got[i]!)), 0)).toBeGreaterThan(scale * 1e-3);
      } finally {
        await whole.release();
        await holding.release();
      }
    });
  }

  it('is refused (null) for a prefix of other dimensions, a missing layer, or a graph the split cannot take', () => {
    const original = model('demo-trained/onnx/decoder_model_merged.onnx');
    const names = exposeNewKv(original)!.inputs;
    const tensorsOf = (dims: number[], skip = 0) =>
      new Map(names.slice(skip).map((n) => [n, { dims, data: new Float32Array(dims.reduce((a, b) => a * b, 1)) }]));
    // The demo-trained decoder: 4 kv heads of 32 dims.
    expect(exposeNewKv(original, { prefix: { length: 3, tensors: tensorsOf([1, 4, 3, 32]) } })).not.toBeNull();
    expect(exposeNewKv(original, { prefix: { length: 3, tensors: tensorsOf([1, 4, 2, 32]) } })).toBeNull();
    expect(exposeNewKv(original, { prefix: { length: 3, tensors: tensorsOf([2, 4, 3, 32]) } })).toBeNull();
    expect(exposeNewKv(original, { prefix: { length: 3, tensors: tensorsOf([1, 4, 3, 32], 1) } })).toBeNull();
    const prefix = { length: 1, tensors: new Map(['key', 'value'].map((k) => [`past_key_values.0.${k}`, { dims: [1, 2, 1, 4], data: new Float32Array(8) }])) };
    expect(exposeNewKv(otherReader(), { prefix })).toBeNull();
  });
});

describe('the fetch that edits decoder files for a load', () => {
  const decoder = model('demo-trained/onnx/decoder_model_merged.onnx');
  const files: Record<string, Uint8Array> = {
    'http://models.local/m/onnx/decoder_model_merged.onnx': decoder,
    'http://models.local/m/onnx/vision_encoder.onnx': model('demo-trained/onnx/vision_encoder.onnx'),
    'http://models.local/m/onnx/model_q4.onnx': new TextEncoder().encode('not a model'),
  };
  const edits = new ModelFileEdits(async (input) => {
    const body = files[String(input)];
    return body ? new Response(body.slice(), { status: 200, headers: { 'Content-Length': String(body.length) } }) : new Response('missing', { status: 404 });
  });
  const bytes = async (url: string) => new Uint8Array(await (await edits.fetch(url)).arrayBuffer());
  /** Whole-file equality (Buffer.equals: a deep toEqual of megabytes takes seconds). */
  const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

  it('edits the decoder only while a load asks, and nothing else', async () => {
    const url = 'http://models.local/m/onnx/decoder_model_merged.onnx';
    expect(same(await bytes(url), decoder)).toBe(true);
    const edited = await edits.newKvOutputsDuring(async () => ({
      decoder: await bytes(url),
      encoder: await bytes('http://models.local/m/onnx/vision_encoder.onnx'),
      unreadable: await edits.fetch('http://models.local/m/onnx/model_q4.onnx'),
      missing: await edits.fetch('http://models.local/m/onnx/model.onnx'),
    }));
    expect(same(edited.decoder, decoder)).toBe(false);
    expect(same(edited.decoder, exposeNewKv(decoder)!.bytes)).toBe(true);
    expect(same(edited.encoder, files['http://models.local/m/onnx/vision_encoder.onnx']!)).toBe(true);
    // A decoder file that cannot be edited is served as it was; a missing one stays missing.
    expect(edited.unreadable.status).toBe(200);
    expect(await edited.unreadable.text()).toBe('not a model');
    expect(edited.missing.status).toBe(404);
    expect(same(await bytes(url), decoder)).toBe(true);
  });

  it('splits the attention too where the load asks for it', async () => {
    const url = 'http://models.local/m/onnx/decoder_model_merged.onnx';
    const split = await edits.newKvOutputsDuring(() => bytes(url), { splitAttention: true });
    expect(same(split, exposeNewKv(decoder, { splitAttention: true })!.bytes)).toBe(true);
    expect(same(split, exposeNewKv(decoder)!.bytes)).toBe(false);
    expect(same(await bytes(url), decoder)).toBe(true);
  });
});
