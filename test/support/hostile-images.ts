/**
 * Images that carry patient data outside their pixels, as scanners, viewers
 * and phones write it: a PNG with tEXt, iTXt and zTXt chunks (the zTXt one
 * holding a whole zlib-compressed DICOM file, invisible to a byte search),
 * eXIf, a colour profile with a name and an unknown chunk; a JPEG with a
 * comment (COM), EXIF (APP1), XMP and a colour profile; a WebP with EXIF and
 * XMP; a GIF with a comment and an application block. Each planted value
 * starts with the marker passed in, so a test can search storage and exports
 * for it. Made at test time; never committed.
 */
import { zlibSync } from 'fflate';
import { crc32 } from '../../src/core/hash/crc32.ts';
import { encodeJpeg } from '../../src/core/imaging/degrade/jpeg-encode.ts';
import { rawImage } from '../../src/core/imaging/degrade/pixels.ts';
import { encodePng } from '../../src/core/imaging/png-encode.ts';

const enc = new TextEncoder();
const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function u32be(n: number): Uint8Array {
  return Uint8Array.of((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

/** One PNG chunk with its CRC. */
export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const body = concat([latin1(type), data]);
  return concat([u32be(data.length), body, u32be(crc32(body))]);
}

/** An 8-bit grey gradient PNG (our own encoder: IHDR, IDAT, IEND only). */
export function cleanPng(seed = 1, size = 16): Uint8Array {
  return encodePng(Uint8Array.from({ length: size * size }, (_, i) => (i * 7 + seed * 13) & 0xff), size, size);
}

/** Inserts chunks right after IHDR (where metadata writers put them). */
export function withPngChunks(png: Uint8Array, chunks: readonly Uint8Array[], trailing?: Uint8Array): Uint8Array {
  const afterIhdr = 8 + 25;
  return concat([png.subarray(0, afterIhdr), ...chunks, png.subarray(afterIhdr), ...(trailing ? [trailing] : [])]);
}

/**
 * A PNG with the marker in tEXt ("Patient <marker> …"), iTXt (UTF-8, with
 * diacritics), zTXt holding `compressed` (e.g. a DICOM file) zlib-compressed,
 * eXIf, a named colour profile (iCCP) and a private chunk (prVt).
 */
export function pngWithMetadata(marker: string, compressed: Uint8Array = enc.encode(`${marker} in a compressed chunk`)): Uint8Array {
  const tEXt = pngChunk('tEXt', latin1(`Comment\0Patient ${marker} MRN 4444`));
  const zTXt = pngChunk('zTXt', concat([latin1('DICOM\0\0'), zlibSync(compressed)]));
  const iTXt = pngChunk('iTXt', concat([latin1('Description\0\0\0en\0'), enc.encode('Beschreibung'), Uint8Array.of(0), enc.encode(`Patient ${marker} MÜLLER`)]));
  const eXIf = pngChunk('eXIf', concat([latin1('MM\0*\0\0\0\x08'), latin1(`${marker}-exif`)]));
  const iCCP = pngChunk('iCCP', concat([latin1(`${marker} profile\0\0`), zlibSync(latin1('not really a profile'))]));
  const prVt = pngChunk('prVt', latin1(`${marker} private`));
  return withPngChunks(cleanPng(2), [tEXt, zTXt, iTXt, eXIf, iCCP, prVt]);
}

/** A small colour baseline JPEG from our own encoder (SOI, tables, frame, scan, EOI). */
export function cleanJpeg(seed = 1, size = 16): Uint8Array {
  const data = Uint8Array.from({ length: size * size * 3 }, (_, i) => (i * 5 + seed * 29) & 0xff);
  return encodeJpeg(rawImage(size, size, 3, data), { quality: 90 });
}

function jpegSegment(marker: number, payload: Uint8Array): Uint8Array {
  const length = payload.length + 2;
  return concat([Uint8Array.of(0xff, marker, length >> 8, length & 0xff), payload]);
}

/** A JPEG with the marker in a JFIF thumbnail (APP0), EXIF (APP1), XMP (APP1), a colour profile (APP2), a comment (COM) and after its end. */
export function jpegWithMetadata(marker: string): Uint8Array {
  const jpeg = cleanJpeg(3);
  const jfif = jpegSegment(0xe0, concat([latin1('JFIF\0\x01\x01\0\0\x01\0\x01\x01\x01'), latin1(marker.slice(0, 3))]));
  const exif = jpegSegment(0xe1, concat([latin1('Exif\0\0MM\0*\0\0\0\x08'), latin1(`Artist ${marker}`)]));
  const xmp = jpegSegment(0xe1, concat([latin1('http://ns.adobe.com/xap/1.0/\0'), enc.encode(`<x:xmpmeta>${marker}</x:xmpmeta>`)]));
  const icc = jpegSegment(0xe2, concat([latin1('ICC_PROFILE\0\x01\x01'), latin1(`desc ${marker}`)]));
  const com = jpegSegment(0xfe, latin1(`Patient DOE JOHN ${marker}`));
  // The encoder's own JFIF header (18 bytes after SOI) is replaced by one with a thumbnail; text follows EOI.
  return concat([jpeg.subarray(0, 2), jfif, exif, xmp, icc, com, jpeg.subarray(20), latin1(`${marker} after the end`)]);
}

function riffChunk(type: string, payload: Uint8Array): Uint8Array {
  const size = payload.length;
  return concat([latin1(type), Uint8Array.of(size & 0xff, (size >> 8) & 0xff, (size >> 16) & 0xff, size >>> 24), payload, ...(size & 1 ? [Uint8Array.of(0)] : [])]);
}

/** An extended WebP (VP8X naming EXIF and XMP, a lossless 1×1 frame) with the marker in EXIF and XMP chunks. */
export function webpWithMetadata(marker: string): Uint8Array {
  const vp8x = riffChunk('VP8X', Uint8Array.of(0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0));
  const vp8l = riffChunk('VP8L', Uint8Array.of(0x2f, 0, 0, 0, 0, 0x07, 0x10, 0x11, 0x00, 0x00));
  const body = concat([latin1('WEBP'), vp8x, vp8l, riffChunk('EXIF', latin1(`MM\0*${marker}`)), riffChunk('XMP ', enc.encode(`<x>${marker}</x>`))]);
  return concat([latin1('RIFF'), Uint8Array.of(body.length & 0xff, (body.length >> 8) & 0xff, (body.length >> 16) & 0xff, body.length >>> 24), body]);
}

/** A 1×1 GIF with the marker in a comment extension and an application extension. */
export function gifWithMetadata(marker: string): Uint8Array {
  const subBlocks = (bytes: Uint8Array) => concat([Uint8Array.of(bytes.length), bytes, Uint8Array.of(0)]);
  return concat([
    latin1('GIF89a'), Uint8Array.of(1, 0, 1, 0, 0x80, 0, 0), Uint8Array.of(0, 0, 0, 255, 255, 255),
    Uint8Array.of(0x21, 0xfe), subBlocks(latin1(`Patient ${marker}`)),
    Uint8Array.of(0x21, 0xff, 11), latin1('XMP DataXMP'), subBlocks(latin1(marker)),
    Uint8Array.of(0x21, 0xf9, 4, 0, 0, 0, 0, 0),
    Uint8Array.of(0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0), Uint8Array.of(2, 2, 0x44, 0x01, 0),
    Uint8Array.of(0x3b),
  ]);
}
