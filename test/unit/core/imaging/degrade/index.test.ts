import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../../src/core/errors.ts';
import {
  DEGRADATION_KINDS,
  decodePng,
  degradeImage,
  isDegradeVariant,
  parseVariant,
  type RawImage,
  SEVERITY_TABLE,
  severityLevel,
  VARIANT_IDS,
} from '../../../../../src/core/imaging/degrade/index.ts';
import { readImageDimensions } from '../../../../../src/core/imaging/dimensions.ts';
import { sniffImageType } from '../../../../../src/core/imaging/sniff.ts';
import { psnr, testImage } from './helpers.ts';
import { decodeJpeg, parseJpeg } from './jpeg-reader.ts';

const img = testImage(64, 64);

function decode(out: { bytes: Uint8Array; mime: string }): RawImage {
  return out.mime === 'image/jpeg' ? decodeJpeg(parseJpeg(out.bytes)) : decodePng(out.bytes);
}

describe('variant ids', () => {
  it('lists 15 ids, kind by kind, mild to severe', () => {
    expect(VARIANT_IDS).toHaveLength(15);
    expect(new Set(VARIANT_IDS).size).toBe(15);
    expect(VARIANT_IDS.slice(0, 4)).toEqual(['degrade:noise:1', 'degrade:noise:2', 'degrade:noise:3', 'degrade:blur:1']);
    for (const id of VARIANT_IDS) expect(isDegradeVariant(id)).toBe(true);
  });

  it('parses valid ids', () => {
    expect(parseVariant('degrade:jpeg:3')).toEqual({ kind: 'jpeg', severity: 3 });
    expect(parseVariant('degrade:downsample:1')).toEqual({ kind: 'downsample', severity: 1 });
  });

  it.each(['', 'degrade:blur', 'degrade:blur:0', 'degrade:blur:4', 'degrade:blur:02', 'degrade:sharpen:1', 'Degrade:blur:1', 'degrade:blur:1:x', 'noise:1'])(
    'rejects %j with an InvalidInputError',
    (id) => {
      expect(() => parseVariant(id)).toThrow(InvalidInputError);
      expect(isDegradeVariant(id)).toBe(false);
    },
  );

  it('has one documented parameter per kind and severity, ordered mild → severe', () => {
    for (const kind of DEGRADATION_KINDS) {
      const values = SEVERITY_TABLE[kind];
      const increasing = kind === 'noise' || kind === 'blur' || kind === 'downsample';
      for (let i = 1; i < 3; i++) expect(increasing ? values[i]! > values[i - 1]! : values[i]! < values[i - 1]!).toBe(true);
      expect(severityLevel(kind, 2).label).toContain(String(values[1]));
    }
  });
});

describe('degradeImage', () => {
  it.each(VARIANT_IDS)('%s returns a valid image of the original size', (id) => {
    const out = degradeImage(img, id, 'sha256:abc');
    const isJpeg = id.startsWith('degrade:jpeg:');
    expect(out.mime).toBe(isJpeg ? 'image/jpeg' : 'image/png');
    expect(sniffImageType(out.bytes)).toBe(isJpeg ? 'jpeg' : 'png');
    expect(readImageDimensions(out.bytes, isJpeg ? 'jpeg' : 'png')).toEqual({ width: 64, height: 64 });
    const decoded = decode(out);
    expect(decoded.channels).toBe(1);
    expect(psnr(img, decoded)).toBeLessThan(45); // visibly changed
  });

  it('degrades more at each severity (PSNR against the original falls)', () => {
    for (const kind of DEGRADATION_KINDS) {
      const scores = [1, 2, 3].map((s) => psnr(img, decode(degradeImage(img, `degrade:${kind}:${s}`, 'seed'))));
      expect(scores[1], kind).toBeLessThan(scores[0]!);
      expect(scores[2], kind).toBeLessThan(scores[1]!);
    }
  });

  it('gives identical bytes for the same image, variant and seed', () => {
    for (const id of VARIANT_IDS) expect(degradeImage(img, id, 's1').bytes).toEqual(degradeImage(img, id, 's1').bytes);
  });

  it('draws different noise for different seeds and variants, and ignores the seed elsewhere', () => {
    const a = degradeImage(img, 'degrade:noise:2', 'image-a').bytes;
    expect(degradeImage(img, 'degrade:noise:2', 'image-b').bytes).not.toEqual(a);
    const n1 = decodePng(degradeImage(img, 'degrade:noise:1', 'image-a').bytes);
    const n2 = decodePng(a);
    // Not just the same noise scaled: the variant is part of the seed.
    const sign = (x: RawImage) => Array.from(x.data, (v, i) => Math.sign(v - img.data[i]!));
    const s2 = sign(n2);
    const agree = sign(n1).filter((s, i) => s !== 0 && s === s2[i]).length / img.data.length;
    expect(agree).toBeLessThan(0.6);
    expect(degradeImage(img, 'degrade:blur:2', 'x').bytes).toEqual(degradeImage(img, 'degrade:blur:2', 'y').bytes);
  });

  it('keeps colour and alpha channels in PNG output', () => {
    const rgba = testImage(20, 12, 4);
    const out = decodePng(degradeImage(rgba, 'degrade:contrast:2', 's').bytes);
    expect(out.channels).toBe(4);
    for (let p = 3; p < out.data.length; p += 4) expect(out.data[p]).toBe(rgba.data[p]);
    expect(decodePng(degradeImage(testImage(20, 12, 3), 'degrade:blur:1', 's').bytes).channels).toBe(3);
  });

  it('throws InvalidInputError for an unknown variant', () => {
    expect(() => degradeImage(img, 'degrade:noise:9', 's')).toThrow(InvalidInputError);
  });

  it('pins the output (a change here changes what every stored variant means)', () => {
    // Decoded pixels for PNG outputs (zlib's byte stream may change between fflate versions), bytes for JPEG.
    const small = testImage(16, 16, 3);
    const digest = (bytes: Uint8Array) => bytes.reduce((h, b) => Math.imul(h ^ b, 0x01000193) >>> 0, 0x811c9dc5).toString(16);
    const digests = Object.fromEntries(
      VARIANT_IDS.map((id) => {
        const out = degradeImage(small, id, 'pinned');
        return [id, digest(out.mime === 'image/png' ? decodePng(out.bytes).data : out.bytes)];
      }),
    );
    expect(digests).toEqual(PINNED);
  });
});

const PINNED: Record<string, string> = {
  'degrade:noise:1': '8df4b698',
  'degrade:noise:2': '3bfc1ccf',
  'degrade:noise:3': '3529fc09',
  'degrade:blur:1': '6fa9fe4b',
  'degrade:blur:2': '49764426',
  'degrade:blur:3': '215aa731',
  'degrade:contrast:1': 'a87d6027',
  'degrade:contrast:2': '63b4b0e6',
  'degrade:contrast:3': '9d91e973',
  'degrade:jpeg:1': 'fc40099d',
  'degrade:jpeg:2': 'b347dd70',
  'degrade:jpeg:3': '418bd8df',
  'degrade:downsample:1': 'c3267ca5',
  'degrade:downsample:2': '6bcc029d',
  'degrade:downsample:3': 'e20e1b81',
};
