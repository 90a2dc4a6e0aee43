/**
 * The compressed transfer syntaxes we decode, and which decoder reads each.
 * A syntax missing here (MPEG, HEVC, JPEG XL, JPIP) is refused by the parser
 * with its name.
 */

/** One decoder per family of codestreams. */
export type PixelCodec = 'rle' | 'jpeg-lossless' | 'jpeg' | 'jpeg-ls' | 'jpeg-2000';

export interface CompressedSyntax {
  readonly codec: PixelCodec;
  /** Lossless syntaxes must import pixel-identical to the uncompressed original. */
  readonly lossless: boolean;
}

const SYNTAXES: ReadonlyMap<string, CompressedSyntax> = new Map([
  ['1.2.840.10008.1.2.5', { codec: 'rle', lossless: true }],
  ['1.2.840.10008.1.2.4.50', { codec: 'jpeg', lossless: false }],
  ['1.2.840.10008.1.2.4.51', { codec: 'jpeg', lossless: false }],
  ['1.2.840.10008.1.2.4.57', { codec: 'jpeg-lossless', lossless: true }],
  ['1.2.840.10008.1.2.4.70', { codec: 'jpeg-lossless', lossless: true }],
  ['1.2.840.10008.1.2.4.80', { codec: 'jpeg-ls', lossless: true }],
  ['1.2.840.10008.1.2.4.81', { codec: 'jpeg-ls', lossless: false }],
  ['1.2.840.10008.1.2.4.90', { codec: 'jpeg-2000', lossless: true }],
  ['1.2.840.10008.1.2.4.91', { codec: 'jpeg-2000', lossless: false }],
  // HTJ2K: OpenJPEG (2.5 and later) decodes the high-throughput block coder as well.
  ['1.2.840.10008.1.2.4.201', { codec: 'jpeg-2000', lossless: true }],
  ['1.2.840.10008.1.2.4.202', { codec: 'jpeg-2000', lossless: true }],
  ['1.2.840.10008.1.2.4.203', { codec: 'jpeg-2000', lossless: false }],
]);

/** How a compressed syntax is decoded, or `undefined` when it is native, unknown or not decodable. */
export function compressedSyntax(uid: string): CompressedSyntax | undefined {
  return SYNTAXES.get(uid);
}
