/**
 * A ZIP writer that writes exactly what it is told, true or not: declared
 * sizes, CRC-32 and data offsets are fields of the entry, so tests can craft
 * the archives an attacker would (a size of 0, a size that understates the
 * data, entries sharing one stream). Ordinary archives come from fflate.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';

export interface ForgedEntry {
  readonly name: string;
  /** The bytes as they sit in the archive (already deflated when method is 8). */
  readonly data: Uint8Array;
  readonly method: 0 | 8;
  readonly crc: number;
  /** Declared unpacked size. */
  readonly size: number;
  /** Declared packed size; the real length of `data` unless forged. */
  readonly compressedSize?: number;
  /** Point the central directory at an earlier entry's local header instead of writing a new one (overlapping entries). */
  readonly sameDataAs?: string;
}

/** Deflated bytes, CRC-32 and size of `raw`, as an honest writer records them. */
export function deflated(raw: Uint8Array): { data: Uint8Array; crc: number; size: number } {
  return { data: new Uint8Array(deflateRawSync(raw, { level: 9 })), crc: crc32(raw), size: raw.length };
}

/**
 * A deflate stream of `block` repeated `times` times, without ever holding the
 * repeated data: the block is deflated once with a sync flush (which ends on a
 * byte boundary and needs nothing before it), copied, and closed with an
 * empty final block. Gigabytes of declared content cost megabytes to make.
 */
export function repeatedDeflate(block: Uint8Array, times: number): { data: Uint8Array; crc: number; size: number } {
  const piece = new Uint8Array(deflateRawSync(block, { level: 9, finishFlush: constants.Z_SYNC_FLUSH }));
  const data = new Uint8Array(piece.length * times + 2);
  let crc = 0;
  for (let i = 0; i < times; i++) {
    data.set(piece, i * piece.length);
    crc = crc32(block, crc);
  }
  // Final block, fixed Huffman codes, holding only the end-of-block code.
  data.set([0x03, 0x00], piece.length * times);
  return { data, crc, size: block.length * times };
}

export function forgeZip(entries: readonly ForgedEntry[]): Uint8Array {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  const offsets = new Map<string, number>();
  let offset = 0;
  for (const e of entries) {
    const name = enc.encode(e.name);
    const csize = e.compressedSize ?? e.data.length;
    const header = (size: number) => {
      const h = new Uint8Array(size);
      const v = new DataView(h.buffer);
      return { h, v };
    };
    let local = e.sameDataAs === undefined ? undefined : offsets.get(e.sameDataAs);
    if (local === undefined) {
      const { h, v } = header(30 + name.length);
      v.setUint32(0, 0x04034b50, true);
      v.setUint16(4, 20, true);
      v.setUint16(6, 0x0800, true); // names are UTF-8
      v.setUint16(8, e.method, true);
      v.setUint16(12, 0x21, true); // 1980-01-01
      v.setUint32(14, e.crc, true);
      v.setUint32(18, csize, true);
      v.setUint32(22, e.size, true);
      v.setUint16(26, name.length, true);
      h.set(name, 30);
      local = offset;
      offsets.set(e.name, offset);
      parts.push(h, e.data);
      offset += h.length + e.data.length;
    }
    const { h, v } = header(46 + name.length);
    v.setUint32(0, 0x02014b50, true);
    v.setUint16(4, 20, true);
    v.setUint16(6, 20, true);
    v.setUint16(8, 0x0800, true);
    v.setUint16(10, e.method, true);
    v.setUint16(14, 0x21, true);
    v.setUint32(16, e.crc, true);
    v.setUint32(20, csize, true);
    v.setUint32(24, e.size, true);
    v.setUint16(28, name.length, true);
    v.setUint32(42, local, true);
    h.set(name, 46);
    central.push(h);
  }
  const dirSize = central.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const v = new DataView(end.buffer);
  v.setUint32(0, 0x06054b50, true);
  v.setUint16(8, entries.length, true);
  v.setUint16(10, entries.length, true);
  v.setUint32(12, dirSize, true);
  v.setUint32(16, offset, true);
  const all = [...parts, ...central, end];
  const out = new Uint8Array(all.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of all) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** An entry stored as is, with honest fields. */
export function stored(name: string, data: Uint8Array | string): ForgedEntry {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  return { name, data: bytes, method: 0, crc: crc32(bytes), size: bytes.length };
}
