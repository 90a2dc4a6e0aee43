/**
 * The 64×64 gray test card a model is tried on (Models → Test) and the engine
 * benches ask about: a vertical gradient with a bright disc, encoded with the
 * app's PNG encoder. One definition, so a bench measures the image the app sends.
 */
import { encodePng } from './png-encode.ts';

export const TEST_CARD_SIZE = 64;

export function testCardPng(): Uint8Array {
  const size = TEST_CARD_SIZE;
  const px = new Uint8Array(size * size);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) px[y * size + x] = (x - 40) ** 2 + (y - 24) ** 2 < 110 ? 240 : 40 + y * 2;
  }
  return encodePng(px, size, size, 'gray');
}
