/**
 * Images are stored as pixels, not as files: a PNG, JPEG, WebP or GIF keeps
 * only what a decoder needs to draw it, and every other chunk, segment or
 * block goes. Cameras, PACS viewers and screenshot tools write patient names,
 * record numbers, dates and even whole DICOM files (zlib-compressed in a PNG
 * `zTXt` chunk, so no byte search finds them) into these places, and a stored
 * image is exported byte for byte.
 *
 * Removing is a keep-list, as for DICOM tags: what is not listed below is
 * dropped, including chunk types nobody has defined yet. An image that holds
 * nothing else comes back as the very same array (so clean images keep their
 * hash and a NeuroEval export re-imports with the same content hash).
 *
 * Kept, because they change the pixels shown and can hold nothing but
 * numbers of fixed size:
 * - PNG: IHDR, PLTE, IDAT, IEND, and tRNS, gAMA, cHRM, sRGB, sBIT.
 * - JPEG: the frame, tables, restart interval and scans; a JFIF APP0 header
 *   without its thumbnail; an Adobe APP14 segment rewritten to its 12 fixed
 *   bytes (its colour transform flag says whether three components are RGB
 *   or YCbCr).
 * - WebP: VP8X (with its profile and metadata flags cleared), VP8, VP8L,
 *   ALPH, ANIM, and ANMF frames (whose own sub-chunks are filtered the same way).
 * - GIF: the screen, colour tables, graphic control extensions and images.
 *
 * Dropped and reported: text of every kind, EXIF and XMP, colour profiles
 * (an ICC profile carries free-text descriptions; the pixels are drawn as
 * sRGB without it), thumbnails, application blocks, unknown chunks, and
 * anything after the image's end marker.
 */
import { InvalidInputError } from '../errors.ts';
import type { RasterImageType } from './sniff.ts';

/** What was taken out of one image, one label per kind of metadata (e.g. `PNG text (tEXt)`), in file order. */
export interface StrippedImage {
  readonly bytes: Uint8Array;
  readonly removed: readonly string[];
}

const FORMAT: Record<RasterImageType, string> = { png: 'PNG', jpeg: 'JPEG', webp: 'WebP', gif: 'GIF', bmp: 'BMP' };

function damaged(type: RasterImageType, detail: string, file?: string): InvalidInputError {
  return new InvalidInputError(`This ${FORMAT[type]} image is damaged or incomplete: ${detail}.`, file ? { file } : undefined);
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  let s = '';
  for (let i = at; i < at + length && i < bytes.length; i++) s += String.fromCharCode(bytes[i]!);
  return s;
}

