/** Report thumbnails: shrunk to fit 160 px by area average, as a PNG data URL that decodes back to those pixels. */
import { describe, expect, it } from 'vitest';
import { decodePng, rawImage } from '../../../../src/core/imaging/degrade/pixels.ts';
import { shrinkToFit, thumbnailDataUrl } from '../../../../src/core/imaging/thumbnail.ts';

describe('thumbnails', () => {
  it('fits the longest side to 160 px and keeps the aspect', () => {
    const img = rawImage(640, 320, 1, new Uint8Array(640 * 320).fill(7));
    const t = shrinkToFit(img);
    expect([t.width, t.height]).toEqual([160, 80]);
    expect(t.data.every((v) => v === 7)).toBe(true);
  });

  it('averages the pixels each output pixel covers', () => {
    // 4×2 stripes 0/200 → 2×1: every output pixel averages one 0 and one 200 column over two rows.
    const img = rawImage(4, 2, 1, Uint8Array.from([0, 200, 0, 200, 0, 200, 0, 200]));
    const t = shrinkToFit(img, 2);
    expect(Array.from(t.data)).toEqual([100, 100]);
  });

  it('leaves a small image as it is and encodes a PNG data URL', () => {
    const img = rawImage(3, 2, 3, Uint8Array.from({ length: 18 }, (_, i) => i * 10));
    expect(shrinkToFit(img)).toBe(img);
    const url = thumbnailDataUrl(img);
    expect(url.startsWith('data:image/png;base64,')).toBe(true);
    const back = decodePng(Uint8Array.from(atob(url.slice(22)), (c) => c.charCodeAt(0)));
    expect([back.width, back.height, back.channels]).toEqual([3, 2, 3]);
    expect(Array.from(back.data)).toEqual(Array.from(img.data));
  });
});
