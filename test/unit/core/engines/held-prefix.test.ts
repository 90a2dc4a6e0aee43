/**
 * The second decoder session that holds a kept prefix (held-prefix.ts): made
 * with the model session's own class from the file as published, never
 * beyond its size cap, and only from one row of CPU float tensors.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { exposeNewKv } from '../../../../src/core/engines/transformers/decoder-graph.ts';
import { MAX_HOLDING_BYTES, bakedPrefix, prefixHolder } from '../../../../src/core/engines/transformers/held-prefix.ts';
import type { KvCache } from '../../../../src/core/engines/transformers/kv-cache.ts';
import type { TransformersLib } from '../../../../src/core/engines/transformers/runtime.ts';
import { loadNodeTransformers, ort } from '../../../support/transformers-node.ts';

const DECODER = new Uint8Array(readFileSync(fileURLToPath(new URL('../../../../public/models/demo-trained/onnx/decoder_model_merged.onnx', import.meta.url))));
const CACHE_INPUTS = exposeNewKv(DECODER)!.inputs;

let lib: TransformersLib;
beforeAll(async () => {
  lib = (await loadNodeTransformers()).lib;
});

/** A kept cache of the demo-trained decoder's shape (4 kv heads of 32), `rows` rows of `length` positions. */
const cacheOf = (rows: number, length: number): KvCache =>
  Object.fromEntries(CACHE_INPUTS.map((n) => [n, new lib.Tensor('float32', new Float32Array(rows * 4 * length * 32).fill(0.25), [rows, 4, length, 32])]));

describe('the session holding a kept prefix', () => {
  it("is made with the model session's class from the file as published, holding the prefix", async () => {
    const real = await ort.InferenceSession.create(DECODER);
    try {
      const hold = prefixHolder(DECODER, real)!;
      const baked = bakedPrefix(cacheOf(1, 6), 6)!;
      expect(baked.length).toBe(6);
      const session = (await hold(baked))!;
      try {
        // Same inputs (the cache inputs now hold the positions after the prefix), no whole-cache outputs.
        expect(session.inputNames).toEqual(real.inputNames);
        expect(session.outputNames!.some((n) => n.startsWith('present.'))).toBe(false);
      } finally {
        await session.release!();
      }
    } finally {
      await real.release();
    }
  });

  it('is not made without the file or an onnxruntime session, or past its size cap', async () => {
    expect(prefixHolder(null, {})).toBeNull();
    expect(prefixHolder(DECODER, null)).toBeNull();
    expect(prefixHolder(DECODER, { run: () => {} })).toBeNull();
    const made: Uint8Array[] = [];
    class Session {
      static async create(bytes: Uint8Array) {
        made.push(bytes);
        return { inputNames: [] };
      }
    }
    const hold = prefixHolder(DECODER, new Session())!;
    const huge = new Map(CACHE_INPUTS.map((n) => [n, { dims: [1, 4, 6, 32], data: { byteLength: MAX_HOLDING_BYTES / CACHE_INPUTS.length + 1, length: 4 * 6 * 32 } as unknown as Float32Array }]));
    expect(await hold({ length: 6, tensors: huge })).toBeNull();
    expect(made).toHaveLength(0);
    expect(await hold(bakedPrefix(cacheOf(1, 6), 6)!)).not.toBeNull();
    expect(made).toHaveLength(1);
  });

  it('is only read from one row of CPU float tensors of the prefix length', () => {
    expect(bakedPrefix(cacheOf(2, 6), 6)).toBeNull();
    expect(bakedPrefix(cacheOf(1, 6), 5)).toBeNull();
    expect(bakedPrefix({}, 0)).toBeNull();
    const ints = Object.fromEntries(CACHE_INPUTS.map((n) => [n, new lib.Tensor('int32', new Int32Array(4 * 6 * 32), [1, 4, 6, 32])]));
    expect(bakedPrefix(ints, 6)).toBeNull();
  });
});
