/**
 * An answer's prompt and speed in words, for the pages that show them beside
 * each other (the run's answers, a model's check): how many of the prompt's
 * tokens were text and how many images, how many tiles the processor made of
 * each image, and how many came from a kept shared prompt, so a user sees
 * what an image costs.
 */
import { count } from '../text/plural.ts';
import type { PromptSize } from '../model/answer.ts';

const n = (v: number) => v.toLocaleString('en');

/** "1,312 tokens: 1,248 text, 64 image (1 image, 1 tile); 1,180 from the shared prompt". */
export function describePromptSize(promptTokens: number | null, prompt: PromptSize | undefined): string {
  if (!prompt) return promptTokens === null ? '—' : count(promptTokens, 'token');
  const total = promptTokens ?? prompt.textTokens + prompt.imageTokens;
  const parts = [`${n(prompt.textTokens)} text`];
  if (prompt.images.length > 0) {
    const tiles = prompt.images.map((i) => i.tiles);
    const tileText = tiles.every((t): t is number => t !== null) ? `, ${count(tiles.reduce((a, b) => a + b, 0), 'tile')}` : '';
    parts.push(`${n(prompt.imageTokens)} image (${count(prompt.images.length, 'image')}${tileText})`);
  }
  const reused = prompt.reusedTokens > 0 ? `; ${n(prompt.reusedTokens)} from the shared prompt` : '';
  return `${count(total, 'token')}: ${parts.join(', ')}${reused}`;
}

/** Each image's tiles and tokens: "image 1: 17 tiles, 1,088 tokens; image 2: 1 tile, 64 tokens". */
export function describeImageCost(prompt: PromptSize | undefined): string {
  if (!prompt || prompt.images.length === 0) return '';
  return prompt.images.map((im, i) => `image ${i + 1}: ${im.tiles === null ? '' : `${count(im.tiles, 'tile')}, `}${count(im.tokens, 'token')}`).join('; ');
}
