/**
 * DICOM transfer syntaxes: how a dataset is encoded after the file meta
 * group. The four native ones and the compressed ones a codec reads
 * (codecs/syntaxes.ts) are decoded; the others are named so the refusal
 * message tells the user exactly what they have.
 */
import { compressedSyntax } from '../codecs/syntaxes.ts';

/** How the dataset bytes are laid out, for the syntaxes we can read. */
export interface NativeEncoding {
  readonly uid: string;
  readonly name: string;
  readonly littleEndian: boolean;
  readonly explicitVR: boolean;
  /** The dataset is raw-deflated after the meta group. */
  readonly deflated: boolean;
  /** Pixel data is compressed, in fragments (PS3.5 §A.4); the rest is Explicit VR Little Endian. */
  readonly encapsulated?: true;
}

export const IMPLICIT_VR_LE = '1.2.840.10008.1.2';
export const EXPLICIT_VR_LE = '1.2.840.10008.1.2.1';
const DEFLATED_EXPLICIT_VR_LE = '1.2.840.10008.1.2.1.99';
const EXPLICIT_VR_BE = '1.2.840.10008.1.2.2';

const NATIVE: ReadonlyMap<string, NativeEncoding> = new Map(
  [
    { uid: IMPLICIT_VR_LE, name: 'Implicit VR Little Endian', littleEndian: true, explicitVR: false, deflated: false },
    { uid: EXPLICIT_VR_LE, name: 'Explicit VR Little Endian', littleEndian: true, explicitVR: true, deflated: false },
    { uid: DEFLATED_EXPLICIT_VR_LE, name: 'Deflated Explicit VR Little Endian', littleEndian: true, explicitVR: true, deflated: true },
    { uid: EXPLICIT_VR_BE, name: 'Explicit VR Big Endian', littleEndian: false, explicitVR: true, deflated: false },
  ].map((e) => [e.uid, e]),
);

/** Encapsulated (compressed) syntaxes, by UID, with the name users know them by. */
const COMPRESSED: ReadonlyMap<string, string> = new Map([
  ['1.2.840.10008.1.2.4.50', 'JPEG Baseline'],
  ['1.2.840.10008.1.2.4.51', 'JPEG Extended'],
  ['1.2.840.10008.1.2.4.57', 'JPEG Lossless'],
  ['1.2.840.10008.1.2.4.70', 'JPEG Lossless'],
  ['1.2.840.10008.1.2.4.80', 'JPEG-LS Lossless'],
  ['1.2.840.10008.1.2.4.81', 'JPEG-LS Near-Lossless'],
  ['1.2.840.10008.1.2.4.90', 'JPEG 2000 Lossless'],
  ['1.2.840.10008.1.2.4.91', 'JPEG 2000'],
  ['1.2.840.10008.1.2.4.92', 'JPEG 2000 Part 2 Lossless'],
  ['1.2.840.10008.1.2.4.93', 'JPEG 2000 Part 2'],
  ['1.2.840.10008.1.2.4.94', 'JPIP'],
  ['1.2.840.10008.1.2.4.95', 'JPIP Deflate'],
  ['1.2.840.10008.1.2.4.100', 'MPEG-2'],
  ['1.2.840.10008.1.2.4.101', 'MPEG-2'],
  ['1.2.840.10008.1.2.4.102', 'MPEG-4'],
  ['1.2.840.10008.1.2.4.103', 'MPEG-4'],
  ['1.2.840.10008.1.2.4.104', 'MPEG-4'],
  ['1.2.840.10008.1.2.4.105', 'MPEG-4'],
  ['1.2.840.10008.1.2.4.106', 'MPEG-4'],
  ['1.2.840.10008.1.2.4.107', 'HEVC'],
  ['1.2.840.10008.1.2.4.108', 'HEVC'],
  ['1.2.840.10008.1.2.4.110', 'JPEG XL Lossless'],
  ['1.2.840.10008.1.2.4.111', 'JPEG XL'],
  ['1.2.840.10008.1.2.4.112', 'JPEG XL'],
  ['1.2.840.10008.1.2.4.201', 'HTJ2K Lossless'],
  ['1.2.840.10008.1.2.4.202', 'HTJ2K Lossless RPCL'],
  ['1.2.840.10008.1.2.4.203', 'HTJ2K'],
  ['1.2.840.10008.1.2.5', 'RLE Lossless'],
  ['1.2.840.10008.1.2.1.98', 'Encapsulated Uncompressed'],
]);

/** The encoding of a native syntax, or `undefined` for compressed or unknown ones. */
export function nativeEncoding(uid: string): NativeEncoding | undefined {
  return NATIVE.get(uid);
}

/** The common name of a compressed syntax (`JPEG Lossless`), or `undefined`. */
export function compressedSyntaxName(uid: string): string | undefined {
  return COMPRESSED.get(uid);
}

/** The dataset encoding of a compressed syntax we can decode, or `undefined`. */
export function encapsulatedEncoding(uid: string): NativeEncoding | undefined {
  const name = COMPRESSED.get(uid);
  if (!name || !compressedSyntax(uid)) return undefined;
  return { uid, name, littleEndian: true, explicitVR: true, deflated: false, encapsulated: true };
}
