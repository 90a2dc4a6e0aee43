import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../src/core/errors.ts';
import { checkImageSize, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE, readImageDimensions } from '../../../../src/core/imaging/dimensions.ts';
import { encodePng } from '../../../../src/core/imaging/png-encode.ts';
import type { RasterImageType } from '../../../../src/core/imaging/sniff.ts';
import { makeBmp, makeGif, makeJpeg, makeWebpVp8, makeWebpVp8l, makeWebpVp8x } from '../../../support/fixtures-imaging/index.ts';

describe('readImageDimensions', () => {
  it('reads PNG IHDR', () => {
    expect(readImageDimensions(encodePng(new Uint8Array(7 * 3), 7, 3), 'png')).toEqual({ width: 7, height: 3 });
    expect(readImageDimensions(encodePng(new Uint8Array(300 * 2 * 3), 300, 2, 'rgb'), 'png')).toEqual({ width: 300, height: 2 });
  });

  it('reads the JPEG frame header, skipping segments whose content looks like markers', () => {
    // The comment segment contains FF C0 … with size 1×1: a scanning parser would report 1×1.
    expect(readImageDimensions(makeJpeg(640, 480), 'jpeg')).toEqual({ width: 640, height: 480 });
  });

  it.each([0xc0, 0xc1, 0xc2, 0xc3, 0xc9, 0xcb])('reads SOF%s markers', (sof) => {
    expect(readImageDimensions(makeJpeg(1024, 77, { sof }), 'jpeg')).toEqual({ width: 1024, height: 77 });
  });

  it('skips fill bytes before a marker', () => {
    expect(readImageDimensions(makeJpeg(33, 44, { fillBytes: 3 }), 'jpeg')).toEqual({ width: 33, height: 44 });
  });

  it('refuses a JPEG whose scan starts before any frame header', () => {
    const jpeg = makeJpeg(10, 10, { sof: 0xc4 }); // DHT instead of SOF: no frame header at all
    expect(() => readImageDimensions(jpeg, 'jpeg')).toThrow(/no frame header/);
  });

  it('reads WebP VP8, VP8L and VP8X headers', () => {
    expect(readImageDimensions(makeWebpVp8(321, 123), 'webp')).toEqual({ width: 321, height: 123 });
    expect(readImageDimensions(makeWebpVp8l(16384, 1), 'webp')).toEqual({ width: 16384, height: 1 });
    expect(readImageDimensions(makeWebpVp8l(1, 16384), 'webp')).toEqual({ width: 1, height: 16384 });
    expect(readImageDimensions(makeWebpVp8x(20000, 3), 'webp')).toEqual({ width: 20000, height: 3 });
  });

  it('reads GIF and BMP (including top-down BMP)', () => {
    expect(readImageDimensions(makeGif(12, 34), 'gif')).toEqual({ width: 12, height: 34 });
    expect(readImageDimensions(makeBmp(56, 78), 'bmp')).toEqual({ width: 56, height: 78 });
    expect(readImageDimensions(makeBmp(56, -78), 'bmp')).toEqual({ width: 56, height: 78 });
  });

  const samples: [RasterImageType, Uint8Array][] = [
    ['png', encodePng(new Uint8Array(4), 2, 2)],
    ['jpeg', makeJpeg(640, 480)],
    ['webp', makeWebpVp8(64, 64)],
    ['webp', makeWebpVp8l(64, 64)],
    ['webp', makeWebpVp8x(64, 64)],
    ['gif', makeGif(5, 5)],
    ['bmp', makeBmp(5, 5)],
  ];
  it.each(samples)('refuses every truncation of a %s header with a typed error', (type, bytes) => {
    // Cut anywhere before the size fields end: each must fail cleanly, never read garbage.
    const full = readImageDimensions(bytes, type);
    let refused = 0;
    for (let cut = 0; cut < Math.min(bytes.length, 200); cut++) {
      let dims: unknown;
      try {
        dims = readImageDimensions(bytes.subarray(0, cut), type, 'scan.img');
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidInputError);
        expect((error as InvalidInputError).location?.file).toBe('scan.img');
        refused++;
        continue;
      }
      // A prefix that already holds the complete size must give the right one.
      expect(dims).toEqual(full);
    }
    expect(refused).toBeGreaterThan(0);
  });

  it('refuses corrupt headers', () => {
    const png = encodePng(new Uint8Array(4), 2, 2);
    png[12] = 0x78; // IHDR → xHDR
    expect(() => readImageDimensions(png, 'png')).toThrow(/IHDR/);
    const vp8 = makeWebpVp8(10, 10);
    vp8[23] = 0;
    expect(() => readImageDimensions(vp8, 'webp')).toThrow(/start code/);
    const zero = makeGif(0, 10);
    expect(() => readImageDimensions(zero, 'gif')).toThrow(InvalidInputError);
  });
});

describe('checkImageSize', () => {
  it('accepts ordinary and limit-sized images', () => {
    expect(() => checkImageSize({ width: 512, height: 512 })).not.toThrow();
    expect(() => checkImageSize({ width: MAX_IMAGE_SIDE, height: Math.floor(MAX_IMAGE_PIXELS / MAX_IMAGE_SIDE) })).not.toThrow();
  });

  it('refuses a side over the limit, too many pixels, and empty sizes', () => {
    expect(() => checkImageSize({ width: MAX_IMAGE_SIDE + 1, height: 10 }, 'huge.png')).toThrow(/largest side accepted is 16384/);
    expect(() => checkImageSize({ width: 12_000, height: 12_000 })).toThrow(/megapixels/);
    expect(() => checkImageSize({ width: 0, height: 10 })).toThrow(InvalidInputError);
    const error = (() => {
      try {
        checkImageSize({ width: 65_535, height: 65_535 }, 'bomb.png');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).code).toBe('INVALID_INPUT');
    expect((error as InvalidInputError).location).toEqual({ file: 'bomb.png' });
  });

  it('catches a decompression bomb from its header alone', () => {
    const bomb = makeWebpVp8x(16_000_000, 16_000_000);
    expect(() => checkImageSize(readImageDimensions(bomb, 'webp'))).toThrow(InvalidInputError);
  });
});
