import { describe, expect, it } from 'vitest';
import { describeImageCost, describePromptSize } from '../../../../src/core/engines/prompt-size.ts';

describe('prompt size in words', () => {
  it('splits text and image tokens, counts tiles and what came from the shared prompt', () => {
    const prompt = { textTokens: 1248, imageTokens: 1152, images: [{ tiles: 17, tokens: 1088 }, { tiles: 1, tokens: 64 }], reusedTokens: 1180 };
    expect(describePromptSize(2400, prompt)).toBe('2,400 tokens: 1,248 text, 1,152 image (2 images, 18 tiles); 1,180 from the shared prompt');
    expect(describeImageCost(prompt)).toBe('image 1: 17 tiles, 1,088 tokens; image 2: 1 tile, 64 tokens');
  });

  it('says only what the engine reported', () => {
    expect(describePromptSize(40, undefined)).toBe('40 tokens');
    expect(describePromptSize(null, undefined)).toBe('—');
    expect(describePromptSize(70, { textTokens: 6, imageTokens: 64, images: [{ tiles: null, tokens: 64 }], reusedTokens: 0 })).toBe('70 tokens: 6 text, 64 image (1 image)');
    expect(describeImageCost({ textTokens: 6, imageTokens: 0, images: [], reusedTokens: 0 })).toBe('');
  });
});
