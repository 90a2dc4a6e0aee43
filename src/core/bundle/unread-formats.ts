/**
 * Compressed and archive formats NeuroEval does not open, found by their
 * content. A file stored byte for byte must be checked for patient data
 * first (hidden-medical.ts), and that is only possible for what can be
 * looked into: ZIP, gzip and TAR are opened; every format below is refused
 * by name, wherever it sits in a bundle, because a DICOM file compressed in
 * it is invisible to any byte search.
 *
 * Not detectable by content: brotli and raw deflate streams (they have no
 * signature), and data encrypted without a container.
 */

function at(bytes: Uint8Array, offset: number, ...expected: number[]): boolean {
  if (bytes.length < offset + expected.length) return false;
  for (let i = 0; i < expected.length; i++) if (bytes[offset + i] !== expected[i]) return false;
  return true;
}

function text(bytes: Uint8Array, offset: number, s: string): boolean {
  return at(bytes, offset, ...Array.from(s, (c) => c.charCodeAt(0)));
}

function u32le(bytes: Uint8Array, offset: number): number {
  return (bytes[offset]! | (bytes[offset + 1]! << 8) | (bytes[offset + 2]! << 16)) + bytes[offset + 3]! * 2 ** 24;
}

/** LZMA "alone" (.lzma) has no magic: a properties byte, then a dictionary size that is 2^n or 3·2^n. */
function isLzmaAlone(bytes: Uint8Array): boolean {
  if (bytes.length < 13 || bytes[0]! > 224) return false;
  // The default properties byte (lc=3, lp=0, pb=2) is 0x5D; other values are too weak a sign on their own.
  if (bytes[0] !== 0x5d) return false;
  const dict = u32le(bytes, 1);
  if (dict < 4096) return false;
  const power = (n: number) => n > 0 && (n & (n - 1)) === 0;
  return power(dict) || (dict % 3 === 0 && power(dict / 3));
}

/** A zlib stream: deflate with a window up to 32 KiB and a header checksum that divides by 31. Only the three common levels, so text starting "x^" is not taken for one. */
function isZlib(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x78 && (bytes[1] === 0x01 || bytes[1] === 0x9c || bytes[1] === 0xda) && ((bytes[0] << 8) | bytes[1]) % 31 === 0;
}

/** Archive formats among those below (the others compress one stream). */
const ARCHIVES = new Set(['7-Zip', 'RAR', 'Microsoft Cabinet', 'ARJ', 'LHA', 'XAR', 'ar', 'cpio', 'SquashFS', 'ISO 9660 disc image', 'Apple disk image (DMG)']);

/** How a message says what the bytes are: "bzip2-compressed", "a 7-Zip archive", "a zlib stream". */
export function unreadFormatPhrase(format: string): string {
  if (format === 'zlib') return 'a zlib stream';
  if (format.endsWith('image') || format.endsWith('(DMG)')) return `an ${format}`.replace(/^an ([^AEIOU])/, 'a $1');
  if (ARCHIVES.has(format)) return `a ${format} archive`.replace(/^a ([AEIOUaeiou])/, 'an $1');
  return `${format}-compressed`;
}

/**
 * The name of the compressed or archive format these bytes are in, when it
 * is one NeuroEval does not open; null otherwise (ZIP, gzip and TAR, which are
 * opened and checked, return null too).
 */
export function unreadFormat(bytes: Uint8Array): string | null {
  if (text(bytes, 0, 'BZh') && bytes[3]! >= 0x31 && bytes[3]! <= 0x39) return 'bzip2';
  if (at(bytes, 0, 0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)) return 'xz';
  if (at(bytes, 0, 0x28, 0xb5, 0x2f, 0xfd)) return 'Zstandard';
  // Zstandard skippable frames (0x184D2A50–5F) may open a stream.
  if (bytes.length >= 4 && (bytes[0]! & 0xf0) === 0x50 && at(bytes, 1, 0x2a, 0x4d, 0x18)) return 'Zstandard';
  if (at(bytes, 0, 0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c)) return '7-Zip';
  if (text(bytes, 0, 'Rar!\x1a\x07')) return 'RAR';
  if (at(bytes, 0, 0x04, 0x22, 0x4d, 0x18) || at(bytes, 0, 0x02, 0x21, 0x4c, 0x18)) return 'LZ4';
  if (text(bytes, 0, 'LZIP')) return 'lzip';
  if (at(bytes, 0, 0x89, 0x4c, 0x5a, 0x4f, 0x00, 0x0d, 0x0a, 0x1a, 0x0a)) return 'lzop';
  if (at(bytes, 0, 0x1f, 0x9d)) return 'Unix compress (.Z)';
  if (at(bytes, 0, 0x1f, 0x1e) || at(bytes, 0, 0x1f, 0xa0)) return 'Unix pack';
  if (isZlib(bytes)) return 'zlib';
  if (isLzmaAlone(bytes)) return 'LZMA';
  if (text(bytes, 0, 'MSCF\0\0\0\0')) return 'Microsoft Cabinet';
  if (at(bytes, 0, 0x60, 0xea) && bytes.length >= 4 && (bytes[2]! | (bytes[3]! << 8)) <= 2600) return 'ARJ';
  if (text(bytes, 2, '-lh') && bytes[6] === 0x2d) return 'LHA';
  if (text(bytes, 0, 'xar!')) return 'XAR';
  if (text(bytes, 0, '!<arch>\n')) return 'ar';
  if (text(bytes, 0, '070701') || text(bytes, 0, '070702') || text(bytes, 0, '070707') || at(bytes, 0, 0xc7, 0x71) || at(bytes, 0, 0x71, 0xc7)) return 'cpio';
  if (text(bytes, 0, 'hsqs') || text(bytes, 0, 'sqsh')) return 'SquashFS';
  if (text(bytes, 0x8001, 'CD001')) return 'ISO 9660 disc image';
  if (bytes.length >= 512 && text(bytes, bytes.length - 512, 'koly')) return 'Apple disk image (DMG)';
  return null;
}
