import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashBlob } from '../../../../src/core/hash/hash-blob.ts';
import { Sha256, sha256Hex } from '../../../../src/core/hash/sha256.ts';

describe('sha256', () => {
  it('matches the FIPS 180-4 test vectors', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('gives the same digest however the input is split', () => {
    const data = randomBytes(10_000);
    const expected = createHash('sha256').update(data).digest('hex');
    for (const step of [1, 7, 63, 64, 65, 4096]) {
      const h = new Sha256();
      for (let i = 0; i < data.length; i += step) h.update(data.subarray(i, i + step));
      expect(h.digestHex()).toBe(expected);
    }
  });

  it('handles lengths around the padding boundary', () => {
    for (const n of [55, 56, 57, 63, 64, 119, 120]) {
      const data = Buffer.alloc(n, 0x61);
      expect(sha256Hex(data)).toBe(createHash('sha256').update(data).digest('hex'));
    }
  });

  it('hashes a Blob in chunks with progress and honours abort', async () => {
    const data = randomBytes(300_000);
    const blob = new Blob([data]);
    const progress: number[] = [];
    const hex = await hashBlob(blob, { chunkBytes: 65_536, onProgress: (p) => progress.push(p.done) });
    expect(hex).toBe(createHash('sha256').update(data).digest('hex'));
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(300_000);
    const controller = new AbortController();
    controller.abort();
    await expect(hashBlob(blob, { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('streams a Blob to the same digest as the in-memory hasher, whatever the chunk size', async () => {
    expect(await hashBlob(new Blob([]))).toBe(createHash('sha256').digest('hex'));
    const data = randomBytes(4_099);
    const expected = createHash('sha256').update(data).digest('hex');
    expect(sha256Hex(data)).toBe(expected);
    for (const chunkBytes of [1, 63, 64, 65, 4_096, 1 << 20]) {
      expect(await hashBlob(new Blob([data]), { chunkBytes })).toBe(expected);
    }
  });
});