/** A four-letter chunk type as a person can read it (never raw bytes from the file). */
function printableType(type: string): string {
  return type.replace(/[^\x20-\x7e]/g, '?');
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function noteOnce(removed: string[], label: string): void {
  if (!removed.includes(label)) removed.push(label);
}

// ── PNG ──────────────────────────────────────────────────────────────────────

const PNG_KEPT = new Set(['IHDR', 'PLTE', 'IDAT', 'IEND']);
/** Ancillary chunks that only change how the pixels are drawn, with the data lengths they may have. */
const PNG_RENDERING: ReadonlyMap<string, (length: number) => boolean> = new Map([
  ['tRNS', (n: number) => n <= 256],
  ['gAMA', (n: number) => n === 4],
  ['cHRM', (n: number) => n === 32],
  ['sRGB', (n: number) => n === 1],
  ['sBIT', (n: number) => n >= 1 && n <= 4],
]);
const PNG_LABELS: Readonly<Record<string, string>> = {
  tEXt: 'PNG text (tEXt)',
  zTXt: 'PNG compressed text (zTXt)',
  iTXt: 'PNG international text (iTXt)',
  eXIf: 'PNG EXIF (eXIf)',
  iCCP: 'PNG colour profile (iCCP)',
  tIME: 'PNG time stamp (tIME)',
  pHYs: 'PNG pixel size (pHYs)',
  bKGD: 'PNG background colour (bKGD)',
  hIST: 'PNG histogram (hIST)',
  sPLT: 'PNG suggested palette (sPLT)',
  acTL: 'PNG animation (acTL, fcTL, fdAT)',
  fcTL: 'PNG animation (acTL, fcTL, fdAT)',
  fdAT: 'PNG animation (acTL, fcTL, fdAT)',
};

const PNG_IEND = Uint8Array.of(0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82);

function stripPng(bytes: Uint8Array, file?: string): StrippedImage {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const removed: string[] = [];
  const kept: Uint8Array[] = [bytes.subarray(0, 8)];
  let pos = 8;
  let ended = false;
  while (pos + 12 <= bytes.length) {
    const length = view.getUint32(pos);
    const type = ascii(bytes, pos + 4, 4);
    const end = pos + 12 + length;
    if (end > bytes.length) throw damaged('png', `the "${printableType(type)}" chunk runs past the end of the file (it was cut short)`, file);
    const fits = PNG_RENDERING.get(type);
    if (PNG_KEPT.has(type) || fits?.(length)) kept.push(bytes.subarray(pos, end));
    else noteOnce(removed, PNG_LABELS[type] ?? `PNG chunk "${printableType(type)}"`);
    pos = end;
    if (type === 'IEND') {
      ended = true;
      break;
    }
  }
  if (pos < bytes.length) noteOnce(removed, 'data after the end of the PNG');
  // A file cut after its last chunk still draws; it is stored ended, as every decoder expects.
  if (!ended) kept.push(PNG_IEND);
  return removed.length === 0 && ended ? { bytes, removed } : { bytes: concat(kept), removed };
}

// ── JPEG ─────────────────────────────────────────────────────────────────────

/** Markers of the image itself: frames (SOFn), Huffman and arithmetic tables, quantisation tables, line count, restart interval, hierarchical progression. */
function isJpegStructure(marker: number): boolean {
  return (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc8) || (marker >= 0xdb && marker <= 0xdf);
}

function jpegLabel(marker: number, data: Uint8Array): string {
  if (marker === 0xfe) return 'JPEG comment (COM)';
  if (marker >= 0xe0 && marker <= 0xef) {
    const n = marker - 0xe0;
    const id = ascii(data, 0, 32);
    if (n === 0 && id.startsWith('JFXX\0')) return 'JPEG JFIF thumbnail (APP0)';
    if (n === 1 && id.startsWith('Exif\0')) return 'JPEG EXIF (APP1)';
    if (n === 1 && id.startsWith('http://ns.adobe.com/')) return 'JPEG XMP (APP1)';
    if (n === 2 && id.startsWith('ICC_PROFILE\0')) return 'JPEG colour profile (APP2)';
    if (n === 13) return 'JPEG Photoshop/IPTC data (APP13)';
    return `JPEG application data (APP${n})`;
  }
  return `JPEG segment 0xFF${marker.toString(16).toUpperCase()}`;
}

/** The Adobe segment's 12 fixed bytes, rewritten: "Adobe", version 100, no flags, the colour transform (0, 1 or 2). */
function adobeSegment(data: Uint8Array): Uint8Array | null {
  if (data.length !== 12 || ascii(data, 0, 5) !== 'Adobe' || data[11]! > 2) return null;
  return Uint8Array.from([0xff, 0xee, 0, 14, 0x41, 0x64, 0x6f, 0x62, 0x65, 0, 100, 0, 0, 0, 0, data[11]!]);
}

/** A JFIF header without its thumbnail: "JFIF", version, density unit and densities (14 fixed bytes). */
function jfifSegment(data: Uint8Array): Uint8Array | null {
  if (data.length < 14 || ascii(data, 0, 5) !== 'JFIF\0') return null;
  return Uint8Array.from([0xff, 0xe0, 0, 16, ...data.subarray(0, 12), 0, 0]);
}

function stripJpeg(bytes: Uint8Array, file?: string): StrippedImage {
  const removed: string[] = [];
  const kept: Uint8Array[] = [bytes.subarray(0, 2)];
  let changed = false;
  let pos = 2;
  let ended = false;
  while (pos < bytes.length) {
    if (bytes[pos] !== 0xff) {
      // Stray bytes between segments (decoders skip them with a warning) are not kept.
      const next = bytes.indexOf(0xff, pos);
      noteOnce(removed, 'stray data between JPEG segments');
      if (next < 0) break;
      pos = next;
      continue;
    }
    // Any number of 0xFF fill bytes may precede a marker.
    let m = pos + 1;
    while (m < bytes.length && bytes[m] === 0xff) m++;
    if (m >= bytes.length) break;
    const marker = bytes[m]!;
    if (m > pos + 1) changed = true;
    if (marker === 0xd9) {
      kept.push(Uint8Array.of(0xff, 0xd9));
      pos = m + 1;
      ended = true;
      break;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      // Stand-alone markers outside a scan carry nothing.
      kept.push(Uint8Array.of(0xff, marker));
      pos = m + 1;
      continue;
    }
    if (m + 3 > bytes.length) throw damaged('jpeg', 'a segment header is cut short', file);
    const length = (bytes[m + 1]! << 8) | bytes[m + 2]!;
    const end = m + 1 + length;
    if (length < 2 || end > bytes.length) throw damaged('jpeg', `the segment at byte ${pos} runs past the end of the file (it was cut short)`, file);
    const data = bytes.subarray(m + 3, end);
    if (marker === 0xda) {
      // A scan: its header, then entropy-coded data up to the next marker that is neither a stuffed 0xFF00 nor a restart.
      let p = end;
      while (p < bytes.length) {
        if (bytes[p] === 0xff) {
          const next = bytes[p + 1];
          if (next === undefined) break;
          if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) {
            p += 2;
            continue;
          }
          if (next === 0xff) {
            p++;
            continue;
          }
          break;
        }
        p++;
      }
      kept.push(Uint8Array.of(0xff, 0xda), bytes.subarray(m + 1, p));
      pos = p;
      continue;
    }
    if (isJpegStructure(marker)) {
      kept.push(Uint8Array.of(0xff, marker), bytes.subarray(m + 1, end));
    } else {
      const fixed = marker === 0xee ? adobeSegment(data) : marker === 0xe0 ? jfifSegment(data) : null;
      if (fixed) {
        kept.push(fixed);
        if (!sameBytes(fixed, bytes.subarray(pos, end))) {
          changed = true;
          // Only a thumbnail is ever cut from a JFIF header (its other fields are fixed numbers).
          if (marker === 0xe0) noteOnce(removed, 'JPEG JFIF thumbnail (APP0)');
        }
      } else {
        noteOnce(removed, jpegLabel(marker, data));
      }
    }
    pos = end;
  }
  if (pos < bytes.length) noteOnce(removed, 'data after the end of the JPEG');
  // A file cut inside its last scan still draws (partly); it is stored ended, as every decoder expects.
  if (!ended) kept.push(Uint8Array.of(0xff, 0xd9));
  return removed.length === 0 && !changed && ended ? { bytes, removed } : { bytes: concat(kept), removed };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// ── WebP ─────────────────────────────────────────────────────────────────────

const WEBP_KEPT = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF']);
const WEBP_LABELS: Readonly<Record<string, string>> = {
  EXIF: 'WebP EXIF (EXIF)',
  'XMP ': 'WebP XMP (XMP)',
  ICCP: 'WebP colour profile (ICCP)',
};
/** VP8X flags for an ICC profile, EXIF and XMP: cleared with their chunks. */
const VP8X_METADATA_FLAGS = 0x20 | 0x08 | 0x04;

function le32(value: number): Uint8Array {
  return Uint8Array.of(value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, (value >>> 24) & 0xff);
}

/** Filters a run of RIFF chunks; `frame` is true inside an ANMF frame, which holds only image chunks. */
function webpChunks(bytes: Uint8Array, from: number, to: number, removed: string[], frame: boolean, file?: string): { parts: Uint8Array[]; changed: boolean } {
  const parts: Uint8Array[] = [];
  let changed = false;
  let pos = from;
  while (pos + 8 <= to) {
    const type = ascii(bytes, pos, 4);
    const size = bytes[pos + 4]! | (bytes[pos + 5]! << 8) | (bytes[pos + 6]! << 16) | (bytes[pos + 7]! * 2 ** 24);
    const end = pos + 8 + size + (size & 1);
    if (pos + 8 + size > to) throw damaged('webp', `the "${printableType(type)}" chunk runs past the end of the file (it was cut short)`, file);
    const chunk = bytes.subarray(pos, Math.min(end, to));
    const allowed = frame ? type === 'ALPH' || type === 'VP8 ' || type === 'VP8L' : WEBP_KEPT.has(type);
    if (!allowed) {
      noteOnce(removed, WEBP_LABELS[type] ?? `WebP chunk "${printableType(type)}"`);
      changed = true;
    } else if (type === 'VP8X' && size >= 10 && (bytes[pos + 8]! & VP8X_METADATA_FLAGS) !== 0) {
      const copy = chunk.slice();
      copy[8] = copy[8]! & ~VP8X_METADATA_FLAGS;
      parts.push(copy);
      changed = true;
    } else if (type === 'ANMF' && size >= 16) {
      const inner = webpChunks(bytes, pos + 8 + 16, pos + 8 + size, removed, true, file);
      if (inner.changed) {
        const body = concat([bytes.subarray(pos + 8, pos + 8 + 16), ...inner.parts]);
        parts.push(concat([bytes.subarray(pos, pos + 4), le32(body.length), body]));
        changed = true;
      } else parts.push(chunk);
    } else parts.push(chunk);
    pos = end;
  }
  if (pos < to) changed = true;
  return { parts, changed };
}

function stripWebp(bytes: Uint8Array, file?: string): StrippedImage {
  const removed: string[] = [];
  const riffSize = bytes[4]! | (bytes[5]! << 8) | (bytes[6]! << 16) | (bytes[7]! * 2 ** 24);
  const end = Math.min(bytes.length, 8 + riffSize);
  const { parts, changed } = webpChunks(bytes, 12, end, removed, false, file);
  if (end < bytes.length) noteOnce(removed, 'data after the end of the WebP');
  if (!changed && removed.length === 0) return { bytes, removed };
  const body = concat(parts);
  return { bytes: concat([bytes.subarray(0, 4), le32(4 + body.length), bytes.subarray(8, 12), body]), removed };
}

// ── GIF ──────────────────────────────────────────────────────────────────────

/** Data sub-blocks from `at`: the offset after their terminator. */
function subBlocksEnd(bytes: Uint8Array, at: number, file?: string): number {
  let p = at;
  for (;;) {
    if (p >= bytes.length) throw damaged('gif', 'a data block runs past the end of the file (it was cut short)', file);
    const n = bytes[p]!;
    p += 1 + n;
    if (n === 0) return p;
  }
}

function stripGif(bytes: Uint8Array, file?: string): StrippedImage {
  const removed: string[] = [];
  if (bytes.length < 13) throw damaged('gif', 'the header is cut short', file);
  const globalTable = bytes[10]! & 0x80 ? 3 * 2 ** ((bytes[10]! & 7) + 1) : 0;
  const kept: Uint8Array[] = [bytes.subarray(0, 13 + globalTable)];
  let pos = 13 + globalTable;
  let ended = false;
  while (pos < bytes.length) {
    const introducer = bytes[pos]!;
    if (introducer === 0x3b) {
      kept.push(Uint8Array.of(0x3b));
      pos++;
      ended = true;
      break;
    }
    if (introducer === 0x2c) {
      if (pos + 10 > bytes.length) throw damaged('gif', 'an image descriptor is cut short', file);
      const localTable = bytes[pos + 9]! & 0x80 ? 3 * 2 ** ((bytes[pos + 9]! & 7) + 1) : 0;
      const end = subBlocksEnd(bytes, pos + 10 + localTable + 1, file);
      kept.push(bytes.subarray(pos, end));
      pos = end;
      continue;
    }
    if (introducer === 0x21) {
      const label = bytes[pos + 1];
      const end = subBlocksEnd(bytes, pos + 2, file);
      if (label === 0xf9) kept.push(bytes.subarray(pos, end));
      else if (label === 0xfe) noteOnce(removed, 'GIF comment');
      else if (label === 0xff) noteOnce(removed, 'GIF application data');
      else if (label === 0x01) noteOnce(removed, 'GIF plain text');
      else noteOnce(removed, `GIF extension 0x${(label ?? 0).toString(16).toUpperCase()}`);
      pos = end;
      continue;
    }
    throw damaged('gif', `an unknown block (0x${introducer.toString(16).toUpperCase()}) starts at byte ${pos}`, file);
  }
  if (pos < bytes.length) noteOnce(removed, 'data after the end of the GIF');
  if (!ended) kept.push(Uint8Array.of(0x3b));
  return removed.length === 0 && ended ? { bytes, removed } : { bytes: concat(kept), removed };
}

/**
 * The image with everything but its pixels and how to draw them removed,
 * and a label for each kind of thing removed. Returns the same array when
 * nothing was removed. BMP holds no metadata blocks and is returned as is.
 * @throws InvalidInputError when the file's structure cannot be walked (it is damaged).
 */
export function stripImageMetadata(bytes: Uint8Array, type: RasterImageType, file?: string): StrippedImage {
  switch (type) {
    case 'png':
      return stripPng(bytes, file);
    case 'jpeg':
      return stripJpeg(bytes, file);
    case 'webp':
      return stripWebp(bytes, file);
    case 'gif':
      return stripGif(bytes, file);
    case 'bmp':
      return { bytes, removed: [] };
  }
}
