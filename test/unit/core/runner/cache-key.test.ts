/** Cache keys: stable for equal requests, different when anything that decides the answer differs. */
import { describe, expect, it } from 'vitest';
import { imagesThenText, textTurn, type Turn } from '../../../../src/core/chat/turn.ts';
import { CACHE_KEY_VERSION, cacheKey, isReusable, modelFilesHash, promptHash, type CacheKeyInput } from '../../../../src/core/runner/cache-key.ts';

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
    // CACHE_KEY_VERSION 2 (turns hashed as ordered parts); the same input under version 1 gave 3ad275a7…d16ce0.
    expect(CACHE_KEY_VERSION).toBe(2);
    expect(key).toBe('4a1b9816e379a74aa78eac4c9fde358dc6f10c5f4eeb970fd96561fe134bb134');
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
  const turns: Turn<{ sha256: string }>[] = [imagesThenText([{ sha256: 'x' }], 'Which lesion?')];
  it('depends on text, roles, image count, follow-ups and schema, not on image references', () => {
    const h = promptHash(turns);
    expect(promptHash([imagesThenText([{ sha256: 'y' }], 'Which lesion?')])).toBe(h);
    expect(promptHash([imagesThenText([{ sha256: 'x' }], 'Which lesion?!')])).not.toBe(h);
    expect(promptHash([{ ...turns[0]!, role: 'system' }])).not.toBe(h);
    expect(promptHash([imagesThenText([], 'Which lesion?')])).not.toBe(h);
    expect(promptHash(turns, [{ id: 'f1', turn: textTurn('user', 'And now?') }])).not.toBe(h);
    expect(promptHash(turns, [], { type: 'object' })).not.toBe(h);
  });

  it('depends on where each image stands among the text parts', () => {
    const interleaved: Turn<{ sha256: string }> = {
      role: 'user',
      parts: [
        { type: 'text', text: 'Example 1' },
        { type: 'image', image: { sha256: 'x' } },
        { type: 'text', text: 'Example 2' },
        { type: 'image', image: { sha256: 'y' } },
      ],
    };
    const h = promptHash([interleaved]);
    // Same texts, same image count, images elsewhere.
    const imagesFirst: Turn<{ sha256: string }> = { role: 'user', parts: [interleaved.parts[1]!, interleaved.parts[3]!, interleaved.parts[0]!, interleaved.parts[2]!] };
    const imagesLast: Turn<{ sha256: string }> = { role: 'user', parts: [interleaved.parts[0]!, interleaved.parts[2]!, interleaved.parts[1]!, interleaved.parts[3]!] };
    expect(promptHash([imagesFirst])).not.toBe(h);
    expect(promptHash([imagesLast])).not.toBe(h);
    expect(promptHash([imagesFirst])).not.toBe(promptHash([imagesLast]));
    // Other images in the same places: the same prompt (their content goes into imageHashes).
    expect(promptHash([{ role: 'user', parts: interleaved.parts.map((p) => (p.type === 'image' ? { type: 'image', image: { sha256: 'z' } } : p)) }])).toBe(h);
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
