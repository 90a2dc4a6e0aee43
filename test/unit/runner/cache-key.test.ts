/** Cache keys: stable for equal requests, different when anything that decides the answer differs. */
import { describe, expect, it } from 'vitest';
import { cacheKey, isReusable, modelFilesHash, promptHash, type CacheKeyInput } from '../../../src/core/runner/cache-key.ts';

const BASE: CacheKeyInput = {
  modelId: 'model-a',
  modelFilesHash: 'f'.repeat(64),
  runtime: 'transformers',
  runtimeVersion: '4.3.1',
  protocolId: 'mcq',
  protocolVersion: '1',
  promptHash: 'p'.repeat(64),
  imageHashes: ['a'.repeat(64), 'b'.repeat(64)],
  variant: 'none',
  sampling: { temperature: 0, topP: 1, maxTokens: 256 },
  seed: 42,
};

describe('cacheKey', () => {
  it('is a stable SHA-256 hex that ignores key order and stray fields', () => {
    const key = cacheKey(BASE);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const reordered = Object.fromEntries(Object.entries(BASE).reverse()) as unknown as CacheKeyInput;
    expect(cacheKey(reordered)).toBe(key);
    expect(cacheKey({ ...BASE, sampling: { ...BASE.sampling, seed: 7 } as CacheKeyInput['sampling'] })).toBe(key);
    expect(cacheKey({ ...BASE, extra: 'x' } as CacheKeyInput)).toBe(key);
    // Pinned: if this changes, every stored answer stops being reusable (bump CACHE_KEY_VERSION on purpose).
    expect(key).toBe('3ad275a7555843334f84dbecf777c61bbc51aa81b3c049f71a3637bd43d16ce0');
  });

  const changes: [string, Partial<CacheKeyInput>][] = [
    ['modelId', { modelId: 'model-b' }],
    ['modelFilesHash', { modelFilesHash: 'e'.repeat(64) }],
    ['runtime', { runtime: 'webllm' }],
    ['runtimeVersion', { runtimeVersion: '4.3.2' }],
    ['protocolId', { protocolId: 'open' }],
    ['protocolVersion', { protocolVersion: '2' }],
    ['promptHash', { promptHash: 'q'.repeat(64) }],
    ['imageHashes (order)', { imageHashes: ['b'.repeat(64), 'a'.repeat(64)] }],
    ['imageHashes (content)', { imageHashes: ['a'.repeat(64)] }],
    ['variant', { variant: 'degrade:noise:1' }],
    ['temperature', { sampling: { ...BASE.sampling, temperature: 0.1 } }],
    ['topP', { sampling: { ...BASE.sampling, topP: 0.9 } }],
    ['maxTokens', { sampling: { ...BASE.sampling, maxTokens: 128 } }],
    ['seed', { seed: 43 }],
  ];
  it.each(changes)('changes with %s', (_name, patch) => {
    expect(cacheKey({ ...BASE, ...patch })).not.toBe(cacheKey(BASE));
  });
});

describe('promptHash', () => {
  const turns = [{ role: 'user' as const, text: 'Which lesion?', images: [{ sha256: 'x' }] }];
  it('depends on text, roles, image count, follow-ups and schema, not on image references', () => {
    const h = promptHash(turns);
    expect(promptHash([{ ...turns[0]!, images: [{ sha256: 'y' }] }])).toBe(h);
    expect(promptHash([{ ...turns[0]!, text: 'Which lesion?!' }])).not.toBe(h);
    expect(promptHash([{ ...turns[0]!, role: 'system' }])).not.toBe(h);
    expect(promptHash([{ ...turns[0]!, images: [] }])).not.toBe(h);
    expect(promptHash(turns, [{ id: 'f1', turn: { role: 'user', text: 'And now?' } }])).not.toBe(h);
    expect(promptHash(turns, [], { type: 'object' })).not.toBe(h);
  });
});

describe('modelFilesHash and isReusable', () => {
  it('hashes model files independent of order', () => {
    const files = [{ name: 'b.onnx', sha256: '2' }, { name: 'a.json', sha256: '1' }];
    expect(modelFilesHash(files)).toBe(modelFilesHash([...files].reverse()));
    expect(modelFilesHash(files)).not.toBe(modelFilesHash([{ name: 'a.json', sha256: '1' }]));
  });

  it('reuses only finished answers with text', () => {
    expect(isReusable({ finishReason: 'stop', rawText: 'A' })).toBe(true);
    expect(isReusable({ finishReason: 'length', rawText: 'A' })).toBe(true);
    expect(isReusable({ finishReason: 'error', rawText: 'A' })).toBe(false);
    expect(isReusable({ finishReason: 'abort', rawText: 'A' })).toBe(false);
    expect(isReusable({ finishReason: 'stop', rawText: '  ' })).toBe(false);
  });
});
